"""What a deploy of a bundle folder carries, and what it must upload after a rebuild."""

from __future__ import annotations

from mkdocs_semantic.bundle.footprint import footprint, listing, load_listing, save_listing


def test_listing_counts_every_file_and_upload_counts_new_or_changed_ones(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.bin").write_bytes(b"12345")
    (tmp_path / "manifest.json").write_bytes(b"{}")
    before = listing(tmp_path)
    assert footprint(before, None) == footprint(before, None)
    first = footprint(before, None)
    assert (first.files, first.bytes, first.changed_files) == (2, 7, None)
    (tmp_path / "manifest.json").write_bytes(b"{1}")  # changed
    (tmp_path / "a" / "y.bin").write_bytes(b"new!")  # new
    now = footprint(listing(tmp_path), before)
    assert (now.files, now.changed_files, now.changed_bytes) == (3, 2, 7)
    assert footprint(listing(tmp_path), listing(tmp_path)).changed_files == 0


def test_a_saved_listing_reads_back_and_a_damaged_one_reads_as_none(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    files = listing(tmp_path)
    save_listing(tmp_path / "bundle_files.json", files)
    assert load_listing(tmp_path / "bundle_files.json") == files
    (tmp_path / "bundle_files.json").write_text('{"version": 1, "files": {"f": [1]}}')
    assert load_listing(tmp_path / "bundle_files.json") is None
    (tmp_path / "bundle_files.json").write_text("{oops")
    assert load_listing(tmp_path / "bundle_files.json") is None
    assert load_listing(tmp_path / "missing.json") is None

"""Long pages' excerpts in parts (bundle/fragment_parts.py), written and checked."""

from __future__ import annotations

import numpy as np
import pytest

from mkdocs_semantic.bundle import writer
from mkdocs_semantic.bundle.format import BundleError
from mkdocs_semantic.bundle.fragment_parts import first_parts, page_parts, part_counts
from mkdocs_semantic.bundle.reader import payload_json, read_bundle
from mkdocs_semantic.bundle.shard_lists import hash_at

from ..bundle_edits import publish_catalog, stored_shard
from .test_reader_writer import catalog_of, write_sample


def test_only_pages_longer_than_a_part_have_parts():
    assert part_counts(np.array([1, 3, 4, 7, 9]), 3).tolist() == [0, 0, 2, 3, 3]
    assert first_parts(np.array([1, 3, 4, 7, 9]), 3).tolist() == [0, 0, 0, 2, 5, 8]
    assert first_parts(np.array([], dtype=np.int64), 3).tolist() == [0]


def test_a_pages_parts_cut_its_rows_in_order():
    rows = [[f"a{i}", ["h"], f"x{i}", "s"] for i in range(7)]
    parts = page_parts(["u/", "T", "S", rows], 3)
    assert [p[3] for p in parts] == [rows[0:3], rows[3:6], rows[6:7]]
    assert all(p[:3] == ["u/", "T", "S"] for p in parts)
    assert page_parts(["u/", "T", "S", rows[:3]], 3) == []


def read_json(root, name):
    return payload_json(name, stored_shard(root, name), name)


def test_a_bundle_lists_its_long_pages_parts_beside_their_whole_files(tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "FRAGMENT_PART_CHUNKS", 1)  # sample pages hold 2 chunks
    write_sample(tmp_path)
    catalog = catalog_of(tmp_path)
    listed = catalog["fragment_parts"]
    assert listed["chunks"] == 1 and listed["parts"]["count"] == 6
    names = {p.name for p in read_bundle(tmp_path).files}
    for page in range(3):
        whole = read_json(tmp_path, f"fragments/frag{page}."
                                    f"{hash_at(catalog['fragments']['hashes'], page)}.json")
        parts = [read_json(tmp_path, f"parts/part{n}.{hash_at(listed['parts']['hashes'], n)}.json")
                 for n in (2 * page, 2 * page + 1)]
        assert [row for part in parts for row in part[0][3]] == whole[0][3]
        assert all(part[0][:3] == whole[0][:3] for part in parts)
    assert {f"parts/part{n}.{hash_at(listed['parts']['hashes'], n)}.json"
            for n in range(6)} <= names


def test_a_bundle_without_long_pages_lists_no_parts(tmp_path):
    write_sample(tmp_path)
    assert "fragment_parts" not in catalog_of(tmp_path)
    assert not (tmp_path / "parts").exists()


@pytest.mark.parametrize("field, value, message", [
    ("chunks", 0, r"fragment_parts\.chunks is 0, not a whole number"),
    ("chunks", 2, r"fragment_parts lists 6 parts, but the pages of more than 2 chunks make "
                  r"0: rebuild the site"),
    ("parts.stem", "fragments/frag",
     r"fragment_parts\.parts has the stem 'fragments/frag', not 'parts/part'"),
])
def test_parts_that_do_not_fit_the_pages_are_refused_by_name(tmp_path, monkeypatch, field,
                                                             value, message):
    monkeypatch.setattr(writer, "FRAGMENT_PART_CHUNKS", 1)
    write_sample(tmp_path)
    catalog = catalog_of(tmp_path)
    target = catalog["fragment_parts"]
    *path, last = field.split(".")
    for key in path:
        target = target[key]
    target[last] = value
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=message):
        read_bundle(tmp_path)


def test_a_rebuild_without_long_pages_removes_their_parts(tmp_path, monkeypatch):
    monkeypatch.setattr(writer, "FRAGMENT_PART_CHUNKS", 1)
    write_sample(tmp_path)
    assert any((tmp_path / "parts").iterdir())
    monkeypatch.setattr(writer, "FRAGMENT_PART_CHUNKS", 64)
    write_sample(tmp_path)
    assert not (tmp_path / "parts").exists()
    assert "fragment_parts" not in read_bundle(tmp_path).catalog

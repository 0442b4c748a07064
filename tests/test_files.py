"""Reading a file only when it is a regular file of bounded size."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mkdocs_semantic.files import UnsafeFileError, atomic_write, read_regular


def test_a_regular_file_within_its_bound_reads(tmp_path):
    (tmp_path / "a").write_bytes(b"abc")
    assert read_regular(tmp_path / "a", max_bytes=3) == b"abc"


def test_a_file_past_its_bound_is_refused_before_it_is_read(tmp_path):
    sparse = tmp_path / "sparse"
    with open(sparse, "wb") as fh:
        fh.truncate(8 << 30)
    with pytest.raises(UnsafeFileError, match=r"sparse is 8,589,934,592 bytes, more than "
                                              r"the 1,024 allowed"):
        read_regular(sparse, max_bytes=1024)


def test_links_are_refused_unless_followed_and_devices_and_fifos_always(tmp_path):
    (tmp_path / "target").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    with pytest.raises(UnsafeFileError, match="is a symbolic link, which is not followed"):
        read_regular(tmp_path / "link", max_bytes=10)
    assert read_regular(tmp_path / "link", max_bytes=10, follow_links=True) == b"x"
    with pytest.raises(UnsafeFileError, match=r"is not a regular file \(a character device\)"):
        read_regular(Path("/dev/zero"), max_bytes=10, follow_links=True)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(UnsafeFileError, match=r"is not a regular file \(a FIFO\)"):
        read_regular(tmp_path / "fifo", max_bytes=10)
    with pytest.raises(UnsafeFileError, match=r"is not a regular file \(a folder\)"):
        read_regular(tmp_path, max_bytes=10)


def test_writing_over_a_link_replaces_the_link_not_its_target(tmp_path):
    (tmp_path / "target").write_bytes(b"keep")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    atomic_write(tmp_path / "link", b"new")
    assert (tmp_path / "target").read_bytes() == b"keep"
    assert not (tmp_path / "link").is_symlink()
    assert (tmp_path / "link").read_bytes() == b"new"

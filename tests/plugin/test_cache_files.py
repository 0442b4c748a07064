"""A cache folder restored from elsewhere may hold links, FIFOs or huge files where the
build keeps its files: the build reads none of them, writes through none of them, and
still builds the whole index. (Links to devices are refused as links; a test that
linked a cache file to a device would, on a regression, replace that device.)"""

from __future__ import annotations

import logging
import os
import subprocess

import pytest
from mkdocs.exceptions import MkDocsException

from mkdocs_semantic.bundle.reader import read_bundle

from .test_plugin import three_pages

CACHE_FILES = ["embeddings.npz", "chunks.json", "query_table.npz", "layout.npz"]


@pytest.fixture
def built(project):
    site = three_pages(project)
    site.build()
    return site


def cache_dir(site):
    return site.root / ".cache" / "plugin" / "semantic"


@pytest.mark.parametrize("name", CACHE_FILES)
def test_a_cache_file_linked_outside_is_replaced_never_written_through(built, tmp_path_factory,
                                                                        caplog, name):
    outside = tmp_path_factory.mktemp("outside")
    important = outside / "important.txt"
    important.write_text("the owner's notes\n")
    link = cache_dir(built) / name
    link.unlink()
    link.symlink_to(important)
    with caplog.at_level(logging.WARNING):
        built.build()
    assert important.read_text() == "the owner's notes\n"
    assert sorted(p.name for p in outside.iterdir()) == ["important.txt"]
    assert not link.is_symlink() and link.is_file()
    assert "is a symbolic link, which is not followed" in caplog.text
    assert read_bundle(built.site).manifest.counts["pages"] == 3
    assert built.build().last_build.embedded == 0  # the replaced cache works


@pytest.mark.parametrize("name", CACHE_FILES)
def test_a_fifo_in_place_of_a_cache_file_neither_hangs_nor_is_read(built, caplog, name):
    fifo = cache_dir(built) / name
    fifo.unlink()
    os.mkfifo(fifo)
    with caplog.at_level(logging.WARNING):
        built.build()  # opening it for reading would wait for a writer forever
    assert "is not a regular file (a FIFO)" in caplog.text
    assert fifo.is_file()  # replaced by the build's own file
    assert read_bundle(built.site).manifest.counts["pages"] == 3


def test_a_sparse_cache_file_past_its_bound_is_not_read(built, caplog):
    huge = cache_dir(built) / "chunks.json"
    with open(huge, "r+b") as fh:
        fh.truncate(8 << 30)  # 8 GB declared, no block written
    with caplog.at_level(logging.WARNING):
        built.build()
    assert "allowed" in caplog.text and "chunks.json" in caplog.text
    assert read_bundle(built.site).manifest.counts["pages"] == 3


@pytest.fixture
def small_disk(tmp_path):
    """`mount(size)`: a tmpfs of `size` bytes, a disk that fills up while a build writes."""
    mounts = []

    def mount(size: int):
        folder = tmp_path / f"disk{len(mounts)}"
        folder.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                               str(folder)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"no tmpfs can be mounted here ({done.stderr.strip()}): this test "
                        "needs root, as CI has")
        mounts.append(folder)
        return folder

    yield mount
    for folder in mounts:
        subprocess.run(["umount", str(folder)], check=False)


def test_a_disk_that_fills_up_fails_the_build_in_one_line(project, small_disk, caplog):
    site = three_pages(project)
    site.build()  # the cache (on a roomy disk) is filled: the next build embeds nothing
    pages = sum(p.stat().st_size for p in site.site.rglob("*")
                if p.is_file() and site.bundle not in p.parents)
    disk = small_disk(pages + 256 * 1024)  # the pages fit; the bundle (1.5 MB) does not
    with caplog.at_level(logging.ERROR), pytest.raises(MkDocsException) as info:
        site.build(site_dir=str(disk / "site"))
    message = f"{info.value}\n{caplog.text}"
    assert "semantic: could not write the search" in message
    assert "(No space left on device): free space on that disk" in message
    assert "Traceback" not in message
    assert site.build().last_build.embedded == 0  # nothing already built was lost

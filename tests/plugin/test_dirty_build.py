"""`mkdocs build --dirty` renders changed pages only: the index still holds every page."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.search.searcher import Searcher

from .test_plugin import three_pages


def mkdocs_build(site, *args: str) -> subprocess.CompletedProcess:
    """The real command line, as an owner runs it (MkDocs calls on_startup there)."""
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", *args],
                          cwd=site.root, capture_output=True, text=True, timeout=600)


def pages_of(site) -> set[str]:
    return {c.url for c in read_bundle(site.site).chunks}


def edit(path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(old, new))
    later = time.time() + 5  # newer than the built page, whatever the clock's grain
    os.utime(path, (later, later))


def test_a_dirty_build_with_nothing_changed_keeps_every_page(project):
    site = three_pages(project)
    site.build()
    before = pages_of(site)
    assert before == {"", "cookies/", "deploy/"}
    proc = mkdocs_build(site, "--dirty")
    assert proc.returncode == 0, proc.stderr
    assert pages_of(site) == before
    assert "semantic: 3 pages" in proc.stderr


def test_a_dirty_build_with_one_page_changed_keeps_the_others_and_takes_the_edit(project):
    site = three_pages(project)
    site.build()
    edit(site.root / "docs" / "deploy.md", "reverse proxy", "zanzibar marmalade proxy")
    proc = mkdocs_build(site, "--dirty")
    assert proc.returncode == 0, proc.stderr
    assert pages_of(site) == {"", "cookies/", "deploy/"}
    top = Searcher.open(site.site).search("zanzibar marmalade", top_k=1)[0]
    assert top.url == "deploy/"
    lifespan = Searcher.open(site.site).search("run code when the server starts", top_k=1)[0]
    assert lifespan.url == ""


def test_a_dirty_build_keeps_excluded_pages_out(project):
    site = three_pages(project)
    site.plugin_options = {"exclude": ["cookies.md"]}
    site.build()
    edit(site.root / "docs" / "deploy.md", "reverse proxy", "zanzibar marmalade proxy")
    proc = mkdocs_build(site, "--dirty")
    assert proc.returncode == 0, proc.stderr
    assert pages_of(site) == {"", "deploy/"}


def test_a_dirty_build_without_the_cache_refuses_in_one_line(project):
    site = three_pages(project)
    site.plugin_options = {"cache": False}
    site.build()
    before = (site.bundle / "manifest.json").read_bytes()
    edit(site.root / "docs" / "deploy.md", "reverse proxy", "zanzibar marmalade proxy")
    proc = mkdocs_build(site, "--dirty")
    assert proc.returncode != 0
    assert "run `mkdocs build` without --dirty once" in proc.stderr
    assert "cache: false" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (site.bundle / "manifest.json").read_bytes() == before  # nothing published

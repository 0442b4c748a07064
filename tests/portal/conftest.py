"""Shared by the data-folder and database tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..apps.test_cli import NAV, PAGES
from ..conftest import Project

PARITY = Path(__file__).resolve().parents[1] / "fixtures" / "parity" / "bundle"
EDITS = ("Lifespan hooks run once at startup.", "Workers restart when memory grows.")
"""What `edited_builds` adds to the sample site's cookies page, one section a build."""


def sample_project(root: Path) -> Project:
    """The four-page sample site, built with a real `mkdocs build` under `root`."""
    (root / "docs").mkdir(parents=True)
    project = Project(root=root, plugin_options={"cache_dir": str(root / "cache")})
    for name, text in PAGES.items():
        project.write(name, text)
    project.build(nav=NAV)
    return project


def edited_builds(project: Project) -> Iterator[str]:
    """Adds each of EDITS as a new section of the cookies page and builds again; yields
    the words added, once each build is done."""
    cookies = project.root / "docs" / "learn" / "cookies.md"
    for n, words in enumerate(EDITS):
        cookies.write_text(cookies.read_text() + f"\n\n## Added {n}\n\n{words}\n")
        project.build(nav=NAV)
        yield words

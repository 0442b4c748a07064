"""Sites that no plugin built search, in headless Chromium: `mkdocs-semantic index --ui`
wires the client into their pages, and the box answers real keystrokes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig

from mkdocs_semantic.apps.cli import cli
from mkdocs_semantic.search.searcher import Searcher

from ..conftest import REPO
from ..indexing.test_static_site import write_site
from .test_browser import (
    CDN_ERRORS,
    PREFIX,
    THROTTLE,
    WORDS_AS_TYPED,
    drive,
    first_link,
    model_requests,
    top_sections,
    typed_to_the_best_section,
)

OFFLINE = "set it up on a computer that is not connected to the network"


def answers(site: Path, query: str, seen: dict) -> bool:
    """Whether the box showed the Python searcher's best section among its first three
    (the static query encoder in both: the same ranking)."""
    best = Searcher.open(site).search(query)[0]
    return best.href in top_sections(seen["results"], 3)


def index(site: Path, ui: str, cache: Path) -> None:
    result = CliRunner().invoke(cli, ["index", str(site), "--ui", ui, "--cache-dir", str(cache)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def plain_site(tmp_path_factory) -> Path:
    """A hand-written HTML site (no generator, no search box), indexed with --ui dialog."""
    root = tmp_path_factory.mktemp("plain")
    site = write_site(root / "public")
    index(site, "dialog", root / "cache")
    return site


# A Sphinx project, as its own quickstart writes one: its default theme keeps a search
# box in the sidebar that submits to search.html, whose index Sphinx builds itself.
SPHINX_PAGES = {
    "conf.py": 'project = "Acme"\n',
    "index.rst": """\
Welcome to Acme
===============

Acme is a tool that turns spreadsheets into interactive dashboards that update
themselves every few minutes.

.. toctree::

   install
   sharing
""",
    "install.rst": """\
Installing Acme
===============

Download the installer for your operating system and run it.

Installing without internet access
----------------------------------

Copy the offline bundle to the machine with a USB stick, then unpack it and run
the setup script; no network connection is needed.
""",
    "sharing.rst": """\
Sharing dashboards
==================

Send colleagues a read-only link; they can view the charts but not change the
underlying data.
""",
}


def typed_and_opened(site: Path, tmp_path: Path, *, theme: str = "button",
                          query: str = OFFLINE, delay_ms: int = 40) -> tuple[dict, dict]:
    """`query` typed key by key into the box `theme` opens (the dialog the client's
    button opens), then Enter: the report and the query's part of it, checked to show
    the Python searcher's best section and to open the best result under the site's
    sub-path."""
    plan = {"site": str(site), "prefix": PREFIX, "theme": theme, "start": "",
            "typeDelayMs": delay_ms, "queries": [{"query": query, "press": True}]}
    report = drive("search", plan, tmp_path)
    seen = report["queries"][0]
    assert answers(site, query, seen)
    assert seen["landed"].endswith(PREFIX + first_link(seen["results"]))
    return report, seen


@pytest.fixture(scope="module")
def sphinx_site(tmp_path_factory) -> Path:
    """A real Sphinx build (Sphinx from PyPI, its default theme), indexed with --ui auto."""
    from sphinx.cmd.build import build_main

    root = tmp_path_factory.mktemp("sphinx")
    (root / "source").mkdir()
    for name, text in SPHINX_PAGES.items():
        (root / "source" / name).write_text(text, encoding="utf-8")
    assert build_main(["-q", "-b", "html", str(root / "source"), str(root / "html")]) == 0
    index(root / "html", "auto", root / "cache")
    return root / "html"


def test_a_sphinx_site_answers_in_the_dialog(sphinx_site, tmp_path):
    """Sphinx's sidebar box is a form that loads search.html and Sphinx's whole index:
    `auto` leaves it be and adds the dialog, which answers typed keys with the Python
    searcher's best section, and Sphinx's index is never fetched."""
    report, _ = typed_and_opened(sphinx_site, tmp_path)
    assert [r for r in report["requests"] if "searchindex.js" in r] == []
    assert set(report["pageErrors"]) <= CDN_ERRORS and report["dialogs"] == []


def test_typing_into_the_sphinx_sites_dialog_on_a_slow_network(sphinx_site, tmp_path):
    """Real keystrokes (120 ms a key) at 20 Mbit/s with 40 ms of latency, in a fresh
    profile, into the dialog the button opens: never a list for an older text than the
    box holds, and the last one is the hybrid ranking of the whole query, led by the
    Python searcher's best section."""
    report = drive("typing", {"site": str(sphinx_site), "prefix": PREFIX, "theme": "button",
                              "start": "", "query": OFFLINE, "typeDelayMs": 120,
                              "throttle": THROTTLE}, tmp_path)
    typed_to_the_best_section(report, sphinx_site, OFFLINE)
    assert [r for r in report["requests"] if "searchindex.js" in r] == []
    assert set(report["pageErrors"]) <= CDN_ERRORS


def test_the_dialog_answers_on_a_plain_html_site(plain_site, tmp_path):
    """The button the client adds opens the dialog; the query, typed key by key, shows
    the page that answers, and Enter opens the best result under the site's sub-path."""
    report, seen = typed_and_opened(plain_site, tmp_path)
    assert seen["ranking"] == [["hybrid", OFFLINE]]
    assert seen["typedInto"] == WORDS_AS_TYPED
    assert model_requests(report) == []
    assert report["pageErrors"] == [] and report["dialogs"] == []


def test_one_script_line_adds_the_dialog_to_a_page_index_left_alone(tmp_path):
    """`index --ui script` rewrites no page and writes ui.js; the one line it prints, put
    in a page by hand (under the site's sub-path), gives that page the dialog, which
    answers typed keys. Run again, ui.js is unchanged."""
    site = write_site(tmp_path / "public")
    pages = {p: p.read_bytes() for p in site.rglob("*.html")}
    result = CliRunner().invoke(cli, ["index", str(site), "--ui", "script",
                                      "--cache-dir", str(tmp_path / "cache")])
    assert result.exit_code == 0, result.output
    line = '<script type="module" src="/semantic/ui.js"></script>'
    assert line in result.output
    assert {p: p.read_bytes() for p in site.rglob("*.html")} == pages
    drop_in = (site / "semantic" / "ui.js").read_bytes()
    index(site, "script", tmp_path / "cache")
    assert (site / "semantic" / "ui.js").read_bytes() == drop_in
    home = site / "index.html"
    home.write_text(home.read_text(encoding="utf-8").replace(
        "</head>", line.replace('"/semantic/', f'"{PREFIX}semantic/') + "</head>"),
        encoding="utf-8")
    report, seen = typed_and_opened(site, tmp_path)
    assert seen["typedInto"] == WORDS_AS_TYPED
    assert report["pageErrors"] == [] and report["dialogs"] == []


def test_slash_opens_the_dialog_on_a_nested_page(plain_site, tmp_path):
    """On a page two folders down, "/" opens the dialog and its tags find the bundle."""
    plan = {"site": str(plain_site), "prefix": PREFIX, "theme": "dialog",
            "start": "blog/2024/release.html", "typeDelayMs": 20,
            "queries": [{"query": OFFLINE, "press": False}]}
    report = drive("search", plan, tmp_path)
    seen = report["queries"][0]
    assert seen["searchedOn"].endswith("blog/2024/release.html")
    assert answers(plain_site, OFFLINE, seen)
    assert seen["dialogOpen"] is True
    assert report["pageErrors"] == [] and report["dialogs"] == []


@pytest.fixture(scope="module")
def mkdocs_site(tmp_path_factory) -> Path:
    """The example site built by MkDocs (mkdocs theme, the search plugin alone), then
    indexed with --ui auto."""
    root = tmp_path_factory.mktemp("mkdocs-theme")
    source = shutil.copytree(REPO / "example-site", root / "source",
                             ignore=shutil.ignore_patterns("site", ".cache"))
    config = yaml.safe_load((source / "mkdocs.yml").read_text(encoding="utf-8"))
    config.update(plugins=["search"], site_dir=str(root / "site"))
    config_file = source / "mkdocs-search.yml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    MkDocsConfig.plugins.plugin_cache.clear()
    build(load_config(config_file=str(config_file)))
    index(root / "site", "auto", root / "cache")
    return root / "site"


def test_auto_answers_in_the_mkdocs_themes_own_box(mkdocs_site, tmp_path):
    """The theme's search modal answers, and lunr and its index are never fetched."""
    report, _ = typed_and_opened(
        mkdocs_site, tmp_path, theme="mkdocs", delay_ms=20,
        query="how can my web app keep working without a network connection")
    assert [r for r in report["requests"] if r.startswith(PREFIX + "search/")] == []
    assert set(report["pageErrors"]) <= CDN_ERRORS and report["dialogs"] == []

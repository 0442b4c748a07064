"""The browser client in headless Chromium: the themes' real search boxes on a site
served under a sub-path, parity with the Python searcher, and page text as text.
Sites use the default static query encoder (no model download: no .wasm or .onnx
request) unless a test says `transformer` (the model, with download progress).

Each test drives `js/tools/drive.mjs` (playwright-core with Debian's chromium) and
asserts on what it reports. The example site is built once per theme per module.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import numpy as np
import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig

from mkdocs_semantic.search.searcher import Searcher

from ..conftest import REPO
from ..processes import running

JS = REPO / "js"
DRIVER = JS / "tools" / "drive.mjs"
PREFIX = "/project/"
PARITY_QUERIES = REPO / "tests" / "fixtures" / "parity" / "queries.txt"

# Headings written as escaped text: the page shows the markup, it never runs.
MARKUP_PAGE = """\
# Markup in headings

A page whose one section has markup in its heading.

## Try &lt;img src=x onerror=alert(1)&gt; here

This section quotes an image tag with an error handler in its heading. Search
results must show such markup as plain text and never run it.
"""
MARKUP_TEXT = "Try <img src=x onerror=alert(1)> here"

QUERIES = [
    ("why do people put a hash in the filename of their css and js",
     "cache-busting/#fingerprinted-asset-names"),
    ("how can my web app keep working without a network connection",
     "service-workers/#offline-support"),
]
MARKUP_QUERY = "a heading that quotes an image tag with an error handler"
MODEL_FILES = (".wasm", ".onnx", ".mjs", "/model-embed.js")
MODEL_PAYLOADS = ("/model/model.", "/model/layers.", "/model/words.")
# The mkdocs and readthedocs themes load highlight.js from a CDN, which the test
# browser cannot reach; their inline `hljs.highlightAll()` then fails.
CDN_ERRORS = {"hljs is not defined"}
# A theme with no search box of its own (nor the search plugin's templates): our dialog
# and its search button are the only way to search.
PLAIN_THEME = """\
<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ page.title }} - {{ config.site_name }}</title></head>
<body>
<nav aria-label="Pages">
{% for item in nav %}{% if item.url %}
<a href="{{ item.url|url }}">{{ item.title }}</a>
{% endif %}{% endfor %}
</nav>
<main>{{ page.content }}</main>
</body>
</html>
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, Path]:
    """The example site (plus a page with markup in a heading) built with each theme
    (`plain`: a theme of the site's own with no search box), and with the mkdocs,
    readthedocs and material themes and the transformer query encoder."""
    if shutil.which("node") is None or not (JS / "node_modules" / "playwright-core").is_dir():
        pytest.fail("the browser tests need Node.js and js/node_modules: run scripts/setup")
    root = tmp_path_factory.mktemp("browser")
    source = root / "source"
    shutil.copytree(REPO / "example-site", source,
                    ignore=shutil.ignore_patterns("site", ".cache"))
    (source / "docs" / "markup.md").write_text(MARKUP_PAGE, encoding="utf-8")
    (source / "plain-theme").mkdir()
    (source / "plain-theme" / "main.html").write_text(PLAIN_THEME, encoding="utf-8")
    base = yaml.safe_load((source / "mkdocs.yml").read_text(encoding="utf-8"))
    base["nav"].append({"Markup in headings": "markup.md"})
    # One embedding cache for both builds: the second build embeds nothing.
    options = {"cache_dir": str(root / "cache")}
    material = {"name": "material", "features": ["navigation.instant", "navigation.footer"]}
    highlight = {"name": "material", "features": ["navigation.instant", "search.highlight"]}
    themes = {"mkdocs": {"name": "mkdocs"}, "material": material, "highlight": highlight,
              "readthedocs": {"name": "readthedocs"}, "transformer": {"name": "mkdocs"},
              "material-transformer": material, "readthedocs-transformer": {"name": "readthedocs"},
              "mkdocs-partitioned": {"name": "mkdocs"}, "material-partitioned": material,
              "readthedocs-partitioned": {"name": "readthedocs"},
              "plain": {"name": None, "custom_dir": "plain-theme"},
              "plain-partitioned": {"name": None, "custom_dir": "plain-theme"},
              "progressive": {"name": "mkdocs"}}
    built = {}
    for name, theme in themes.items():
        config_file = source / f"mkdocs-{name}.yml"
        encoder = {"query_encoder": "transformer"} if name.endswith("transformer") else {}
        if name == "progressive":
            encoder = {"query_encoder": "progressive"}
        if name.endswith("partitioned"):  # the partitioned vector layout, on a small site
            encoder = {"vector_layout": "partitioned"}
        plugins = ["search", {"semantic": {**options, **encoder}}]
        config = {**base, "theme": theme, "plugins": plugins, "site_dir": str(root / name)}
        config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        MkDocsConfig.plugins.plugin_cache.clear()
        build(load_config(config_file=str(config_file)))
        built[name] = root / name
    built["source"] = source
    return built


WORDS_AS_TYPED = {"autocapitalize": "off", "autocorrect": "off", "autocomplete": "off",
                  "spellcheck": "false"}
"""What every box we answer in asks of a phone's keyboard and the browser: a capital the
keyboard adds would ask for names, a correction of its own would hide the reading line."""


def drive(scenario: str, plan: dict, tmp_path: Path) -> dict:
    plan_file = tmp_path / f"{scenario}-plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    proc = subprocess.run(["node", str(DRIVER), scenario, str(plan_file)], cwd=JS,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"{DRIVER.name} {scenario} failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)


def showed_download_progress(status: list[str]) -> bool:
    """Whether the status line ever reported the model download.

    Each progress report reaches the page in a task of its own and is rendered there,
    before the model can be ready; the driver's MutationObserver records every text the
    line shows. So a download report is always recorded, but not always first on the
    line: when the keyword results arrive before it, it follows their note.
    """
    return any("Downloading the search model: " in text and " MB" in text for text in status)


def model_requests(report: dict) -> list[str]:
    """Requests for the model, the forward pass's code or onnxruntime-web's files."""
    return [r for r in report["requests"]
            if r.endswith(MODEL_FILES) or any(p in r for p in MODEL_PAYLOADS)]


def top_sections(results: list[dict], n: int) -> list[str]:
    """The first n section links in the ranked order, as paths under the site root."""
    return [r["href"].split(PREFIX, 1)[1] for r in results if "#" in r["href"]][:n]


def first_link(results: list[dict]) -> str:
    """Where Enter leads, as a path under the site root: our result boxes' best result
    (rank 0; shown under its page, which may come first), or on Material the best-scored
    link of the first page's group."""
    best = [r for r in results if r.get("rank") == 0]
    if best:
        return best[0]["href"].split(PREFIX, 1)[1]
    page = results[0]["href"].split("#", 1)[0]
    group = [r for r in results if r["href"].split("#", 1)[0] == page]
    best = max(group, key=lambda r: r.get("score") or 0)  # max keeps the first of ties
    return best["href"].split(PREFIX, 1)[1]


def search_plan(site: Path, theme: str, queries: list[tuple[str, bool]], **extra) -> dict:
    return {"site": str(site), "prefix": PREFIX, "theme": theme, "start": "",
            "queries": [{"query": q, "press": press} for q, press in queries], **extra}


def picking_plan(site: Path, theme: str, **extra) -> dict:
    """QUERIES: Enter on the best result, then arrow keys to the expected section + Enter."""
    steps = [{"query": q, "press": True} for q, _ in QUERIES]
    steps += [{"query": q, "press": True, "pick": expected} for q, expected in QUERIES]
    return {"site": str(site), "prefix": PREFIX, "theme": theme, "start": "", "queries": steps,
            **extra}


@pytest.mark.parametrize("site", ["mkdocs", "transformer"])
def test_mkdocs_theme_search_box(sites, tmp_path, site):
    report = drive("search", picking_plan(sites[site], "mkdocs"), tmp_path)
    best, picked = report["queries"][:2], report["queries"][2:]
    for (query, expected), seen in zip(QUERIES, best):
        assert expected in top_sections(seen["results"], 3), (query, seen["results"][:3])
        # Enter opens the best result, at its anchor, under the sub-path.
        assert seen["landed"].endswith(PREFIX + first_link(seen["results"]))
    for (_, expected), seen in zip(QUERIES, picked):
        assert seen["landed"].endswith(PREFIX + expected)  # arrow keys, then Enter
    assert all(seen["typedInto"] == WORDS_AS_TYPED for seen in report["queries"])
    status = report["queries"][0]["status"]
    if site == "transformer":  # the model downloads, with progress; no onnxruntime-web
        assert showed_download_progress(status)
        asked = model_requests(report)
        assert any("/model/layers." in r for r in asked)
        assert any("/model/words." in r for r in asked)
        assert not [r for r in asked if r.endswith((".wasm", ".onnx", ".mjs"))], asked
    else:  # the static query encoder: no model, no onnxruntime-web
        assert not any("Downloading" in s for s in status) and model_requests(report) == []
    assert set(report["pageErrors"]) <= CDN_ERRORS
    assert report["dialogs"] == []


def test_the_page_asks_for_the_workers_script_beside_the_opening(sites, tmp_path):
    """A worker asks for its script only once its thread has started; the page asks for
    it at once, and on a host that lets files be cached (GitHub Pages: max-age=600) the
    later of the two requests is answered from the browser's cache: one request. Which
    of the two reaches the host first is the browser's to order (usually the page's
    fetch, dest "empty"; on a busy machine sometimes the worker's), so the count is
    checked there, and that both ask where nothing may be cached."""
    for cache_control, wanted in (("max-age=600", 1), ("no-store", 2)):
        plan = search_plan(sites["mkdocs"], "mkdocs", [(QUERIES[0][0], False)],
                           cacheControl=cache_control)
        report = drive("search", plan, tmp_path)
        assert top_sections(report["queries"][0]["results"], 3)
        asked = sorted(dest for path, dest in report["dests"] if path.endswith("/worker.js"))
        if wanted == 2:
            assert asked == ["empty", "worker"], asked  # the page's fetch and the worker's
        else:
            assert len(asked) == 1 and set(asked) <= {"empty", "worker"}, asked


def test_material_search_box_with_instant_navigation(sites, tmp_path):
    plan = picking_plan(sites["material"], "material",
                        navigate=["a.md-footer__link--next", "a.md-footer__link--next"])
    report = drive("search", plan, tmp_path)
    for (_, expected), seen in zip(QUERIES, report["queries"][2:]):
        assert seen["landed"].endswith(PREFIX + expected)  # arrow keys, then Enter
    for (query, expected), seen in zip(QUERIES, report["queries"][:2]):
        assert seen["searchedOn"].endswith(f"{PREFIX}freshness/"), "instant navigation"
        assert expected in top_sections(seen["results"], 3), (query, seen["results"][:3])
        assert seen["landed"].endswith(PREFIX + first_link(seen["results"]))
        # One search worker, ours, after two instant navigations and a search.
        assert len(seen["workers"]) == 1 and "/semantic/client/" in seen["workers"][0]
    assert not any("Downloading" in s for q in report["queries"] for s in q["status"])
    assert model_requests(report) == []
    assert report["pageErrors"] == [] and report["dialogs"] == []


@pytest.mark.parametrize(("box", "viewport", "dialog_open"), [
    ("readthedocsSlash", None, False), ("dialog", {"width": 480, "height": 800}, True)])
def test_readthedocs_slash_goes_to_the_sidebar_box_or_the_dialog(sites, tmp_path, box,
                                                                 viewport, dialog_open):
    """On a wide page "/" focuses the sidebar's box, which answers in place; in a
    phone-sized window the theme slides its sidebar (and the box) off screen, and "/"
    opens the dialog instead."""
    query, expected = QUERIES[1]
    extra = {"viewport": viewport} if viewport else {}
    report = drive("search", search_plan(sites["readthedocs"], box, [(query, True)], **extra),
                   tmp_path)
    seen = report["queries"][0]
    assert expected in top_sections(seen["results"], 3), seen["results"][:3]
    assert seen["dialogOpen"] is dialog_open
    assert seen["landed"].endswith(PREFIX + first_link(seen["results"]))
    assert set(report["pageErrors"]) <= CDN_ERRORS and report["dialogs"] == []


def test_readthedocs_sidebar_box_answers_in_place(sites, tmp_path):
    """The sidebar's box, typed into key by key, shows results in a panel under it on
    the page itself; Enter opens the best result (or the one the arrow keys chose)
    without a detour through search.html; Esc closes the panel and keeps the text."""
    (query, _), (picked_query, expected) = QUERIES
    steps = [{"query": query, "press": True},
             {"query": picked_query, "press": True, "pick": expected},
             {"query": picked_query, "escape": True}]
    report = drive("search", {"site": str(sites["readthedocs"]), "prefix": PREFIX,
                              "theme": "readthedocs", "start": "", "typeDelayMs": 40,
                              "queries": steps}, tmp_path)
    best, picked, escaped = report["queries"]
    assert best["searchedOn"].endswith(PREFIX) and "search.html" not in best["searchedOn"]
    assert QUERIES[0][1] in top_sections(best["results"], 3), best["results"][:3]
    assert best["landed"].endswith(PREFIX + first_link(best["results"]))
    assert picked["picked"].endswith(expected) and picked["landed"].endswith(PREFIX + expected)
    assert escaped["escaped"] == {"panels": [False], "expanded": "false", "focused": True,
                                  "value": picked_query}
    assert all(seen["typedInto"] == WORDS_AS_TYPED for seen in report["queries"])
    assert not any("search.html" in r for r in report["requests"])
    assert model_requests(report) == []
    assert set(report["pageErrors"]) <= CDN_ERRORS and report["dialogs"] == []


def test_readthedocs_search_page_still_answers_q_links(sites, tmp_path):
    """search.html?q=... (a bookmarked or shared link; the sidebar's form without our
    script) shows semantic results for q in the page's own list, and Enter opens one."""
    query, expected = QUERIES[1]
    plan = {"site": str(sites["readthedocs"]), "prefix": PREFIX, "theme": "readthedocsPage",
            "start": "search.html?" + urlencode({"q": query}),
            "queries": [{"query": query, "typed": False, "press": True}]}
    seen = drive("search", plan, tmp_path)["queries"][0]
    assert "search.html?q=" in seen["searchedOn"]
    assert expected in top_sections(seen["results"], 3), seen["results"][:3]
    assert seen["ranking"] == [["hybrid", query]]
    assert seen["landed"].endswith(PREFIX + first_link(seen["results"]))


def test_a_theme_without_a_search_box_gets_a_search_button(sites, tmp_path):
    """A theme of the site's own, with no search box: a visible button opens the
    dialog (a click), and the query typed there opens its best result with Enter."""
    query, expected = QUERIES[1]
    report = drive("search", search_plan(sites["plain"], "button", [(query, True)],
                                         typeDelayMs=20), tmp_path)
    seen = report["queries"][0]
    assert expected in top_sections(seen["results"], 3), seen["results"][:3]
    assert seen["landed"].endswith(PREFIX + first_link(seen["results"]))
    assert seen["typedInto"] == WORDS_AS_TYPED  # the dialog's own box
    assert report["pageErrors"] == [] and report["dialogs"] == []


@pytest.mark.parametrize("theme", ["material", "mkdocs", "readthedocs"])
def test_the_themes_own_search_index_is_never_fetched(sites, tmp_path, theme):
    """Our search takes over the theme's search box, so the theme's own index
    (search/search_index.json, and lunr for the mkdocs themes) is dead weight: no
    page load and no search may fetch it, nor the model on the static path."""
    query, expected = QUERIES[1]
    report = drive("search", search_plan(sites[theme], theme, [(query, False)],
                                         typeDelayMs=40), tmp_path)
    seen = report["queries"][0]
    assert expected in top_sections(seen["results"], 3), seen["results"][:3]
    # The result box says what it shows (bench/browser.py times the first result by it).
    assert seen["ranking"] == [["hybrid", query]]
    assert [r for r in report["requests"] if r.startswith(PREFIX + "search/")] == []
    assert model_requests(report) == []
    assert (sites[theme] / "search" / "search_index.json").is_file()  # still written
    assert set(report["pageErrors"]) <= CDN_ERRORS and report["dialogs"] == []


def test_material_search_highlight_marks_the_query_on_the_opened_page(sites, tmp_path):
    """Material marks `?h=` with its own index's settings, which it no longer
    downloads: the client marks the words instead."""
    query, expected = QUERIES[1]
    report = drive("search", search_plan(sites["highlight"], "material", [(query, True)],
                                         marks=True), tmp_path)
    seen = report["queries"][0]
    landed = urlsplit(seen["landed"])
    # the page that answers; which of its sections ranks first is the ranking's business
    assert landed.path.endswith(expected.split("#")[0]) and "h=" in landed.query
    words = query.lower().split()  # a mark is a query word, or a form of one (work: working)
    assert seen["marks"], "no word marked"
    assert all(any(m.lower().startswith(w[:4]) for w in words) for m in seen["marks"])
    assert [r for r in report["requests"] if r.startswith(PREFIX + "search/")] == []
    assert report["pageErrors"] == [] and report["dialogs"] == []


def test_material_search_box_shows_the_sites_top_k(sites, tmp_path):
    """Material's list shows the site's `top_k` results, not a number of its own."""
    config = yaml.safe_load((sites["source"] / "mkdocs-material.yml").read_text("utf-8"))
    config["plugins"][1]["semantic"]["top_k"] = 2
    config["site_dir"] = str(tmp_path / "site")
    config_file = sites["source"] / "mkdocs-material-top-k.yml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    MkDocsConfig.plugins.plugin_cache.clear()
    build(load_config(config_file=str(config_file)))  # the shared cache: nothing embedded
    query = QUERIES[1][0]
    report = drive("search", search_plan(tmp_path / "site", "material", [(query, False)]),
                   tmp_path)
    shown = {r["href"].split(PREFIX, 1)[1] for r in report["queries"][0]["results"]}
    expected = Searcher.open(tmp_path / "site").search(query)
    assert len(expected) == 2
    # each result's page heads its group, and each section result is listed under it
    assert shown == {r.url for r in expected} | {r.href for r in expected if r.anchor}
    assert report["pageErrors"] == [] and report["dialogs"] == []


@pytest.mark.parametrize("ui, theme", [("mkdocs", "mkdocs"), ("material", "material"),
                                       ("readthedocs", "readthedocs")])
def test_markup_in_headings_shows_as_text(sites, tmp_path, ui, theme):
    report = drive("search", search_plan(sites[theme], ui, [(MARKUP_QUERY, False)]),
                   tmp_path)
    seen = report["queries"][0]
    hits = [r for r in seen["results"] if "markup/#" in r["href"]]
    assert hits, seen["results"]
    assert MARKUP_TEXT in hits[0]["text"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in hits[0]["html"]
    assert seen["images"] == 0
    assert report["dialogs"] == []  # onerror=alert(1) never ran


@contextmanager
def mkdocs_serve(config_file: Path, url: str, port: int) -> Iterator[None]:
    command = [sys.executable, "-m", "mkdocs", "serve", "-f", str(config_file),
               "-a", f"127.0.0.1:{port}"]
    with running(command, ready_url=url, name="mkdocs serve", timeout=180):
        yield


def test_search_survives_mkdocs_serve_live_reload(sites, tmp_path):
    source = shutil.copytree(sites["source"], tmp_path / "source")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}{PREFIX}"
    config = yaml.safe_load((source / "mkdocs-material.yml").read_text(encoding="utf-8"))
    config.pop("site_dir")
    config["site_url"] = url  # mkdocs serve then serves under /project/
    config_file = source / "mkdocs-serve.yml"
    config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (first, _), (second, expected) = QUERIES
    edit = {"file": str(source / "docs" / "index.md"), "text": "\n\nEdited while serving.\n"}
    with mkdocs_serve(config_file, url, port):
        report = drive("search", {"url": url, "theme": "material", "start": "", "queries": [
            {"query": first, "press": False},
            {"query": second, "press": True, "edit": edit},
        ]}, tmp_path)
    before, after = report["queries"]
    assert before["results"] and len(before["workers"]) == 1
    # The rebuild reloaded the page: search works again, still with one worker.
    assert expected in top_sections(after["results"], 3)
    assert len(after["workers"]) == 1 and "/semantic/client/" in after["workers"][0]
    assert after["landed"].endswith(PREFIX + first_link(after["results"]))
    assert report["pageErrors"] == []


def test_browser_matches_python_vectors_and_top_10(sites, tmp_path):
    queries = PARITY_QUERIES.read_text(encoding="utf-8").splitlines()
    assert len(queries) == 20
    filters = {"section": ["Controlling caches", "In practice"]}
    report = drive("parity", {"site": str(sites["mkdocs"]), "prefix": PREFIX,
                              "queries": queries, "filters": filters}, tmp_path)
    answers = report["answers"]
    searcher = Searcher.open(sites["mkdocs"])
    for query, answer in zip(queries, answers, strict=True):
        ids = lambda results: [r.chunk_id for r in results]  # noqa: E731
        assert answer["hybrid"] == ids(searcher.search(query, top_k=10)), query
        assert answer["filtered"] == ids(searcher.search(query, top_k=10, filters=filters)), query
        assert answer["lexical"] == ids(searcher.search(query, top_k=10, mode="lexical")), query
    assert any(answer["filtered"] != answer["hybrid"] for answer in answers)
    for query, answer in zip(queries, answers, strict=True):
        # the static encoder: the same int8 codes and the same scores, exactly
        expected = searcher.embed(query)
        assert answer["vector"] == expected.astype(int).tolist(), query
        reference = searcher.search_vector(expected, top_k=10)
        assert answer["ids"] == [r.chunk_id for r in reference], query
        assert answer["scores"] == [r.score for r in reference], query
    assert model_requests(report) == []


@pytest.mark.parametrize("host", ["static host", "python -m http.server"])
def test_table_rows_come_by_range_or_from_the_whole_pack(sites, tmp_path, host):
    """Words the site does not use read their tokens' rows from the table's pack: one byte
    range each from a host that answers ranges, the whole pack once from one that does
    not (as `python -m http.server` and `mkdocs serve`); the answers are the same."""
    queries = ["quokka zyzzyvas caching", "flibbertigibbet headers"]
    site = sites["mkdocs"]
    plan: dict = {"queries": queries, "filters": {}}
    if host == "static host":
        report = drive("parity", {**plan, "site": str(site), "prefix": PREFIX}, tmp_path)
    else:
        www = tmp_path / "www"
        www.mkdir()
        (www / PREFIX.strip("/")).symlink_to(site, target_is_directory=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        url = f"http://127.0.0.1:{port}{PREFIX}"
        command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                   "--directory", str(www)]
        with running(command, ready_url=url, name="python -m http.server", timeout=60):
            report = drive("parity", {**plan, "url": url}, tmp_path)
    searcher = Searcher.open(site)
    for query, answer in zip(queries, report["answers"], strict=True):
        assert answer["vector"] == searcher.embed(query).astype(int).tolist(), query
        assert answer["hybrid"] == [r.chunk_id for r in searcher.search(query, top_k=10)]
    if host == "static host":  # the only log of what was sent: our own server's
        packs = [status for path, status in report["statuses"] if "/table/rows." in path]
        assert packs and set(packs) == {206}, report["statuses"]


def test_transformer_in_the_browser_matches_python(sites, tmp_path):
    queries = PARITY_QUERIES.read_text(encoding="utf-8").splitlines()[:5]
    answers = drive("parity", {"site": str(sites["transformer"]), "prefix": PREFIX,
                               "queries": queries, "filters": {}}, tmp_path)["answers"]
    searcher = Searcher.open(sites["transformer"])
    assert searcher.encoder == "transformer"
    for query, answer in zip(queries, answers, strict=True):
        # the client's forward pass and onnxruntime round differently: codes may differ by one
        expected = searcher.embed(query).astype(int)
        assert np.abs(np.asarray(answer["vector"]) - expected).max() <= 1, query
        reference = searcher.search_vector(expected, top_k=10)
        assert answer["scores"] == pytest.approx([r.score for r in reference], abs=0.02)


def test_progressive_answers_first_with_the_table_then_with_the_model_fetched_once(
        sites, tmp_path):
    """A progressive site: each of five visits in one profile answers its first query
    with the static encoder, then the model takes over (fetched once, kept across
    visits); both answers are the Python searcher's with the same encoder."""
    first, later = QUERIES[0][0], QUERIES[1][0]
    report = drive("progressive", {"site": str(sites["progressive"]), "prefix": PREFIX,
                                   "query": first, "later": later, "loads": 5}, tmp_path)
    static = Searcher.open(sites["progressive"])
    model = Searcher.open(sites["progressive"], encoder="transformer")
    assert static.encoder == "static"
    expected_first = [r.chunk_id for r in static.search(first, top_k=10)]
    expected_later = [r.chunk_id for r in model.search(later, top_k=10)]
    assert len(report["visits"]) == 5
    for visit in report["visits"]:
        assert visit["first"] == {"encoder": "static", "ids": expected_first}
        assert visit["later"] == {"took": "transformer", "encoder": "transformer",
                                  "ids": expected_later}
    served = [path for visit in report["visits"] for path in visit["requests"]]
    model_files = [p for p in served if "/model/layers." in p or "/model/words." in p]
    assert model_files and len(model_files) == len(set(model_files)), served  # each once
    assert not [p for p in served if p.endswith((".onnx", ".wasm"))], served
    assert not report["pageErrors"] or set(report["pageErrors"]) <= CDN_ERRORS


def test_progressive_fetches_no_model_under_save_data(sites, tmp_path):
    """Under Save-Data the model is never fetched: the static encoder answers every query."""
    report = drive("progressive", {"site": str(sites["progressive"]), "prefix": PREFIX,
                                   "query": QUERIES[0][0], "later": QUERIES[1][0],
                                   "loads": 2, "saveData": True}, tmp_path)
    for visit in report["visits"]:
        assert visit["first"]["encoder"] == visit["later"]["encoder"] == "static"
        assert not [p for p in visit["requests"] if p.endswith((*MODEL_FILES, "/ort-embed.js"))
                    or any(m in p for m in MODEL_PAYLOADS)], visit["requests"]


# What the hybrid ranking waits for: the static encoder's vectors, or the model.
HELD = {"mkdocs": r"/semantic/vectors/vec\.[0-9a-f]+\.i8$",
        "transformer": r"/model/layers\.[0-9a-f]+\.bin$"}


@pytest.mark.parametrize("site", ["mkdocs", "transformer"])
def test_keyword_results_come_before_the_model_and_hybrid_after(sites, tmp_path, site):
    query = "Cache-Control no-store sensitive pages"
    report = drive("keywordFirst", {"site": str(sites[site]), "prefix": PREFIX,
                                    "theme": "mkdocs", "start": "", "query": query,
                                    "delayMs": 6000, "hold": HELD[site]}, tmp_path)
    early, late = report["early"], report["late"]
    assert early["modelRequested"] and early["atMs"] < 6000  # shown while the model is held
    assert early["results"] and "Keyword matches" in early["note"]
    assert late["atMs"] >= 6000
    searcher = Searcher.open(sites[site])
    hrefs = lambda results: [r["href"].split(PREFIX, 1)[1] for r in results]  # noqa: E731
    assert hrefs(early["results"]) == [r.href for r in searcher.search(query, mode="lexical")]
    assert hrefs(late["results"]) == [r.href for r in searcher.search(query)]
    assert set(report["pageErrors"]) <= CDN_ERRORS


def test_built_pages_point_at_the_bundle_relative_to_themselves(sites):
    site = sites["mkdocs"]
    nested = (site / "cache-busting" / "index.html").read_text(encoding="utf-8")
    catalog = json.loads((site / "semantic" / "catalog.json").read_text(encoding="utf-8"))
    keyed = catalog["encoders"]["static"]["pieces"]["keyed"]["hash"]
    shards = catalog["lexical"]["shards"]
    keywords = f'{shards["count"]}:{shards["hashes"]}'
    table = catalog["pages"]["table"][0].split(".")[1]
    assert "words" not in catalog["encoders"]["static"]  # a build writes no word rows
    assert '<meta name="semantic-search" content="../semantic/manifest.json" ' \
           f'data-site-root="../" data-ui="mkdocs" data-pieces="{keyed}" ' \
           f'data-keywords="{keywords}" data-pages="{table}">' in nested  # exact: no index
    # a transformer site's pages name no word piece files: its browser reads none
    home = (sites["transformer"] / "index.html").read_text(encoding="utf-8")
    assert 'name="semantic-search"' in home and "data-pieces" not in home
    assert "data-keywords=" in home and "data-pages=" in home and "data-words" not in home
    client = next((site / "semantic" / "client").iterdir())
    assert f'src="../semantic/client/{client.name}/auto.js"' in nested
    # no site ships onnxruntime-web's runtime: a transformer site's client runs the
    # model with its own forward pass, over the model's files in the bundle
    assert not any(client.glob("ort-*"))
    transformer = next((sites["transformer"] / "semantic" / "client").iterdir())
    assert not any(transformer.glob("ort-*"))
    assert list((sites["transformer"] / "semantic" / "model").glob("layers.*.bin"))
    # the stable entry is the page API itself, finding the worker in the client's folder,
    # and the page's own script imports it (one module for both, fetched once)
    entry = (site / "semantic" / "semantic.js").read_text(encoding="utf-8")
    assert entry.startswith("/* mkdocs-semantic-search: the browser client's API "
                            f"(client {client.name}) */\n")
    assert f"./client/{client.name}/worker.js" in entry
    assert '"../../semantic.js"' in (client / "auto.js").read_text(encoding="utf-8")
    material = (sites["material"] / "index.html").read_text(encoding="utf-8")
    # the page's JSON config writes & as \u0026
    material_catalog = json.loads((sites["material"] / "semantic" / "catalog.json")
                                  .read_text(encoding="utf-8"))
    material_shards = material_catalog["lexical"]["shards"]
    assert f'"search": "semantic/client/{client.name}/material-worker.js' \
           f'?manifest=../../manifest.json\\u0026pieces={keyed}' \
           f'\\u0026keywords={material_shards["count"]}:{material_shards["hashes"]}' \
           f'\\u0026pages={material_catalog["pages"]["table"][0].split(".")[1]}"' in material
    # Material's pages load their own script, the other themes auto.js
    assert f'src="semantic/client/{client.name}/material.js"' in material
    assert "auto.js" not in material


# Issue #13's reader: human typing speed on a slow network, the model still downloading.
TYPED_QUERY = "how can my web app keep working offline"
THROTTLE = {"mbps": 20, "latencyMs": 40}


def same_text(a: str | None, b: str) -> bool:
    return a is not None and a.strip() == b.strip()


def typed_to_the_best_section(report: dict, site: Path, query: str) -> None:
    """A throttled typing run's checks: never a list for an older text than the box held
    at that moment, and the last list the hybrid ranking of the whole query, led by the
    Python searcher's best section."""
    shown = [r for r in report["renders"] if r["links"]]
    stale = [r for r in shown if not same_text(r["query"], r["input"])]
    assert stale == [], stale[:3]
    last = report["renders"][-1]
    assert last["ranking"] == "hybrid" and same_text(last["query"], query)
    best = Searcher.open(site).search(query)[0]
    assert last["links"][0].split(PREFIX, 1)[1].split("?")[0] == best.href


@pytest.mark.parametrize("site, theme", [("transformer", "mkdocs"),
                                         ("readthedocs-transformer", "readthedocs"),
                                         ("material-transformer", "material")])
def test_typing_on_a_slow_network_shows_keyword_results_then_hybrid_never_stale(
        sites, tmp_path, site, theme):
    """Real keystrokes (120 ms a key) at 20 Mbit/s in a fresh profile while the
    transformer model downloads: keyword results for the whole query are shown before
    the model is ready, the hybrid ranking follows, and no list is ever shown for a text
    other than the one in the box at that moment (every render is logged in the page)."""
    report = drive("typing", {"site": str(sites[site]), "prefix": PREFIX, "theme": theme,
                              "start": "", "query": TYPED_QUERY, "typeDelayMs": 120,
                              "throttle": THROTTLE}, tmp_path)
    renders, last_key = report["renders"], report["keys"][-1]
    assert len(report["keys"]) == len(TYPED_QUERY)
    assert report["inputs"][-1]["text"] == TYPED_QUERY
    shown = [r for r in renders if r["links"]]
    # never a list for an older text than the box holds (each render, as it happened)
    stale = [r for r in shown if not same_text(r["query"], r["input"])]
    assert stale == [], stale[:3]
    # the search kept up with the typing: several prefixes were answered on the way
    assert len({r["query"] for r in shown}) >= 3, [r["query"] for r in shown]
    whole = [r for r in shown if same_text(r["query"], TYPED_QUERY)]
    keyword = [r for r in whole if r["ranking"] == "keyword"]
    hybrid = [r for r in whole if r["ranking"] == "hybrid"]
    assert keyword and hybrid, [(r["query"], r["ranking"]) for r in shown[-5:]]
    # keyword results for the whole query came after its last key, before the hybrid
    # ranking, which waited for the model: its download began before the last key
    assert last_key <= keyword[0]["at"] < hybrid[0]["at"]
    assert report["modelRequestedAt"] is not None and report["modelRequestedAt"] < last_key
    assert renders[-1]["ranking"] == "hybrid" and same_text(renders[-1]["query"], TYPED_QUERY)
    searcher = Searcher.open(sites[site])
    def path(href: str) -> str:  # as Python links it: the home page is ./
        link = href.split(PREFIX, 1)[1].split("?")[0]
        return "./" + link if not link or link.startswith("#") else link

    lexical = {r.href for r in searcher.search(TYPED_QUERY, mode="lexical")}
    assert {path(h) for h in keyword[0]["links"] if "#" in h} <= lexical
    best = searcher.search(TYPED_QUERY)[0]
    assert any(path(h) == best.href for h in hybrid[0]["links"])
    assert set(report["pageErrors"]) <= CDN_ERRORS


@pytest.mark.parametrize("site, theme", [("mkdocs", "mkdocs"), ("readthedocs", "readthedocs"),
                                         ("material", "material"), ("plain", "button")])
def test_typing_on_a_slow_network_reads_the_partitioned_layout(sites, tmp_path, site, theme):
    """The same typing (120 ms a key, 20 Mbit/s, 40 ms, fresh profile) on a site whose
    vectors are in the partitioned layout (index, bits files, rows files of row blocks),
    in every theme, the one without a search box of its own included: no list for an
    older text than the box holds, and the last one is the hybrid ranking of the whole
    query, led by the Python searcher's best section."""
    site = sites[f"{site}-partitioned"]
    catalog = json.loads(next((site / "semantic").glob("catalog.*.json")).read_text())
    assert catalog["vectors"][0]["layout"] == "partitioned"
    vectors = Searcher.open(site).bundle.vectors
    assert any(len(vectors.partition(p).blocks) > 1 for p in range(len(vectors.partitions)))
    report = drive("typing", {"site": str(site), "prefix": PREFIX, "theme": theme,
                              "start": "", "query": TYPED_QUERY, "typeDelayMs": 120,
                              "throttle": THROTTLE}, tmp_path)
    assert len(report["keys"]) == len(TYPED_QUERY)
    typed_to_the_best_section(report, site, TYPED_QUERY)
    assert set(report["pageErrors"]) <= CDN_ERRORS


SLIPPED_QUERY = "how can my web app keep wroking offlien"


@pytest.mark.parametrize("site, theme", [("mkdocs", "mkdocs"), ("readthedocs", "readthedocs"),
                                         ("material", "material"), ("plain", "button")])
def test_a_slipped_query_is_corrected_in_every_theme_with_a_way_back(sites, tmp_path, site,
                                                                     theme):
    """Real keystrokes (120 ms a key, 20 Mbit/s, fresh profile) of a query with two slips:
    the results are those of the corrected query, under a line that says what was
    searched; its button searches the words as typed, as the Python searcher does."""
    report = drive("correction", {"site": str(sites[site]), "prefix": PREFIX, "theme": theme,
                                  "start": "", "query": SLIPPED_QUERY, "typeDelayMs": 120,
                                  "throttle": THROTTLE}, tmp_path)
    searcher = Searcher.open(sites[site])
    answer = searcher.answer(SLIPPED_QUERY, typing=True)
    assert answer.reading.text == "how can my web app keep working offline"
    line = report["corrected"]["line"]
    assert line == f"Results for {answer.reading.text}. Search instead for {SLIPPED_QUERY}"
    # the first page shown (Material lists a page's own link first)
    page = lambda href: href.split(PREFIX, 1)[-1].split("?")[0].split("#")[0]  # noqa: E731
    assert page(report["corrected"]["links"][0]) == page(answer.results[0].href)
    typed = searcher.search(SLIPPED_QUERY, as_typed=True)
    assert page(report["asTyped"]["links"][0]) == page(typed[0].href) != page(
        answer.results[0].href)
    assert report["input"] == SLIPPED_QUERY
    assert set(report["pageErrors"]) <= CDN_ERRORS

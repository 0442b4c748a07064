"""`mkdocs-semantic index --ui`: the client wired into the pages of a site already built,
a hand-written one and real MkDocs builds of each theme the client knows."""

from __future__ import annotations

import json
import posixpath
import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig

from mkdocs_semantic.apps.cli import cli
from mkdocs_semantic.pages.boxes import find_box
from mkdocs_semantic.pages.hints import bundle_hints
from mkdocs_semantic.pages.theme import ClientAssets

from ..conftest import REPO
from ..indexing.test_static_site import page, snapshot, write_site

META = re.compile(r'<meta name="semantic-search" [^>]*>')
LOADER = re.compile(r'<script type="module" src="([^"]+)"></script>')
UNTOUCHED = ("404.html", "old/index.html", "assets/style.css")
"""The hand-written site's files the indexer skips (not found, a redirect) or never reads."""


def index(site: Path, *args: str, cache: Path):
    result = CliRunner().invoke(cli, ["index", str(site), "--cache-dir", str(cache), *args],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def whole(root: Path) -> dict[str, bytes]:
    """Every file of the site, the bundle's too."""
    return snapshot(root, skip="")


def attributes(tag: str) -> dict[str, str]:
    return dict(re.findall(r'([\w-]+)="([^"]*)"', tag))


@pytest.fixture(scope="module")
def dialog_site(tmp_path_factory) -> tuple[Path, Path, dict[str, bytes], object]:
    """The hand-written site indexed with `--ui dialog`: (site, cache, its files before,
    the command's result)."""
    root = tmp_path_factory.mktemp("wired")
    site = write_site(root / "public")
    before = whole(site)
    result = index(site, "--ui", "dialog", cache=root / "cache")
    return site, root / "cache", before, result


def test_without_ui_index_writes_the_bundle_alone(tmp_path):
    site = write_site(tmp_path / "public")
    before = whole(site)
    index(site, cache=tmp_path / "cache")
    after = whole(site)
    assert {name: data for name, data in after.items()
            if not name.startswith("semantic/")} == before
    assert not (site / "semantic" / "client").exists()
    assert not (site / "semantic" / "semantic.js").exists()


@pytest.mark.parametrize("encoder, model", [("progressive", True), ("static", False)])
def test_the_query_encoder_of_an_indexed_site_decides_what_the_client_ships(
        tmp_path, encoder, model):
    """`--query-encoder progressive` writes the table and the model for the client's own
    forward pass (the model named as the manifest's idle encoder); `static` no model.
    Neither copies onnxruntime-web. The pages' hints name the word pieces either way."""
    site = write_site(tmp_path / "public")
    index(site, "--ui", "dialog", "--query-encoder", encoder, cache=tmp_path / "cache")
    manifest = json.loads((site / "semantic" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["query_encoder"] == "static"
    assert manifest.get("idle_encoder") == ("transformer" if model else None)
    client = next((site / "semantic" / "client").iterdir())
    assert not list(client.glob("ort-*"))
    assert bool(list((site / "semantic" / "model").glob("layers.*.bin"))) is model
    assert not list((site / "semantic" / "model").glob("model.*.onnx"))
    assert 'data-pieces="' in (site / "index.html").read_text(encoding="utf-8")


def test_dialog_tags_every_indexed_page_relative_to_itself(dialog_site):
    site, _, before, result = dialog_site
    assert "search (dialog) in 4 pages, 4 rewritten" in result.stdout
    hints = bundle_hints(site / "semantic", pieces=None)
    client = ClientAssets.load()
    for name in ("index.html", "guide/install/index.html", "guide/sharing.html",
                 "blog/2024/release.html"):
        text = (site / name).read_text(encoding="utf-8")
        metas, loaders = META.findall(text), LOADER.findall(text)
        assert len(metas) == 1 and len(loaders) == 1, name
        meta = attributes(metas[0])
        folder = posixpath.dirname(name)
        # every path the tags name is the file the plugin's tags name, from this page
        assert posixpath.normpath(posixpath.join(folder, meta["content"])) == \
            "semantic/manifest.json"
        assert posixpath.normpath(posixpath.join(folder, meta["data-site-root"])) in (".", "")
        loader = posixpath.normpath(posixpath.join(folder, loaders[0]))
        assert loader == f"semantic/client/{client.hash}/auto.js" and (site / loader).is_file()
        assert meta["data-ui"] == "dialog"
        # every hint, the late ones included (a build adds them in a second pass)
        assert meta["data-keywords"] == hints.keywords and meta["data-pages"] == hints.pages
        assert meta["data-pieces"]
        # nothing else in the page changed: the tags came in just before </head>
        assert text.replace(metas[0] + "\n" + loaders_tag(loaders[0]) + "\n", "") == \
            before[name].decode("utf-8"), name
    assert (site / "semantic" / "semantic.js").is_file()
    assert not any((site / "semantic" / "client" / client.hash).glob("ort-*"))


def loaders_tag(src: str) -> str:
    return f'<script type="module" src="{src}"></script>'


def test_pages_the_indexer_skips_are_left_byte_for_byte(dialog_site):
    site, _, before, _ = dialog_site
    for name in UNTOUCHED:
        assert (site / name).read_bytes() == before[name], name


def test_running_again_changes_nothing_and_replaces_stale_hints(dialog_site, tmp_path):
    site, cache, _, _ = dialog_site
    copy = shutil.copytree(site, tmp_path / "public")
    wired = whole(copy)
    result = index(copy, "--ui", "dialog", cache=cache)
    assert "0 rewritten" in result.stdout
    assert whole(copy) == wired
    # a page whose hints an older bundle wrote (and a loader of an older client) gets
    # this bundle's, once
    home = copy / "index.html"
    text = home.read_text(encoding="utf-8")
    keywords = attributes(META.search(text).group(0))["data-keywords"]
    stale = re.sub(r'data-keywords="[^"]*"', 'data-keywords="0000000000000000:3"', text)
    stale = re.sub(r"/client/[0-9a-f]{12}/", "/client/0123456789ab/", stale)
    home.write_text(stale, encoding="utf-8")
    result = index(copy, "--ui", "dialog", cache=cache)
    assert "1 rewritten" in result.stdout
    assert home.read_text(encoding="utf-8") == text
    assert f'data-keywords="{keywords}"' in text


def test_a_page_that_cannot_be_rewritten_gets_one_warning_naming_it(tmp_path):
    site = write_site(tmp_path / "public")
    headless = site / "headless.html"
    headless.write_text("<main><h1>No head</h1><p>Dashboards refresh every few minutes "
                        "without a head element.</p></main>", encoding="utf-8")
    latin = site / "latin.html"
    latin.write_bytes(page("Café", "<h1>Café au lait</h1><p>Crème brûlée for the team "
                           "dashboard.</p>").replace("utf-8", "latin-1").encode("latin-1"))
    before = {path: path.read_bytes() for path in (headless, latin)}
    result = index(site, "--ui", "dialog", cache=tmp_path / "cache")
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert warnings == [
        f"WARNING: no search in {headless}: it has no </head> to put the search tags in",
        f"WARNING: no search in {latin}: it is not UTF-8 text"]
    assert {path: path.read_bytes() for path in before} == before
    assert META.search((site / "index.html").read_text(encoding="utf-8"))


THEMES = {"mkdocs": {"name": "mkdocs"}, "readthedocs": {"name": "readthedocs"},
          "material": {"name": "material"}}


@pytest.fixture(scope="module")
def theme_sites(tmp_path_factory) -> dict[str, Path]:
    """The example site built by MkDocs with each theme and the search plugin alone (no
    semantic plugin), then indexed with `--ui auto`; `<theme>-built` keeps the build."""
    root = tmp_path_factory.mktemp("themes")
    source = root / "source"
    shutil.copytree(REPO / "example-site", source, ignore=shutil.ignore_patterns("site", ".cache"))
    base = yaml.safe_load((source / "mkdocs.yml").read_text(encoding="utf-8"))
    sites = {}
    for name, theme in THEMES.items():
        config = {**base, "theme": theme, "plugins": ["search"], "site_dir": str(root / name)}
        config_file = source / f"mkdocs-{name}.yml"
        config_file.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        MkDocsConfig.plugins.plugin_cache.clear()
        build(load_config(config_file=str(config_file)))
        sites[f"{name}-built"] = shutil.copytree(root / name, root / f"{name}-built")
        index(root / name, "--ui", "auto", cache=root / "cache")
        sites[name] = root / name
    sites["cache"] = root / "cache"
    return sites


@pytest.mark.parametrize("theme", THEMES)
def test_auto_answers_in_the_box_of_each_theme_the_plugin_knows(theme_sites, theme):
    site, built = theme_sites[theme], theme_sites[f"{theme}-built"]
    page = (site / "freshness" / "index.html").read_text(encoding="utf-8")
    meta = attributes(META.search(page).group(0))
    assert meta["data-ui"] == theme
    loader = LOADER.search(page).group(1)
    assert loader.endswith("/material.js" if theme == "material" else "/auto.js")
    # the theme's own search no longer loads: the search plugin's main.js (lunr and its
    # index), or Material's index (the form's name) and worker (ours instead)
    assert "search/main.js" not in page
    if theme == "material":
        config = json.loads(re.search(r'<script id="__config" type="application/json">'
                                      r"(.*?)</script>", page).group(1))
        assert "/semantic/client/" in "/" + config["search"] and "manifest=" in config["search"]
        assert '<form class="md-search__form">' in page
    else:
        assert "search/main.js" in (built / "freshness" / "index.html").read_text("utf-8")
    assert (site / "search" / "search_index.json").is_file()  # still written, for others


@pytest.mark.parametrize("theme", THEMES)
def test_auto_run_again_changes_nothing(theme_sites, theme, tmp_path):
    copy = shutil.copytree(theme_sites[theme], tmp_path / theme)
    wired = whole(copy)
    result = index(copy, "--ui", "auto", cache=theme_sites["cache"])
    assert " 0 rewritten" in result.stdout
    assert whole(copy) == wired


def test_a_page_with_no_box_gets_the_dialog_under_auto(dialog_site, tmp_path):
    """The hand-written site has no search box: auto gives it the dialog, as `dialog` does."""
    site, cache, _, _ = dialog_site
    copy = shutil.copytree(site, tmp_path / "public")
    index(copy, "--ui", "auto", cache=cache)
    assert whole(copy) == whole(site)


def test_index_writes_the_meta_tag_the_plugin_writes(theme_sites):
    """The same writer as the plugin's (tests/client/test_browser.py reads the plugin's):
    the same attributes in the same order, every hint in it."""
    page = (theme_sites["mkdocs"] / "cache-busting" / "index.html").read_text(encoding="utf-8")
    meta = attributes(META.search(page).group(0))
    assert list(meta) == ["name", "content", "data-site-root", "data-ui", "data-pieces",
                          "data-keywords", "data-pages"]
    assert (meta["content"], meta["data-site-root"]) == ("../semantic/manifest.json", "../")


@pytest.fixture(scope="module")
def zensical_sites(tmp_path_factory) -> dict[str, Path]:
    """The example site built by Zensical with `search.highlight` on (`built`), and a
    copy indexed with --ui auto (`wired`)."""
    from ..client.test_browser_zensical import FEATURES, zensical_build

    root = tmp_path_factory.mktemp("zensical")
    built = zensical_build(root / "source", features=FEATURES)
    wired = shutil.copytree(built, root / "wired")
    index(wired, "--ui", "auto", cache=root / "cache")
    return {"built": built, "wired": wired, "cache": root / "cache"}


def test_auto_takes_zensicals_button_from_its_own_search(zensical_sites):
    """Zensical mounts its search (and so fetches its index) on
    `[data-md-component=search]`: the attribute goes, the button and the small screen's
    icon open ours, and `search.highlight`, which reads the index on every page, goes."""
    built = (zensical_sites["built"] / "freshness" / "index.html").read_text("utf-8")
    wired = (zensical_sites["wired"] / "freshness" / "index.html").read_text("utf-8")
    assert find_box(built) == "zensical"
    assert attributes(META.search(wired).group(0))["data-ui"] == "zensical"
    assert LOADER.search(wired).group(1).endswith("/auto.js")
    assert 'data-md-component="search"' in built and 'data-md-component="search"' not in wired
    assert re.search(r'<div class="md-search"[^>]* data-semantic-search>', wired)
    assert re.search(r'<label [^>]*for="__search" data-semantic-search>', wired)
    config = lambda page: json.loads(re.search(  # noqa: E731
        r'<script id="__config" type="application/json">(.*?)</script>', page).group(1))
    assert "search.highlight" in config(built)["features"]
    assert config(wired)["features"] == [f for f in config(built)["features"]
                                         if f != "search.highlight"]
    assert config(wired)["search"] == config(built)["search"]  # its worker, never started
    assert find_box(wired) == "zensical"  # the next run knows the page again
    assert (zensical_sites["wired"] / "404.html").read_bytes() == \
        (zensical_sites["built"] / "404.html").read_bytes()


def test_zensical_run_again_changes_nothing(zensical_sites, tmp_path):
    copy = shutil.copytree(zensical_sites["wired"], tmp_path / "site")
    wired = whole(copy)
    result = index(copy, "--ui", "auto", cache=zensical_sites["cache"])
    assert " 0 rewritten" in result.stdout
    assert whole(copy) == wired


def test_dialog_leaves_zensicals_own_search_alone(zensical_sites, tmp_path):
    copy = shutil.copytree(zensical_sites["built"], tmp_path / "site")
    index(copy, "--ui", "dialog", cache=zensical_sites["cache"])
    page = (copy / "freshness" / "index.html").read_text("utf-8")
    assert attributes(META.search(page).group(0))["data-ui"] == "dialog"
    assert 'data-md-component="search"' in page and "data-semantic-search" not in page

"""How built pages find the browser client: relative URLs, the head tags, Material's worker."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mkdocs_semantic.pages.hints import PageHints
from mkdocs_semantic.pages.theme import (
    ClientAssets,
    add_to_head,
    choose_ui,
    material_worker_url,
    page_tags,
    point_material_search,
    relative_url,
    skip_material_index,
    without_search_plugin_script,
)

ASSETS = ClientAssets(root=Path("unused"), hash="abc123", files=("auto.js",),
                      entry="semantic-entry.js")


@pytest.mark.parametrize(
    "target, page_url, expected",
    [
        ("semantic/manifest.json", "", "semantic/manifest.json"),
        ("semantic/manifest.json", "a/b/", "../../semantic/manifest.json"),
        ("semantic/manifest.json", "a/b.html", "../semantic/manifest.json"),
        ("", "", "./"),
        ("", "a/", "../"),
        ("", "a/b.html", "../"),
    ],
)
def test_relative_url(target, page_url, expected):
    assert relative_url(target, page_url) == expected


def test_page_tags_for_a_nested_page_with_a_custom_bundle_dir():
    tags = page_tags(page_url="guide/setup/", bundle_dir="_search/semantic", assets=ASSETS,
                     ui="dialog")
    assert tags == (
        '<meta name="semantic-search" content="../../_search/semantic/manifest.json" '
        'data-site-root="../../" data-ui="dialog">\n'
        '<script type="module" src="../../_search/semantic/client/abc123/auto.js"></script>\n'
    )
    assert add_to_head("<html><head><title>x</title></HEAD><body>", tags) == (
        f"<html><head><title>x</title>{tags}</HEAD><body>")
    assert add_to_head("<p>no head</p>", tags) == "<p>no head</p>"
    bare = page_tags(page_url="", bundle_dir="semantic", assets=ASSETS, ui="none")
    assert bare == ('<meta name="semantic-search" content="semantic/manifest.json" '
                    'data-site-root="./" data-ui="none">\n')
    keyed = page_tags(page_url="", bundle_dir="semantic", assets=ASSETS, ui="none",
                      hints=PageHints(pieces="0123456789abcdef"))
    assert keyed == ('<meta name="semantic-search" content="semantic/manifest.json" '
                     'data-site-root="./" data-ui="none" data-pieces="0123456789abcdef">\n')
    hinted = page_tags(page_url="", bundle_dir="semantic", assets=ASSETS, ui="none",
                       hints=PageHints(keywords="0123456789abcdef:13", pages="fedcba9876543210"))
    assert hinted == ('<meta name="semantic-search" content="semantic/manifest.json" '
                      'data-site-root="./" data-ui="none" data-keywords="0123456789abcdef:13" '
                      'data-pages="fedcba9876543210">\n')


def test_material_pages_load_their_own_script():
    tags = page_tags(page_url="a/", bundle_dir="semantic", assets=ASSETS, ui="material")
    assert tags.endswith('<script type="module" '
                         'src="../semantic/client/abc123/material.js"></script>\n')


def test_material_config_points_at_our_worker_and_stays_inert_json():
    page = ('<script id="__config" type="application/json">'
            '{"base": "..", "search": "../assets/javascripts/workers/search.js", '
            '"translations": {"x": "\\u003c/script\\u003e"}}</script>')
    url = material_worker_url(page_url="a/", bundle_dir="semantic", assets=ASSETS)
    assert url == "../semantic/client/abc123/material-worker.js?manifest=../../manifest.json"
    hints = PageHints(pieces="0123456789abcdef", keywords="0123456789abcdef:13",
                      pages="fedcba9876543210")
    hinted = material_worker_url(page_url="a/", bundle_dir="semantic", assets=ASSETS, hints=hints)
    assert hinted == (f"{url}&pieces=0123456789abcdef&keywords=0123456789abcdef:13"
                      "&pages=fedcba9876543210")
    out = point_material_search(page, url)
    body = out.removeprefix('<script id="__config" type="application/json">')
    body = body.removesuffix("</script>")
    assert json.loads(body) == {"base": "..", "search": url,
                                "translations": {"x": "</script>"}}
    assert "</script>" not in body


@pytest.mark.parametrize(
    "option, theme, has_box, expected",
    [
        ("auto", "mkdocs", True, "mkdocs"),
        ("auto", "material", True, "material"),
        ("auto", "material", False, "dialog"),
        ("auto", "readthedocs", True, "readthedocs"),
        ("auto", "readthedocs", False, "dialog"),
        ("dialog", "material", True, "dialog"),
        ("none", "mkdocs", True, "none"),
    ],
)
def test_choose_ui(option, theme, has_box, expected):
    assert choose_ui(option, theme=theme, has_search_box=has_box) == expected


def form_attributes(page: str) -> list[dict[str, str | None]]:
    forms = []
    parser = HTMLParser()
    parser.handle_starttag = lambda tag, attrs: forms.append(dict(attrs)) if tag == "form" \
        else None
    parser.feed(page)
    return forms


@pytest.mark.parametrize("form", [
    '<form class="md-search__form" name="search">',
    "<form name='search' class=\"md-search__form\">",
    "<form class=md-search__form name=search>",
])
def test_material_pages_lose_the_form_name_that_makes_material_fetch_its_index(form):
    # Material downloads search_index.json when document.forms.namedItem("search") exists.
    page = f'<div data-md-component="search">{form}<input name="query"></form></div>'
    out = skip_material_index(page)
    assert form_attributes(out) == [{"class": "md-search__form"}]
    assert out.endswith('<input name="query"></form></div>')
    other = '<form name="search" class="site-form"></form>'  # not Material's: left alone
    assert skip_material_index(other) == other


def test_the_search_plugin_script_is_left_out_whatever_its_type():
    class ExtraScript:  # like MkDocs' ExtraScriptValue: str() is its path
        def __init__(self, path):
            self.path = path

        def __str__(self):
            return self.path

    mine = ExtraScript("js/mine.js")
    scripts = ["search/main.js", mine, ExtraScript("search/main.js"), "js/other.js"]
    assert without_search_plugin_script(scripts) == [mine, "js/other.js"]


def test_a_site_gets_the_files_of_the_forward_pass_its_model_needs_and_no_other(tmp_path):
    assets = ClientAssets.load()
    runtime = {name for name in assets.files if name.startswith("ort-")}
    own = {name for name in assets.files if name.startswith("model-")}
    assert any(name.endswith(".wasm") for name in runtime) and own == {"model-embed.js"}
    folder = assets.install(tmp_path, "semantic", forward=None)

    def installed() -> set[str]:  # licenses/ is a subfolder
        return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}

    assert installed() == set(assets.files) - runtime - own  # a static site
    assets.install(tmp_path, "semantic", forward="bert")
    assert installed() == set(assets.files) - runtime
    assets.install(tmp_path, "semantic", forward="onnx")  # a model bert.js cannot run
    assert installed() == set(assets.files) - own
    assets.install(tmp_path, "semantic", forward=None)  # switched back: 14 MB gone again
    assert installed() == set(assets.files) - runtime - own

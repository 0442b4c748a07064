"""How built pages find the browser client: relative URLs, the head tags, Material's worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mkdocs_semantic.client import (
    ClientAssets,
    add_to_head,
    choose_ui,
    material_worker_url,
    page_tags,
    point_material_search,
    relative_url,
)

ASSETS = ClientAssets(root=Path("unused"), hash="abc123", files=("auto.js",))


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


def test_material_config_points_at_our_worker_and_stays_inert_json():
    page = ('<script id="__config" type="application/json">'
            '{"base": "..", "search": "../assets/javascripts/workers/search.js", '
            '"translations": {"x": "\\u003c/script\\u003e"}}</script>')
    url = material_worker_url(page_url="a/", bundle_dir="semantic", assets=ASSETS)
    assert url == "../semantic/client/abc123/material-worker.js?manifest=../../manifest.json"
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
        ("auto", "readthedocs", True, "dialog"),
        ("dialog", "material", True, "dialog"),
        ("none", "mkdocs", True, "none"),
    ],
)
def test_choose_ui(option, theme, has_box, expected):
    assert choose_ui(option, theme=theme, has_search_box=has_box) == expected

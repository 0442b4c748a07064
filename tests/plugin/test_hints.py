"""The build's second pass over its pages: the hints known only once the bundle is written."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from mkdocs_semantic.pages.hints import (
    MAX_HINTED_SHARDS,
    PageHints,
    add_late_hints,
    bundle_hints,
    rewrite_pages,
    script_json,
)

PARITY_BUNDLE = Path(__file__).resolve().parent.parent / "fixtures" / "parity" / "bundle"
HINTS = PageHints(pieces="ab", keywords="2:0123456789abcdef", pages="fedcba9876543210",
                  words="2:3333333333333333", index="4444444444444444")
WRITTEN = '<meta name="semantic-search" content="semantic/manifest.json" data-pieces="ab">'
LATE = ('data-keywords="2:0123456789abcdef" data-pages="fedcba9876543210" '
        'data-words="2:3333333333333333" data-index="4444444444444444"')
HINTED = f'<meta name="semantic-search" content="semantic/manifest.json" data-pieces="ab" {LATE}>'


def material_page(search: str) -> str:
    config = {"base": "..", "search": search, "translations": {"x": "</script>"}}
    return (f'<head>{WRITTEN}<script id="__config" type="application/json">'
            f"{script_json(config)}</script></head>")


def config_of(page: str) -> dict:
    body = page.split('<script id="__config" type="application/json">')[1].split("</script>")[0]
    return json.loads(body)


def test_hints_are_given_in_a_fixed_order_and_only_when_known():
    assert PageHints().items() == []
    assert PageHints(pages="p", pieces="a").items() == [("pieces", "a"), ("pages", "p")]


def test_the_bundle_names_its_keyword_shards_page_table_word_rows_and_vector_index():
    catalog = json.loads((PARITY_BUNDLE / "catalog.json").read_text(encoding="utf-8"))
    hints = bundle_hints(PARITY_BUNDLE, pieces="ab")
    shards = catalog["lexical"]["shards"]
    assert hints.keywords == f"{shards['count']}:{shards['hashes']}"
    assert f"pages/pages.{hints.pages}.bin" == catalog["pages"]["table"][0]
    words = catalog["encoders"]["static"]["words"]
    assert words["count"] > MAX_HINTED_SHARDS and hints.words is None  # too long to hint
    assert hints.index is None  # the exact layout has no index
    assert hints.pieces == "ab"
    partitioned = PARITY_BUNDLE.parent / "bundle-partitioned"
    index = json.loads((partitioned / "catalog.json").read_text(encoding="utf-8"))["vectors"][0]
    assert f"vectors/ivf.{bundle_hints(partitioned, pieces=None).index}.bin" == index["index"][0]


def test_a_list_of_more_shards_than_a_page_should_carry_is_not_hinted(monkeypatch):
    from mkdocs_semantic.pages import hints as module

    count = json.loads((PARITY_BUNDLE / "catalog.json").read_text())["lexical"]["shards"]["count"]
    monkeypatch.setattr(module, "MAX_HINTED_SHARDS", count - 1)
    assert bundle_hints(PARITY_BUNDLE, pieces="ab").keywords is None
    monkeypatch.setattr(module, "MAX_HINTED_SHARDS", count)
    assert bundle_hints(PARITY_BUNDLE, pieces="ab").keywords is not None


def test_the_meta_tag_gets_the_late_hints_once_however_it_was_written():
    page = f"<head>{WRITTEN}</head><body><pre>{WRITTEN}</pre></body>"
    once = add_late_hints(page, HINTS)
    assert once == f"<head>{HINTED}</head><body><pre>{WRITTEN}</pre></body>"
    assert add_late_hints(once, HINTS) == once  # a page listed twice
    newer = PageHints(keywords="1111111111111111:7", pages="2222222222222222")
    assert add_late_hints(once, newer) == once.replace(
        LATE, 'data-keywords="1111111111111111:7" data-pages="2222222222222222"')
    # a minifier after us: no quotes, no spaces before the end, a self-closing tag
    assert add_late_hints("<meta name=semantic-search content=m data-pieces=ab/>", HINTS) == (
        f"<meta name=semantic-search content=m data-pieces=ab {LATE}/>")
    assert add_late_hints('<meta name="description" content="semantic-search">', HINTS) is None
    # neither another name that starts with ours nor another attribute that ends in name
    assert add_late_hints('<meta name="semantic-search-ui" content="x">'
                          '<meta data-name="semantic-search" content="y">', HINTS) is None


def test_materials_worker_url_gets_the_late_hints_and_keeps_the_rest():
    url = "../semantic/client/abc123/material-worker.js?manifest=../../manifest.json&pieces=ab"
    page = add_late_hints(material_page(url), HINTS)
    assert config_of(page)["search"] == (f"{url}&keywords=2:0123456789abcdef&pages=fedcba9876543210"
                                         "&words=2:3333333333333333&index=4444444444444444")
    assert config_of(page)["translations"] == {"x": "</script>"}
    assert add_late_hints(page, HINTS) == page
    minified = material_page(url).replace('<script id="__config" type="application/json">',
                                          "<script id=__config type=application/json>")
    assert config_of(add_late_hints(minified, HINTS).replace(
        "<script id=__config type=application/json>",
        '<script id="__config" type="application/json">'))["search"] == config_of(page)["search"]
    theirs = material_page("../assets/javascripts/workers/search.js")
    assert config_of(add_late_hints(theirs, HINTS))["search"] == \
        "../assets/javascripts/workers/search.js"


def test_pages_keep_their_bytes_but_the_tag_and_no_temporary_file_is_left(tmp_path):
    page = tmp_path / "index.html"
    page.write_bytes(f"<head>\r\n{WRITTEN}\r\n</head>\r\n<pre>a\r\nb</pre>".encode())
    assert rewrite_pages([page], HINTS) == 1
    assert page.read_bytes() == f"<head>\r\n{HINTED}\r\n</head>\r\n<pre>a\r\nb</pre>".encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]


def test_a_page_without_its_tag_or_that_cannot_be_read_is_left_and_said(tmp_path, caplog):
    changed = tmp_path / "other.html"
    changed.write_text("<head></head>", encoding="utf-8")  # another plugin took the tag out
    folder = tmp_path / "folder.html"
    folder.mkdir()
    good = tmp_path / "good.html"
    good.write_text(WRITTEN, encoding="utf-8")
    plain = tmp_path / "404.html"  # a dirty build's other pages: rewritten only if ours
    plain.write_text("<head></head>", encoding="utf-8")
    latin = tmp_path / "legacy.html"  # nor said when they cannot be read
    latin.write_bytes("<p>caf\u00e9</p>".encode("latin-1"))
    gone = tmp_path / "gone.html"
    with caplog.at_level(logging.WARNING):
        assert rewrite_pages([changed, folder, good], HINTS, others=[plain, good, latin, gone]) == 1
    assert changed.read_text(encoding="utf-8") == "<head></head>"
    assert good.read_text(encoding="utf-8") == HINTED
    [record] = caplog.records
    message = record.getMessage()
    assert "2 page(s)" in message and "other.html (no semantic-search meta tag)" in message
    assert "404.html" not in message and "legacy" not in message and "gone" not in message
    assert "round trip more" in message

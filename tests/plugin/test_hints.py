"""The build's second pass over its pages: the hints known only once the bundle is written."""

from __future__ import annotations

import logging

from mkdocs_semantic.plugin.hints import PageEdit, PageHints, rewrite_pages

WRITTEN = '<meta name="semantic-search" content="semantic/manifest.json" data-pieces="ab">'
HINTED = ('<meta name="semantic-search" content="semantic/manifest.json" data-pieces="ab" '
          'data-keywords="0123456789abcdef:5">')


def test_hints_are_given_in_a_fixed_order_and_only_when_known():
    assert PageHints().items() == []
    assert PageHints(pages="p", pieces="a").items() == [("pieces", "a"), ("pages", "p")]


def test_each_page_gets_its_tags_replaced_once(tmp_path):
    page = tmp_path / "index.html"
    page.write_text(f"<head>{WRITTEN}</head><body><pre>{WRITTEN}</pre></body>", encoding="utf-8")
    assert rewrite_pages([PageEdit(page, ((WRITTEN, HINTED),))]) == 1
    assert page.read_text(encoding="utf-8") == \
        f"<head>{HINTED}</head><body><pre>{WRITTEN}</pre></body>"


def test_a_page_without_its_tags_or_that_cannot_be_read_is_left_and_said(tmp_path, caplog):
    changed = tmp_path / "other.html"
    changed.write_text("<head></head>", encoding="utf-8")  # another plugin took the tags out
    folder = tmp_path / "folder.html"
    folder.mkdir()
    good = tmp_path / "good.html"
    good.write_text(WRITTEN, encoding="utf-8")
    edits = [PageEdit(path, ((WRITTEN, HINTED),)) for path in (changed, folder, good)]
    with caplog.at_level(logging.WARNING):
        assert rewrite_pages(edits) == 1
    assert changed.read_text(encoding="utf-8") == "<head></head>"
    assert good.read_text(encoding="utf-8") == HINTED
    [record] = caplog.records
    assert "1 page(s)" in record.getMessage() and "folder.html" in record.getMessage()
    assert "round trip more" in record.getMessage()

"""The page table: chunks per page and section continuations, written and read back."""

from __future__ import annotations

import numpy as np
import pytest

from mkdocs_semantic.bundle.page_table import (
    PageTable,
    continuations,
    page_table_bytes,
    parse_page_table,
    repeated_leads,
)
from mkdocs_semantic.chunk import PageFacts
from mkdocs_semantic.indexing.html_chunks import chunk_page


def test_a_table_reads_back_with_starts_pages_and_sections():
    table = PageTable(counts=np.array([2, 1, 3]),
                      continues=continuations([["a", "a"], ["b"], ["c", "d", "d"]]))
    back = parse_page_table(page_table_bytes(table), pages=3, chunks=6)
    assert back.starts.tolist() == [0, 2, 3, 6]
    assert back.page_of_chunk.tolist() == [0, 0, 1, 2, 2, 2]
    assert back.sections.tolist() == [0, 0, 2, 3, 4, 4]
    assert len(page_table_bytes(table)) == 8 + 2 * 3 + 1


def test_a_repeated_anchor_further_down_a_page_starts_its_own_section():
    assert continuations([["a", "b", "a", "a"]]).tolist() == [False, False, False, True]


LEAD = "<p>Declare cookie parameters the same way as query and path parameters.</p>"
SECTION = ("<h2 id=\"import\">Import Cookie</h2><p>First import Cookie from the framework, "
           "then declare the parameter with a default value.</p>")


CODE = '<h2 id="import">Import Cookie</h2><pre><code>from app import Cookie</code></pre>'


@pytest.mark.parametrize(("html", "title", "min_tokens", "repeats"), [
    # the lead under the page's h1: the h1's section opens with it
    (f'<h1 id="cookies">Cookie parameters</h1>{LEAD}{SECTION}', "Cookie parameters", 24, True),
    # a nav title that is not the h1's: the same
    (f'<h1 id="cookies">Cookie parameters</h1>{LEAD}{SECTION}', "Cookies", 24, True),
    # an opening before any heading, too short to stand alone: merged into the section
    (f"{LEAD}{SECTION}", "Cookies", 24, True),
    # an opening that stands alone: the page chunk alone holds it
    (f"{LEAD}{SECTION}", "Cookies", 0, False),
    # no text under the h1: the page chunk's lead is the first section's text
    (f'<h1 id="cookies">Cookies</h1>{SECTION}', "Cookies", 24, True),
    # no lead at all (code only): the page chunk is its title
    (f'<h1 id="cookies">Cookies</h1>{CODE}', "Cookies", 24, False),
])
def test_the_section_that_opens_with_the_pages_lead_continues_the_page_chunk(
        count_tokens, html, title, min_tokens, repeats):
    """Results list a page's lead once: the page chunk and the section right after it
    that repeats its lead are one section, as the pieces of a long section are."""
    chunks = chunk_page(html, PageFacts(url="learn/cookies/", title=title),
                        count=count_tokens, max_tokens=256, min_tokens=min_tokens)
    assert chunks[0].kind == "page"
    marked = repeated_leads([chunks]).tolist()
    assert marked == [False, repeats] + [False] * (len(chunks) - 2)
    table = PageTable(counts=np.array([len(chunks)]),
                      continues=continuations([[c.anchor for c in chunks]])
                      | repeated_leads([chunks]))
    sections = parse_page_table(page_table_bytes(table), pages=1,
                                chunks=len(chunks)).sections.tolist()
    assert (sections[1] == 0) == repeats


@pytest.mark.parametrize("counts, bits, pages, chunks, message", [
    ([2, 1], 0b000, 2, 4, "holds 2 pages and 3 chunks, not 2 and 4"),
    ([2, 1], 0b000, 3, 3, "not the 15 of a page table"),
    ([1, 2], 0b010, 2, 3, "first chunk continues the page before"),
    ([3, 0], 0b000, 2, 3, "a page without chunks"),
])
def test_a_table_that_does_not_fit_is_refused(counts, bits, pages, chunks, message):
    data = (np.array([len(counts), sum(counts)], dtype="<u4").tobytes()
            + np.array(counts, dtype="<u2").tobytes() + bytes([bits]))
    with pytest.raises(ValueError, match=message):
        parse_page_table(data, pages=pages, chunks=chunks)


def test_a_page_with_more_chunks_than_a_table_holds_is_named():
    table = PageTable(counts=np.array([1, 70_000]), continues=np.zeros(70_001, dtype=bool))
    with pytest.raises(ValueError, match="page 1 has 70000 chunks, more than the 65535"):
        page_table_bytes(table)

"""The page table: chunks per page and section continuations, written and read back."""

from __future__ import annotations

import numpy as np
import pytest

from mkdocs_semantic.bundle.page_table import (
    PageTable,
    continuations,
    page_table_bytes,
    parse_page_table,
)


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

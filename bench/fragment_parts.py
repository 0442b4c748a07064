"""Long pages' excerpts in parts: what the excerpt files of a query's results cost, with
every page's whole file and with parts of several sizes.

For each set (bench/static_encoder.py's loaders) and each clean and slipped query, the
hybrid results of `Searcher.answer` (static encoder, the site's default number of
results) name the chunks shown; the browser
reads, for each, its page's fragments file, or, where the page has more chunks than a
part holds, the part holding it (bundle/fragment_parts.py). Bytes are gzip (level 6)
of the files as the writer lays them out, the 4-byte self-check included. The step
harness (bench/typed_reading.py) measures the same change end to end, steps included.

    python bench/fragment_parts.py [--sets fastapi,mkdocs,...] [--out DIR]

Writes <out>/fragment_parts.{json,md} (bench/results unless --out).
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.fragment_parts import PART_CHUNKS, page_parts  # noqa: E402
from mkdocs_semantic.bundle.names import (  # noqa: E402
    ROW_CHECK_BYTES,
    json_bytes,
    self_checked_body,
)
from mkdocs_semantic.bundle.reader import Bundle  # noqa: E402
from mkdocs_semantic.bundle.shard_lists import shard_name  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

SIZES = (None, 32, PART_CHUNKS, 128)
"""Chunks a part holds (None: every page in its one file, as before parts)."""
KINDS = ("clean", "slipped")


def sent(fragment: list) -> int:
    """A fragments file's bytes sent: gzip of its JSON and its check."""
    return len(gzip.compress(json_bytes([fragment]), 6)) + ROW_CHECK_BYTES


def excerpt_files(fragments: list[list], size: int | None) -> dict[tuple[int, int], int]:
    """Every excerpt file a browser may read with parts of `size` chunks (None: whole
    pages), (page, part) -> bytes sent; a page read whole is its part 0."""
    out = {}
    for page, fragment in enumerate(fragments):
        parts = page_parts(fragment, size) if size else []
        for part, body in enumerate(parts or [fragment]):
            out[(page, part)] = sent(body)
    return out


def files_of(chunks: list[int], starts: np.ndarray, size: int | None) -> set[tuple[int, int]]:
    """The (page, part) files the excerpts of `chunks` are in (as `excerpt_files` keys)."""
    pages = np.searchsorted(starts, chunks, side="right") - 1
    out = set()
    for chunk, page in zip(chunks, pages.tolist()):
        local = chunk - int(starts[page])
        long = size is not None and starts[page + 1] - starts[page] > size
        out.add((page, local // size if long else 0))
    return out


def page_fragments(bundle: Bundle) -> list[list]:
    """Every page's fragment row, read from its own fragments file, in page order."""
    listed = bundle.catalog["fragments"]
    return [json.loads(self_checked_body(file, (bundle.root / file).read_bytes()))[0]
            for file in (shard_name(listed["stem"], page, listed["set"])
                         for page in range(len(bundle.pages.starts) - 1))]


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    bundle = corpus.bundle
    starts = np.asarray(bundle.pages.starts)
    fragments = page_fragments(bundle)
    sizes = np.diff(starts)
    copies = rt.copies(corpus, name)
    searcher = Searcher(bundle, None, encoder="static")
    # the site's own number of results (what the browser shows), not the bench's depth
    shown = {kind: [[r.chunk_id for r in searcher.answer(q.text, mode="hybrid").results]
                    for q in copies[kind]] for kind in KINDS}
    out: dict = {"pages": len(sizes), "largest": sorted(sizes.tolist())[-3:], "sizes": {}}
    for size in SIZES:
        cost_of = excerpt_files(fragments, size)
        parts = [c for (page, _), c in cost_of.items() if size and sizes[page] > size]
        row: dict = {"long_pages": int((sizes > size).sum()) if size else 0,
                     "files": len(cost_of),
                     "part_bytes": [min(parts), max(parts)] if parts else None,
                     "on_disk": sum(cost_of.values()) + (sum(
                         sent(f) for f, s in zip(fragments, sizes) if s > size) if size else 0)}
        for kind in KINDS:
            per_query = [sum(cost_of[f] for f in files_of(chunks, starts, size))
                         for chunks in shown[kind]]
            row[kind] = {"mean": float(np.mean(per_query)), "max": int(max(per_query)),
                         "files": float(np.mean([len(files_of(c, starts, size))
                                                 for c in shown[kind]]))}
        out["sizes"][str(size)] = row
    return out


def render(results: dict) -> str:
    lines = ["# Long pages' excerpts in parts", "",
             f"Reproduce: `python bench/fragment_parts.py`. Measured {results['run']}. "
             "Excerpt files a query's hybrid results (static encoder, the site's default "
             "number of results) read, gzip bytes "
             "sent, per query: every page's whole file (`whole`) against parts of 32, "
             f"{PART_CHUNKS} (shipped) and 128 chunks for longer pages. On disk: every "
             "excerpt file a browser may read, the long pages' whole files (kept for "
             "Python readers) included.", "",
             "| set (pages; largest) | parts of | long pages | a part, sent: least / most "
             "| clean: mean / max sent, files | slipped: mean / max sent, files | on disk |",
             "|---|---|---|---|---|---|---|"]
    for name, data in results["sets"].items():
        for size, row in data["sizes"].items():
            label = "whole" if size == "None" else size
            cells = [f"{row[k]['mean'] / 1000:.1f} / {row[k]['max'] / 1000:.1f} kB, "
                     f"{row[k]['files']:.1f}" for k in KINDS]
            least_most = (f"{row['part_bytes'][0] / 1000:.1f} / "
                          f"{row['part_bytes'][1] / 1000:.1f} kB" if row["part_bytes"] else "-")
            lines.append(f"| {name} ({data['pages']}; {', '.join(map(str, data['largest']))}) "
                         f"| {label} | {row['long_pages']} | {least_most} | {cells[0]} | "
                         f"{cells[1]} | {row['on_disk'] / 1e6:.2f} MB |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "fragment_parts", run_set, render, sets=rt.EARLIER_SETS)


if __name__ == "__main__":
    sys.exit(main())

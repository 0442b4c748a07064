"""What the site's vocabulary costs: its bytes, and what reading a query fetches of it.

Per set (built as bench/static_encoder.py builds it): the vocabulary's files and bytes
(raw and gzip, as a static host sends them), and for the clean, slipped and half-typed
queries (bench/relevance/, read as `Searcher.answer` reads them: the half-typed while
typing) how many read any vocabulary shard and the gzip bytes of the shards each reads
(median and largest). A query whose words the site all uses reads none.

    python bench/vocabulary_bytes.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/vocabulary_bytes.{json,md}.
"""

from __future__ import annotations

import gzip
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.reader import Bundle, payload_json, read_payload  # noqa: E402
from mkdocs_semantic.bundle.shard_lists import ShardReader  # noqa: E402
from mkdocs_semantic.bundle.vocabulary import (  # noqa: E402
    Vocabulary,
    VocabularyShard,
    checked_shard,
    checked_spelling_shard,
)
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402


def gzip_size(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def vocabulary_files(bundle: Bundle) -> list[tuple[str, int]]:
    return [(p.name, p.bytes) for p in bundle.files if p.name.startswith("vocabulary/")]


def read_bytes(bundle: Bundle, searcher: Searcher, text: str, typing: bool,
               sizes: dict[str, int]) -> int:
    """Gzip bytes of the vocabulary shards reading `text` fetches (a fresh reader each)."""
    fetched: list[str] = []

    def loader(check: Callable[[object], VocabularyShard]) -> Callable[[str, int], object]:
        def load(name: str, size: int) -> object:
            fetched.append(name)
            return check(payload_json(name, read_payload(bundle.root, name, size),
                                      bundle.root / name))
        return load

    if bundle.vocabulary is None:
        raise SystemExit(f"{bundle.root}: the bundle has no vocabulary")
    words = Vocabulary(ShardReader(bundle.vocabulary.shards.entries, loader(checked_shard)),
                       ShardReader(bundle.vocabulary.spelling.entries,
                                   loader(checked_spelling_shard)))
    searcher.read(text, typing=typing, words=words)
    return sum(sizes[name] for name in set(fetched))


def run_set(corpus: se.Corpus, name: str) -> dict:
    bundle = corpus.bundle
    files = vocabulary_files(bundle)
    raw = {n: (bundle.root / n).read_bytes() for n, _ in files}
    sizes = {n: gzip_size(data) for n, data in raw.items()}
    searcher = Searcher(bundle, encoder="static")
    variants = rt.copies(corpus, name)
    out: dict = {"files": len(files), "bytes": sum(len(d) for d in raw.values()),
                 "gzip": sum(sizes.values()), "queries": {}}
    for variant in ("clean", "slipped", "half"):
        fetched = [read_bytes(bundle, searcher, q.text, rt.TYPING[variant], sizes)
                   for q in variants[variant]]
        reading = [b for b in fetched if b]
        out["queries"][variant] = {
            "queries": len(fetched), "reading": len(reading),
            "median_gzip": int(np.median(reading)) if reading else 0,
            "max_gzip": max(reading, default=0)}
    return out


def render(results: dict) -> str:
    lines = ["# What the site's vocabulary costs", "",
             f"Reproduce: `python bench/vocabulary_bytes.py`. Measured {results['run']}. "
             "Bytes as a static host sends them (gzip). Per kind of query: how many read "
             "any vocabulary shard, and the bytes of the shards such a query reads "
             "(median / largest).", "",
             "| set | vocabulary files | raw | gzip | clean: reading, median / max "
             "| slipped | half-typed |", "|---" * 7 + "|"]
    for name, s in results["sets"].items():
        cells = [f"{q['reading']} of {q['queries']}, {q['median_gzip'] / 1000:.1f} / "
                 f"{q['max_gzip'] / 1000:.1f} kB" for q in s["queries"].values()]
        lines.append(f"| {name} | {s['files']} | {s['bytes'] / 1000:.0f} kB "
                     f"| {s['gzip'] / 1000:.0f} kB | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "vocabulary_bytes",
                       lambda corpus, name, embedder: run_set(corpus, name), render,
                       sets=rt.EARLIER_SETS)


if __name__ == "__main__":
    sys.exit(main())

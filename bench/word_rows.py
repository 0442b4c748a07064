"""Cost model: query-table rows keyed by the site's words instead of its tokens.

Format 7 names each row by its token id (bundle/table.py), so a browser must split a
query's words into tokens before it knows which rows to ask for, and to split them it
fetches the word-piece shards of the model's vocabulary (bundle/wordpieces.py): one
step, and on a first query some 40-80 kB, before the rows. BERT's tokenizer splits text
into words (normalizer, then pre-tokenizer) before WordPiece splits each word, and its
special tokens are constant rows, so a query vector is exactly the sum of its words'
summed rows. The alternative weighed here: the build writes, for each word of the site,
the sum of its tokens' rows (int16, which holds any sum of up to 258 int8 rows) in a
file named from the word, and a catalog filter (a Bloom filter) says which words have
one; or, with no filter, the words' rows go in buckets (a word's bucket from a hash of
the word, about `k` words a bucket), each bucket a file that names its words by hash, so
a query reads its words' buckets and learns from them which words the site lacks. A
query then asks for its site words' rows at once, beside its keyword shards, and splits
only its other words with the word pieces.

Per set: the site's distinct words and what their rows weigh beside the token table's;
the filter's bytes at 1 % and 0.1 % false positives; and over the set's queries, each
as a first query with nothing cached: the share of query words the site uses, the
queries made only of site words (they need no word piece), and the median bytes of word
pieces and rows such a query fetches now, with word rows and a filter, and with buckets
of word rows (rows binary, as served; word pieces gzip).

    python bench/word_rows.py [--sets fastapi,mkdocs,manpages,npm,manshort,postgres,python]

Writes bench/results/word_rows.{json,md}.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from site_pieces import query_bytes, shard_sizes, words_of  # noqa: E402

from mkdocs_semantic.constants import ROW_CHECK_BYTES  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

FALSE_POSITIVES = (0.01, 0.001)
BUCKET_WORDS = (1, 2, 4)
"""Words a bucket holds on average, per bucket variant."""
WORD_HASH_BYTES = 4
"""Bytes a bucket names each of its words by."""


def bloom_bytes(items: int, rate: float) -> int:
    """A Bloom filter's bytes for `items` at false-positive `rate` (optimal hash count)."""
    return math.ceil(-items * math.log(rate) / math.log(2) ** 2 / 8)


def bucket_of(word: str, buckets: int) -> int:
    return int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little") % buckets


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    encoder = Searcher(corpus.bundle, None, encoder="static").static
    tokenizer = encoder.tokenizer
    held = set(encoder.table.token_ids.tolist())
    dim = encoder.table.dim
    token_row, word_row = dim + ROW_CHECK_BYTES, 2 * dim + ROW_CHECK_BYTES
    site: set[str] = set()
    for chunk in corpus.bundle.chunks:
        site.update(words_of(tokenizer, " ".join([chunk.title, *chunk.path, chunk.text])))

    def tokens(words: list[str]) -> set[int]:
        ids: set[int] = set()
        for word in words:
            ids.update(i for i in tokenizer.encode(word, add_special_tokens=False).ids
                       if i in held)
        return ids

    tokenizer_json = json.loads((corpus.bundle.root / corpus.bundle.catalog["encoders"]
                                 ["static"]["tokenizer"][0]).read_text(encoding="utf-8"))
    prefix = tokenizer_json["model"].get("continuing_subword_prefix") or ""
    firsts, sizes = shard_sizes(tokenizer_json, se.CACHE / "word_rows.json")
    per_query: dict[str, list[float]] = {key: [] for key in (
        "site_share", "pieces_now", "rows_now", "pieces_words", "rows_words")}
    bucket_sizes = {}
    for k in BUCKET_WORDS:
        count = math.ceil(len(site) / k)
        held_by = np.bincount([bucket_of(w, count) for w in site], minlength=count)
        bucket_sizes[k] = (count, held_by * (word_row + WORD_HASH_BYTES) + ROW_CHECK_BYTES)
        per_query[f"buckets_{k}"] = []
    only_site = 0
    for query in corpus.queries:
        words = words_of(tokenizer, query.text)
        ours = sorted({w for w in words if w in site})
        others = [w for w in words if w not in site]
        only_site += not others
        per_query["site_share"].append(len([w for w in words if w in site]) / max(len(words), 1))
        per_query["pieces_now"].append(query_bytes(tokenizer, prefix, firsts, sizes, query.text))
        per_query["rows_now"].append(len(tokens(words)) * token_row)
        per_query["pieces_words"].append(
            query_bytes(tokenizer, prefix, firsts, sizes, " ".join(others)) if others else 0)
        per_query["rows_words"].append(len(ours) * word_row + len(tokens(others)) * token_row)
        for k, (count, bytes_of) in bucket_sizes.items():
            read = {bucket_of(w, count) for w in words}
            per_query[f"buckets_{k}"].append(int(sum(bytes_of[b] for b in read))
                                             + len(tokens(others)) * token_row)
    return {
        "queries": len(corpus.queries), "site_words": len(site), "table_rows": len(held),
        "table_bytes": len(held) * token_row, "word_row_bytes": len(site) * word_row,
        "filter_bytes": {str(rate): bloom_bytes(len(site), rate) for rate in FALSE_POSITIVES},
        "only_site_words": only_site,
        "buckets": {str(k): count for k, (count, _) in bucket_sizes.items()},
        "median": {key: float(np.median(values)) for key, values in per_query.items()},
    }


def render(results: dict) -> str:
    lines = ["# Cost model: query-table rows keyed by the site's words", "",
             f"Reproduce: `python bench/word_rows.py`. Measured {results['run']}. Each query as "
             "a first query (nothing cached), medians over the set's queries; the model is in "
             "the bench's docstring.", "",
             "| set | site words / table rows | word rows / token rows, all files | filter 1 % / "
             "0.1 % | query words the site uses | queries of site words only | pieces now / "
             "with word rows | rows now / with word rows |", "|---|---|---|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        m = s["median"]
        lines.append(
            f"| {name} | {s['site_words']:,} / {s['table_rows']:,} | "
            f"{s['word_row_bytes'] / 1e6:.1f} / {s['table_bytes'] / 1e6:.1f} MB | "
            f"{s['filter_bytes']['0.01'] / 1000:.1f} / "
            f"{s['filter_bytes']['0.001'] / 1000:.1f} kB | "
            f"{m['site_share']:.0%} | {s['only_site_words']} of {s['queries']} | "
            f"{m['pieces_now'] / 1000:.1f} / {m['pieces_words'] / 1000:.1f} kB | "
            f"{m['rows_now'] / 1000:.1f} / {m['rows_words'] / 1000:.1f} kB |")
    lines += ["", "Buckets of word rows, no filter: files, and the median query's rows (its "
              "buckets, and the token rows of the words the site lacks, whose word pieces it "
              "still reads).", "",
              "| set | " + " | ".join(f"{k} word(s) a bucket" for k in BUCKET_WORDS) + " |",
              "|---|" + "---|" * len(BUCKET_WORDS)]
    for name, s in results["sets"].items():
        cells = [f"{s['buckets'][str(k)]:,} files, "
                 f"{s['median'][f'buckets_{k}'] / 1000:.1f} kB" for k in BUCKET_WORDS]
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "word_rows",
                        "fastapi,mkdocs,manpages,npm,manshort,postgres,python", run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())

"""Trial: the static encoder's word pieces cut to the site's own tokens.

A browser tokenizes a query with the model's WordPiece vocabulary, fetched by need in
shards keyed by the words' first characters (bundle/wordpieces.py): 30,522 pieces, of
which the query table has rows for a fifth to a third. A piece without a row adds
nothing to a query vector, yet every piece is shipped so that a query splits exactly
as the model splits it. Here the vocabulary keeps only the pieces the table has rows
for, the single characters (alone and as continuations, so that no word becomes
`[UNK]`) and the special tokens. A word of the site splits as before (every piece of
its split has a row, and no longer piece the site lacks can be chosen); a word the site
does not use may split into site pieces that have rows (`lifespan`: `life`, `##span`)
where the whole vocabulary gave one piece without a row.

Variants, each on every site set, by query subset, static encoder only (the model's
tokenizer is its own): `shipped`; `site pieces` (the cut vocabulary splits queries;
the words the spelling rules take for the model's own stay the whole vocabulary's);
`site pieces, site words` (those too from the cut vocabulary). Figures: vector and
hybrid MRR@10, and the gzip bytes of the pieces shards, all of them and those a query
reads with nothing cached (median over the set's queries).

    python bench/site_pieces.py [--sets fastapi,mkdocs,manpages,npm,manshort,postgres,python]

Writes bench/results/site_pieces.{json,md}.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.names import json_bytes  # noqa: E402
from mkdocs_semantic.bundle.word_rows import words_of  # noqa: E402
from mkdocs_semantic.bundle.wordpieces import wordpiece_shards  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402


def cut_tokenizer(data: dict, keep_ids: set[int]) -> dict:
    """`data` (a tokenizer.json) with its WordPiece vocabulary cut to `keep_ids`, the
    single characters and the special tokens; ids unchanged."""
    model = data["model"]
    prefix = model.get("continuing_subword_prefix") or ""
    specials = {t["content"] for t in data.get("added_tokens", [])}
    vocab = {piece: i for piece, i in model["vocab"].items()
             if i in keep_ids or piece in specials or len(piece) == 1
             or (prefix and piece.startswith(prefix) and len(piece) == len(prefix) + 1)}
    return {**data, "model": {**model, "vocab": vocab}}


def shard_sizes(data: dict, path: Path) -> tuple[list[str], list[int]]:
    """(first keys, gzip bytes) of the pieces shards of tokenizer `data`."""
    path.write_text(json.dumps(data), encoding="utf-8")
    shards = wordpiece_shards(path)
    assert shards is not None
    return ([first for first, _ in shards.shards],
            [len(gzip.compress(json_bytes(shard), 6)) for _, shard in shards.shards])


def query_bytes(tokenizer, prefix: str, firsts: list[str], sizes: list[int],
                text: str) -> int:
    """The gzip bytes of the pieces shards the query's words read (wordpieces.js keys)."""
    keys = set()
    for word in words_of(tokenizer, text):
        keys |= {word[0], word[:2], *(prefix + c for c in word[1:])}
    shards = {int(np.searchsorted(firsts, key, side="right")) - 1 for key in keys}
    return sum(sizes[s] for s in shards if s >= 0)


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    from tokenizers import Tokenizer

    groups = se.query_subsets(corpus)
    searcher = Searcher(corpus.bundle, None, encoder="static")
    static = searcher.static
    whole = json.loads((corpus.bundle.root / corpus.bundle.catalog["encoders"]["static"]
                        ["tokenizer"][0]).read_text(encoding="utf-8"))
    cut = cut_tokenizer(whole, set(static.table.token_ids.tolist()))
    prefix = whole["model"].get("continuing_subword_prefix") or ""
    scratch = se.CACHE / "site_pieces.json"
    out: dict = {"queries": {g: len(q) for g, q in groups.items()},
                 "pieces": {"whole": len(whole["model"]["vocab"]),
                            "cut": len(cut["model"]["vocab"])},
                 "rows": {}, "bytes": {}}
    shipped_tokenizer = static.tokenizer
    cut_tokenizer_ = Tokenizer.from_str(json.dumps(cut))
    cut_tokenizer_.no_padding()
    cut_tokenizer_.no_truncation()
    for label, data, tokenizer in (("shipped", whole, shipped_tokenizer),
                                   ("site pieces", cut, cut_tokenizer_)):
        firsts, sizes = shard_sizes(data, scratch)
        per_query = [query_bytes(tokenizer, prefix, firsts, sizes, q.text)
                     for q in corpus.queries]
        out["bytes"][label] = {"all_gzip": sum(sizes), "shards": len(sizes),
                               "query_gzip_median": int(np.median(per_query))}
    site_words = frozenset(p for p in cut["model"]["vocab"] if p.isalpha() and p.islower())
    variants = (("shipped", shipped_tokenizer, None),
                ("site pieces", cut_tokenizer_, None),
                ("site pieces, site words", cut_tokenizer_, site_words))
    for label, tokenizer, words in variants:
        static.tokenizer = tokenizer
        searcher._model_words = words
        try:
            out["rows"][label] = se.subset_mrrs(corpus, searcher, groups, ("vector", "hybrid"))
        finally:
            static.tokenizer = shipped_tokenizer
            searcher._model_words = None
    return out


def render(results: dict) -> str:
    lines = ["# Trial: the word pieces cut to the site's own tokens", "",
             f"Reproduce: `python bench/site_pieces.py`. Measured {results['run']}. Static "
             "encoder, MRR@10 by query subset; pieces shards as gzip bytes (all of them, and "
             "the median query's with nothing cached); the variants are in the bench's "
             "docstring.", "",
             "| set | variant | vector | hybrid |", "|---|---|---|---|"]
    for name, s in results["sets"].items():
        for label, modes in s["rows"].items():
            cells = se.subset_cells(modes, s["queries"])
            lines.append(f"| {name} | {label} | {cells[0]} | {cells[1]} |")
    lines += ["", "| set | pieces whole / cut | shards whole / cut | all gzip whole / cut | "
              "median query gzip whole / cut |", "|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        w, c = s["bytes"]["shipped"], s["bytes"]["site pieces"]
        lines.append(f"| {name} | {s['pieces']['whole']:,} / {s['pieces']['cut']:,} | "
                     f"{w['shards']} / {c['shards']} | {w['all_gzip']:,} / {c['all_gzip']:,} | "
                     f"{w['query_gzip_median']:,} / {c['query_gzip_median']:,} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "site_pieces",
                        "fastapi,mkdocs,manpages,npm,manshort,postgres,python", run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())

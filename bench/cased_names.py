"""Names typed with capitals: keyword and hybrid ranking with and without the case rule.

The keyword index keys the forms sections write with a capital letter; a query that
names something typed with capitals (bundle/cased_forms.py's `cased_words`: `RETURNING *`,
`Depends`, `TLS Termination Proxy`) keeps a word's full score only in the sections that
write it so. Per set (built as bench/static_encoder.py builds it) and query encoder,
MRR@10 of `Searcher.answer` (as the product reads queries) in keyword and hybrid mode,
with the rule (as shipped) and without it (no cased words asked, on the same bundle),
on the paraphrase and exact subsets, the slipped copies and the half-typed copies with
the complete queries they are cut from (bench/readers_typing.py's copies). And what the
forms cost: the keyword index's keys, shards and bytes (gzip) with and without them.

    python bench/cased_names.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/cased_names.{json,md}.
"""

from __future__ import annotations

import gzip
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402

import mkdocs_semantic.bundle.lexical as lexical  # noqa: E402
from mkdocs_semantic.bundle.cased_forms import capitalized  # noqa: E402
from mkdocs_semantic.bundle.format import LEXICAL_BUCKET_BYTES  # noqa: E402
from mkdocs_semantic.bundle.lexical import LexicalIndex  # noqa: E402
from mkdocs_semantic.bundle.names import json_bytes  # noqa: E402
from mkdocs_semantic.bundle.reader import Bundle  # noqa: E402
from mkdocs_semantic.bundle.writer import lexical_fields  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

MODES = ("lexical", "hybrid")
RULES = ("without", "with")
SUBSETS = ("paraphrase", "exact", "slipped", "complete", "half")


def variants(corpus: se.Corpus, name: str) -> dict[str, tuple[list[se.Query], bool]]:
    """Query copies by name, each with whether it is read as the reader types."""
    copies = rt.copies(corpus, name)
    out = {group: ([q for q in copies["clean"] if q.group == group], False)
           for group in corpus.groups}
    out["slipped"] = (copies["slipped"], False)
    out["complete"] = (copies["complete"], True)
    out["half"] = (copies["half"], True)
    return out


def index_cost(bundle: Bundle) -> dict:
    """Keys, shards and gzip bytes of the keyword shards the writer would cut from the
    index of `bundle`'s chunks, with and without the forms."""
    index = LexicalIndex.build([lexical_fields(c) for c in bundle.chunks])
    out = {}
    for rule in RULES:
        postings = {key: value for key, value in index.postings.items()
                    if rule == "with" or not capitalized(key)}
        plain = LexicalIndex(count=index.count, scale=index.scale, postings=postings)
        shards = [gzip.compress(json_bytes(s)) for s in plain.to_shards(
            bundle.pages.starts, target_bytes=LEXICAL_BUCKET_BYTES,
            put_tail=lambda data: ["tail", len(data)])]
        total = sum(len(s) for s in shards)
        out[rule] = {"keys": len(postings), "shards": len(shards), "shard_bytes_gzip": total,
                     "mean_shard_gzip": round(total / max(1, len(shards)))}
    return out


@contextmanager
def case_rule(rule: str) -> Iterator[None]:
    """The searcher's case rule as shipped (`with`), or asking no cased words (`without`)."""
    shipped = lexical.cased_words
    if rule == "without":
        lexical.cased_words = lambda query: []
    try:
        yield
    finally:
        lexical.cased_words = shipped


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    copies = variants(corpus, name)
    out: dict = {"queries": {k: len(v[0]) for k, v in copies.items()}, "encoders": {},
                 "cost": index_cost(corpus.bundle), "moved": {}}
    for encoder in rt.ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        rows: dict = {}
        for rule in RULES:
            with case_rule(rule):
                for mode in MODES:
                    for variant, (queries, typing) in copies.items():
                        rows.setdefault(mode, {}).setdefault(variant, {})[rule], _ = rt.score(
                            corpus, searcher, queries, mode, typing=typing, as_typed=False)
        out["encoders"][encoder] = rows
        out["moved"][encoder] = moved(corpus, searcher)
    return out


def first_relevant(corpus: se.Corpus, searcher: Searcher, query: se.Query,
                   mode: str) -> int | None:
    """The rank of the query's first relevant page in its top 10, or None."""
    answer = searcher.answer(query.text, mode=mode, top_k=corpus.top_k)
    return se.first_relevant(list(dict.fromkeys(r.url for r in answer.results)), query.relevant)


def moved(corpus: se.Corpus, searcher: Searcher) -> list[dict]:
    """The clean queries whose first relevant page the rule moves, per mode."""
    out = []
    for query in corpus.queries:
        ranks = {}
        for rule in RULES:
            with case_rule(rule):
                ranks[rule] = {mode: first_relevant(corpus, searcher, query, mode)
                               for mode in MODES}
        if ranks["with"] != ranks["without"]:
            out.append({"query": query.text, "group": query.group, **ranks})
    return out


def render(results: dict) -> str:
    lines = ["# Names typed with capitals: with and without the case rule", "",
             f"Reproduce: `python bench/cased_names.py`. Measured {results['run']}. "
             "MRR@10 through `Searcher.answer` (queries read as the product reads them), "
             "without the rule / with it, on the same bundle. Subsets: paraphrase and "
             "exact (clean), slipped (every slipped copy), complete and half (the "
             "half-typed copies and the queries they are cut from, read as typed in a "
             "search box).", "",
             "| set | encoder | mode | " + " | ".join(SUBSETS) + " |",
             "|---" * 8 + "|"]
    for name, s in results["sets"].items():
        for encoder, modes in s["encoders"].items():
            for mode, row in modes.items():
                cells = [f"{row[v]['without']:.3f} / {row[v]['with']:.3f}"
                         if v in row else "-"
                         for v in SUBSETS]
                lines.append(f"| {name} | {encoder} | {mode} | " + " | ".join(cells) + " |")
    lines += ["", "Clean queries whose first relevant page the rule moves (rank in the top 10, "
              "`-` when none; without -> with):", ""]
    for name, s in results["sets"].items():
        for encoder, queries in s["moved"].items():
            for q in queries:
                ranks = ", ".join(
                    f"{mode} {q['without'][mode] or '-'} -> {q['with'][mode] or '-'}"
                    for mode in MODES)
                lines.append(f"- {name}, {encoder}, {q['group']}: `{q['query']}`: {ranks}")
    lines += ["", "What the forms cost in the keyword index (keys, shards of the writer's "
              f"{LEXICAL_BUCKET_BYTES // 1024} kB target, gzip bytes of every shard, mean shard), "
              "without / with:", "",
              "| set | keys | shards | every shard, gzip | mean shard, gzip |",
              "|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        c = s["cost"]
        lines.append(f"| {name} | {c['without']['keys']:,} / {c['with']['keys']:,} "
                     f"| {c['without']['shards']:,} / {c['with']['shards']:,} "
                     f"| {c['without']['shard_bytes_gzip'] / 1e6:.2f} / "
                     f"{c['with']['shard_bytes_gzip'] / 1e6:.2f} MB "
                     f"| {c['without']['mean_shard_gzip']:,} / "
                     f"{c['with']['mean_shard_gzip']:,} B |")
    lines.append("")
    return "\n".join(lines)


def main() -> int:
    return rt.run_sets(__doc__, "cased_names", run_set, render, sets=rt.EARLIER_SETS)


if __name__ == "__main__":
    sys.exit(main())

"""What readers type: the relevance sets' queries clean, with slips and half-typed.

Per set (built as bench/static_encoder.py builds it) and query encoder (static, the
default; transformer), MRR@10 of `Searcher.rank` in vector, keyword and hybrid mode on
three copies of the queries: as written, with slips (bench/relevance/slips.py: about half
of the longer words mistyped), and half-typed (the last word cut to its first half; only
the queries that `slips.half_typed` cuts, compared with the same queries complete).
Targets of the typing issue: slipped hybrid >= 0.95 x clean, half-typed >= 0.9 x complete.

    python bench/readers_typing.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/readers_typing.{json,md}.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.model.spec import default_model_spec  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

ENCODERS = ("static", "transformer")
MODES = ("vector", "lexical", "hybrid")
SLIPPED_TARGET = 0.95
HALF_TARGET = 0.9
QUERY_FILES = {"manshort": "manpages"}


def copies(corpus: se.Corpus, name: str) -> dict[str, list[se.Query]]:
    """The set's queries as written, slipped, and (complete and half-typed) for the
    queries the half-typed files hold, all with the same relevant pages."""
    prefix = QUERY_FILES.get(name, name)
    out: dict[str, list[se.Query]] = {"clean": corpus.queries, "slipped": [],
                                       "complete": [], "half": []}
    for group in corpus.groups:
        clean = [q for q in corpus.queries if q.group == group]
        slipped = se.read_tsv(HERE / "relevance" / f"{prefix}-{group}-slipped.tsv", group)
        out["slipped"] += slipped
        for half in se.read_tsv(HERE / "relevance" / f"{prefix}-{group}-half.tsv", group):
            # a half-typed query is the start of the query it was cut from
            whole = next(q for q in clean
                         if q.relevant == half.relevant and q.text.startswith(half.text))
            out["complete"].append(whole)
            out["half"].append(half)
    return out


def score(corpus: se.Corpus, searcher: Searcher, queries: list[se.Query], mode: str) -> float:
    total = 0.0
    for query in queries:
        vector = searcher.embed(query.text) if mode != "lexical" else None
        results = searcher.rank(query=query.text, vector=vector, mode=mode,
                                top_k=corpus.top_k, filters=None, min_score=None)
        total += se.mrr_at_10(list(dict.fromkeys(r.url for r in results)), query.relevant)
    return round(total / len(queries), 4) if queries else 0.0


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    variants = copies(corpus, name)
    out: dict = {"queries": {k: len(v) for k, v in variants.items()}, "encoders": {}}
    for encoder in ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        out["encoders"][encoder] = {
            mode: {variant: score(replace(corpus, queries=queries), searcher, queries, mode)
                   for variant, queries in variants.items()}
            for mode in MODES}
    return out


def render(results: dict) -> str:
    lines = ["# What readers type: clean, slipped and half-typed queries", "",
             f"Reproduce: `python bench/readers_typing.py`. Measured {results['run']}. "
             "MRR@10 through `Searcher.rank`; slipped: bench/relevance/*-slipped.tsv; "
             "half-typed: the queries of *-half.tsv against the same queries complete. "
             f"Targets: slipped hybrid >= {SLIPPED_TARGET} x clean, half-typed >= "
             f"{HALF_TARGET} x complete.", "",
             "| set | encoder | mode | clean | slipped | slipped / clean | complete "
             "| half-typed | half / complete |", "|---" * 9 + "|"]
    for name, s in results["sets"].items():
        for encoder, modes in s["encoders"].items():
            for mode, r in modes.items():
                slip = r["slipped"] / r["clean"] if r["clean"] else 0.0
                half = r["half"] / r["complete"] if r["complete"] else 0.0
                mark = (f" {'ok' if slip >= SLIPPED_TARGET else 'BELOW'}",
                        f" {'ok' if half >= HALF_TARGET else 'BELOW'}") if mode == "hybrid" \
                    else ("", "")
                lines.append(f"| {name} | {encoder} | {mode} | {r['clean']:.3f} "
                             f"| {r['slipped']:.3f} | {slip:.2f}{mark[0]} "
                             f"| {r['complete']:.3f} | {r['half']:.3f} | {half:.2f}{mark[1]} |")
    lines += ["", "Queries: " + "; ".join(
        f"{n} {s['queries']['clean']} ({s['queries']['half']} half-typed)"
        for n, s in results["sets"].items()), ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="fastapi,mkdocs,manpages,npm,postgres,python")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    wanted = se.site_sets(parser, args.sets)
    spec = default_model_spec()
    embedder = OnnxEmbedder(spec)
    loaders = se.set_loaders(spec, embedder, se.SHARED / "bench" / "scifact")
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "sets": {}}
    for name in wanted:
        print(f"{name}: loading", file=sys.stderr)
        results["sets"][name] = run_set(loaders[name](), name, embedder)
    write_results(args.out, "readers_typing", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What readers type: the relevance sets' queries clean, with slips and half-typed.

Per set (built as bench/static_encoder.py builds it) and query encoder (static, the
default; transformer), MRR@10 of `Searcher.rank` in vector, keyword and hybrid mode on
three copies of the queries: as written, with slips (bench/relevance/slips.py: about half
of the longer words mistyped), and half-typed (the last word cut to its first half; only
the queries that `slips.half_typed` cuts, compared with the same queries complete).
Targets of the typing issue: slipped hybrid >= 0.95 x clean, half-typed >= 0.9 x complete.

    python bench/readers_typing.py [--sets SETS]  (default: the eleven site sets, `SETS`)

Writes bench/results/readers_typing.{json,md}.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
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
CLEAN_SLACK = 0.005
QUERY_FILES = {"manshort": "manpages"}
EARLIER_SETS = "fastapi,mkdocs,manpages,npm,postgres,python"
"""The six sets the earlier typing trials were measured on, their default still."""
CASED_TRIAL_SETS = EARLIER_SETS + ",apache,sqlite"
"""The eight sets the capital-typed completion trial was measured on, its default."""
NINE_SETS = CASED_TRIAL_SETS + ",django"
"""The nine sets measured before Sphinx's docs were: the trials' recorded default."""
SETS = NINE_SETS + ",sphinx,sqlalchemy"
"""The sets the typing benches measure unless told (`--sets`)."""


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


TYPING = {"clean": False, "slipped": False, "complete": True, "half": True}
"""Whether the reader is still typing the query's last word (the half-typed copy, and
the complete queries it is compared with, are read as a search box reads as you type)."""


def score(corpus: se.Corpus, searcher: Searcher, queries: list[se.Query], mode: str, *,
          typing: bool, as_typed: bool) -> tuple[float, int]:
    """MRR@10 of `Searcher.answer`, and how many queries it read otherwise than typed."""
    total, changed = 0.0, 0
    for query in queries:
        answer = searcher.answer(query.text, mode=mode, top_k=corpus.top_k, typing=typing,
                                 as_typed=as_typed)
        changed += answer.reading.text != query.text
        total += se.mrr_at_10(list(dict.fromkeys(r.url for r in answer.results)),
                              query.relevant)
    return (round(total / len(queries), 4) if queries else 0.0), changed


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    variants = copies(corpus, name)
    out: dict = {"queries": {k: len(v) for k, v in variants.items()}, "encoders": {}}
    for encoder in ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        out["encoders"][encoder] = {}
        for mode in MODES:
            row: dict = {}
            for variant, queries in variants.items():
                typed, _ = score(corpus, searcher, queries, mode, typing=TYPING[variant],
                                 as_typed=True)
                read, changed = score(corpus, searcher, queries, mode,
                                      typing=TYPING[variant], as_typed=False)
                row[variant] = read
                row[f"{variant}_as_typed"] = typed
                out.setdefault("read_otherwise", {})[variant] = changed
            out["encoders"][encoder][mode] = row
    return out


def render(results: dict) -> str:
    lines = ["# What readers type: clean, slipped and half-typed queries", "",
             f"Reproduce: `python bench/readers_typing.py`. Measured {results['run']}. "
             "MRR@10 through `Searcher.answer`: as typed (`as_typed=True`, what every "
             "reader did before queries were read) and read (slipped words corrected; "
             "the half-typed copy and the complete queries it is compared with read while "
             "typing, so a half-typed last word is completed). Slipped: "
             "bench/relevance/*-slipped.tsv; half-typed: the queries of *-half.tsv against "
             f"the same queries complete. Targets: slipped hybrid >= {SLIPPED_TARGET} x "
             f"clean, half-typed >= {HALF_TARGET} x complete, clean queries within "
             f"{CLEAN_SLACK} of as typed.", "",
             "| set | encoder | mode | clean typed / read | slipped typed / read "
             "| slipped / clean | complete typed / read | half typed / read "
             "| half / complete |", "|---" * 9 + "|"]
    for name, s in results["sets"].items():
        for encoder, modes in s["encoders"].items():
            for mode, r in modes.items():
                slip = r["slipped"] / r["clean"] if r["clean"] else 0.0
                half = r["half"] / r["complete"] if r["complete"] else 0.0
                hybrid = mode == "hybrid"
                marks = (verdict(slip >= SLIPPED_TARGET, hybrid),
                         verdict(half >= HALF_TARGET, hybrid),
                         verdict(r["clean"] >= r["clean_as_typed"] - CLEAN_SLACK, hybrid))
                lines.append(
                    f"| {name} | {encoder} | {mode} "
                    f"| {r['clean_as_typed']:.3f} / {r['clean']:.3f}{marks[2]} "
                    f"| {r['slipped_as_typed']:.3f} / {r['slipped']:.3f} "
                    f"| {slip:.2f}{marks[0]} "
                    f"| {r['complete_as_typed']:.3f} / {r['complete']:.3f} "
                    f"| {r['half_as_typed']:.3f} / {r['half']:.3f} | {half:.2f}{marks[1]} |")
    lines += ["", "Queries (and how many the product read otherwise than typed): " + "; ".join(
        f"{n}: " + ", ".join(f"{k} {s['queries'][k]} ({s['read_otherwise'][k]})"
                             for k in ("clean", "slipped", "complete", "half"))
        for n, s in results["sets"].items()), ""]
    return "\n".join(lines)


def verdict(met: bool, shown: bool) -> str:
    return (" ok" if met else " BELOW") if shown else ""


def run_sets(doc: str, name: str, measure: Callable[[se.Corpus, str, OnnxEmbedder], dict],
             render_results: Callable[[dict], str], *, sets: str = SETS) -> int:
    """The command line of the typing benches: `measure(corpus, set name, embedder)` per
    set of `--sets` (`sets` by default), written to `--out` as NAME.{json,md}."""
    args, wanted, embedder, loaders = sets_command(doc, sets=sets)
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "sets": {}}
    for set_name in wanted:
        print(f"{set_name}: loading", file=sys.stderr)
        results["sets"][set_name] = measure(loaders[set_name](), set_name, embedder)
    write_results(args.out, name, results, render_results(results))
    return 0


def sets_command(doc: str, *, sets: str = SETS,
                 options: Callable[[argparse.ArgumentParser], object] = lambda parser: None,
                 ) -> tuple[argparse.Namespace, list[str], OnnxEmbedder, dict]:
    """`--sets` (the docs sets, `sets` by default), `--out` and what `options` adds to
    the parser: the parsed arguments, the sets asked for, the model, and each set's
    loader (bench/static_encoder.py's)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sets", default=sets)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    options(parser)
    args = parser.parse_args()
    wanted = se.site_sets(parser, args.sets)
    spec = default_model_spec()
    embedder = OnnxEmbedder(spec)
    return args, wanted, embedder, se.set_loaders(spec, embedder, se.SHARED / "bench" / "scifact")


def main() -> int:
    return run_sets(__doc__, "readers_typing", run_set, render)


if __name__ == "__main__":
    sys.exit(main())

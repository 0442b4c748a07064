"""Word pieces beside the word rows: the steps a query spares and the bytes it pays.

With word rows (format 12) a query's word needs the tokenizer's word pieces only if the
site lacks it, which its rows file tells. Asked for once the rows tell, the pieces and
then the tokens' rows wait a step each; asked for beside the rows (the client's default,
not under Save-Data), they wait for nothing, and a word the site has costs its pieces'
bytes. This bench runs both (bench/query_rounds.mjs: the browser engine in Node against
each set's bundle served from 127.0.0.1, every answer held 100 ms, the page's hints and
opening as a built page gives them) on each set's clean and slipped queries:

- as first queries (a new engine each, no idle prefetch);
- in order on one engine, the idle prefetch running between queries (a reader who
  reads the results): the later queries;
- in order on one engine with no idle prefetch (a reader who types one query after
  another): the later queries back to back, where a later query's new words find no
  pieces prefetched.

Per variant: the queries by steps, the median and mean bytes sent, and the mean of the
modeled time (steps x 40 ms, plus the bytes sent at 20 Mbit/s: bench/compare's model).

    python bench/pieces_beside_rows.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]
        [--out DIR]

Writes <out>/pieces_beside_rows.{json,md} (bench/results unless --out).
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from compare_lib.report import modeled_ms  # noqa: E402
from query_rounds import QUERY_ROUNDS, measure  # noqa: E402

from mkdocs_semantic.bundle.reader import read_catalog, read_manifest  # noqa: E402
from mkdocs_semantic.plugin.hints import bundle_hints  # noqa: E402

VARIANTS = {"beside the rows (ships)": [], "once the rows tell": ["--no-guess-pieces"]}
PASSES = {  # pass: query_rounds.mjs's prefetch, its options, and whether the first query counts
    "first": ("off", ["--cold-each"], True),
    "later": ("on", [], False),
    "back to back": ("off", [], False),
}


def page_hints(bundle: Path) -> str:
    """The hints the plugin writes into a page of `bundle`'s site, as JSON."""
    catalog = read_catalog(bundle, read_manifest(bundle))
    pieces = catalog["encoders"]["static"]["pieces"]["keyed"]["hash"]
    return json.dumps(dict(bundle_hints(bundle, pieces=pieces).items()))


def figures(queries: list[dict]) -> dict:
    sent = [q["sent"] for q in queries]
    return {"queries": len(queries),
            "steps": dict(sorted(Counter(q["rounds"] for q in queries).items())),
            "steps_mean": statistics.fmean(q["rounds"] for q in queries),
            "sent_median": statistics.median(sent), "sent_mean": statistics.fmean(sent),
            "modeled_mean_ms": statistics.fmean(modeled_ms(q["rounds"], q["sent"])
                                                for q in queries)}


def measure_passes(bundle: Path, texts: list[str], variants: dict[str, tuple[list[str], Path]],
                   passes: dict, summarize: Callable[[list[dict]], dict] = figures,
                   hints_json: str | None = None) -> dict:
    """Per variant (label: its query_rounds.mjs options and script) and pass (`PASSES`'
    shape), `summarize` of the queries the pass counts, `texts` asked with the page's
    hints of `bundle` (`hints_json` when given: a bundle this checkout cannot read)."""
    out: dict = {}
    hints = ["--page-hints", hints_json or page_hints(bundle)]
    with tempfile.TemporaryDirectory() as tmp:
        queries_path = query_file(Path(tmp), texts)
        for label, (options, script) in variants.items():
            out[label] = {}
            for when, (prefetch, how, first_counts) in passes.items():
                queries = measure(bundle, queries_path, prefetch, [*how, *hints, *options],
                                  script=script)["queries"]
                out[label][when] = summarize(queries if first_counts else queries[1:])
    return out


def run_kind(bundle: Path, texts: list[str]) -> dict:
    return measure_passes(bundle, texts, {label: (options, QUERY_ROUNDS)
                                          for label, options in VARIANTS.items()}, PASSES)


def query_kinds(corpus: se.Corpus) -> dict[str, list[str]]:
    """The set's queries by kind: clean, and slipped where the set has slipped copies."""
    kinds = {"clean": [q.text for q in corpus.queries]}
    slipped = [HERE / "relevance" / f"{corpus.name}-{g}-slipped.tsv" for g in corpus.groups]
    if all(path.is_file() for path in slipped) and slipped:
        kinds["slipped"] = [q.text for path in slipped for q in se.read_tsv(path, "slipped")]
    return kinds


def query_file(folder: Path, texts: list[str]) -> Path:
    """`texts` one a line in `folder`, as query_rounds.mjs reads them."""
    path = folder / "queries.txt"
    path.write_text("\n".join(t.replace("\n", " ") for t in texts) + "\n", encoding="utf-8")
    return path


def run_set(corpus: se.Corpus, name: str, _embedder) -> dict:
    return {"chunks": len(corpus.bundle.chunks),
            "kinds": {kind: run_kind(corpus.bundle.root, texts)
                      for kind, texts in query_kinds(corpus).items()}}


def render(results: dict) -> str:
    lines = ["# Word pieces beside the word rows", "",
             f"Reproduce: `python bench/pieces_beside_rows.py`. Measured {results['run']}. "
             "Each set's clean and slipped queries, as first queries (a new engine each), "
             "as later queries (in order on one engine, the idle prefetch run between "
             "them) and as later queries back to back (in order, no idle prefetch), with "
             "the word pieces of every new word asked for beside its rows (as "
             "the client ships) and once the rows say the site lacks the word. Steps: the "
             "engine in Node, every answer held 100 ms (the browser adds its worker's); "
             "modeled: steps x 40 ms plus the bytes sent at 20 Mbit/s, the mean per query.",
             "", "| set | kind | queries | variant | "
             + " | ".join(f"{when}: queries by steps | {when}: sent median / mean | "
                          f"{when}: modeled" for when in PASSES) + " |",
             "|---|---|---|---|" + "---|" * 3 * len(PASSES)]
    return "\n".join([*lines, *table_rows(results, PASSES, pass_cells)]) + "\n"


def pass_cells(f: dict) -> list[str]:
    """A pass's figures as table cells: queries by steps, sent median / mean, modeled."""
    return [", ".join(f"{k}: {n}" for k, n in f["steps"].items()),
            f"{f['sent_median'] / 1000:.1f} / {f['sent_mean'] / 1000:.1f} kB",
            f"{f['modeled_mean_ms']:.0f} ms"]


def table_rows(results: dict, passes, cells) -> list[str]:
    """One table row per set, kind and variant: `cells(figures)` of each of `passes`."""
    rows = []
    for name, s in results["sets"].items():
        for kind, variants in s["kinds"].items():
            for label, v in variants.items():
                row = [cell for when in passes for cell in cells(v[when])]
                rows.append(f"| {name} | {kind} | {v['first']['queries']} | {label} | "
                            + " | ".join(row) + " |")
    return rows


if __name__ == "__main__":
    raise SystemExit(se.run_trial(__doc__, "pieces_beside_rows",
                                  "fastapi,mkdocs,manpages,npm,postgres,python", run_set, render))

"""A query's words as typed, scored while it is read: what a corrected query wastes.

The browser engine scores a query as typed while it reads it (spelling), since most
queries are searched as typed. When the reading corrects a word, what the typed query
fetched beyond its bits (the row blocks of its candidates, the fragments of its likely
pages) is wasted. This bench runs the engine of this checkout and of `--before` (a
temporary checkout of that commit: the client before a change) on each set's clean and
slipped queries (bench/query_rounds.mjs: the engine in Node against the set's bundle
served from 127.0.0.1, every answer held 100 ms, the page's hints and opening as a built
page gives them):

- as first queries (a new engine each, no idle prefetch);
- in order on one engine, the idle prefetch running between queries: the later ones.

Per client: the queries by steps, the median and mean bytes sent, the mean bytes of vector
files (index, bits, row blocks) and of fragments, and the mean modeled time (steps x 40
ms plus the bytes at 20 Mbit/s: bench/compare's model).

With `--before-builds` (when the bundle format changed in between) the client before runs
on each set as its own commit builds it (its plugin, this checkout's embedding cache
copied), and the page's hints are those its bench computes.

    python bench/typed_reading.py --before <commit> [--before-builds] [--sets ...] [--out DIR]

Writes <out>/typed_reading.{json,md} (bench/results unless --out).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402
from compare_lib.report import modeled_ms  # noqa: E402
from query_rounds import QUERY_ROUNDS, client_at, measure  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.bundle.reader import read_catalog, read_manifest  # noqa: E402
from mkdocs_semantic.pages.hints import bundle_hints  # noqa: E402

SETS = "fastapi,mkdocs,manpages,npm,postgres,python"
PASSES = {"first": ("off", ["--cold-each"], True), "later": ("on", [], False)}
FILE_KINDS = {"vectors": ("vectors",), "fragments": ("fragments", "parts")}
"""The bundle folders whose bytes the table shows, by column (excerpts: the pages' files
and the long pages' parts)."""
BEFORE_HINTS = """import sys
from pathlib import Path
sys.path.insert(0, 'bench')
try:
    from typed_reading import page_hints
except ImportError:  # a commit before page_hints moved here from the pieces trial
    from pieces_beside_rows import page_hints
print(page_hints(Path(sys.argv[1])))
"""
"""Run in the checkout of `--before`: the page's hints as that commit's bench computes them."""


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


def query_file(folder: Path, texts: list[str]) -> Path:
    """`texts` one a line in `folder`, as query_rounds.mjs reads them."""
    path = folder / "queries.txt"
    path.write_text("\n".join(t.replace("\n", " ") for t in texts) + "\n", encoding="utf-8")
    return path


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


def query_kinds(corpus: se.Corpus) -> dict[str, list[str]]:
    """The set's queries by kind: clean, and slipped where the set has slipped copies."""
    kinds = {"clean": [q.text for q in corpus.queries]}
    slipped = [HERE / "relevance" / f"{corpus.name}-{g}-slipped.tsv" for g in corpus.groups]
    if all(path.is_file() for path in slipped) and slipped:
        kinds["slipped"] = [q.text for path in slipped for q in se.read_tsv(path, "slipped")]
    return kinds


def pass_cells(f: dict) -> list[str]:
    """A pass's figures as table cells: queries by steps, sent median / mean, modeled."""
    return [", ".join(f"{k}: {n}" for k, n in f["steps"].items()),
            f"{f['sent_median'] / 1000:.1f} / {f['sent_mean'] / 1000:.1f} kB",
            f"{f['modeled_mean_ms']:.0f} ms"]


def table_rows(results: dict, passes, cells) -> list[str]:
    """One table row per set, kind and client: `cells(figures)` of each of `passes`."""
    rows = []
    for name, s in results["sets"].items():
        for kind, variants in s["kinds"].items():
            for label, v in variants.items():
                row = [cell for when in passes for cell in cells(v[when])]
                rows.append(f"| {name} | {kind} | {v['first']['queries']} | {label} | "
                            + " | ".join(row) + " |")
    return rows


def pass_figures(queries: list[dict]) -> dict:
    return figures(queries) | {
        f"{kind}_sent_mean": statistics.fmean(
            sum(q["kindSent"].get(folder, 0) for folder in folders) for q in queries)
        for kind, folders in FILE_KINDS.items()}


def built_at(checkout: Path, corpus: se.Corpus, out: Path) -> tuple[Path, str]:
    """`corpus`'s site built in `out` by the plugin of `checkout` (its Python and its
    client, built by `client_built`), with a copy of this checkout's plugin cache: the
    bundle's root and the page's hints as that checkout's bench computes them."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    cache = corpus.cache_dir
    shutil.copytree(cache / "project", out / "project")
    shutil.copytree(cache / "plugin", out / "plugin")
    config = out / "project" / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    ours = f"cache_dir: {cache / 'plugin'}"
    if ours not in text:
        raise SystemExit(f"{config}: no `{ours}` line to point at the copied cache")
    config.write_text(text.replace(ours, f"cache_dir: {out / 'plugin'}"), encoding="utf-8")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d",
                            str(out / "site")], cwd=checkout, env=env, capture_output=True,
                           text=True)
    if built.returncode != 0:
        raise SystemExit(f"building {corpus.name} at {checkout} failed:\n{built.stderr[-3000:]}")
    bundle = out / "site" / "semantic"
    hints = subprocess.run([sys.executable, "-c", BEFORE_HINTS, str(bundle)], cwd=checkout,
                           env=env, check=True, capture_output=True, text=True)
    return bundle, hints.stdout.strip()


def client_built(checkout: Path) -> None:
    """The browser client of `checkout` built into its package (npm run build)."""
    subprocess.run(["npm", "run", "build"], cwd=checkout / "js", check=True,
                   capture_output=True)


def checkout_named() -> str:
    """This checkout's commit, and `+ changes` when its tree differs from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(HERE.parent), *args], check=True,
                              capture_output=True, text=True).stdout.strip()
    changed = git("status", "--porcelain", "--untracked-files=no")
    return git("rev-parse", "--short", "HEAD") + (" + changes" if changed else "")


def render(results: dict) -> str:
    lines = ["# A query's words as typed, scored while it is read", "",
             f"Reproduce: `python bench/typed_reading.py --before {results['before']}`. "
             f"Measured {results['run']}. Each set's clean and slipped queries, as first "
             "queries (a new engine each) and as later queries (in order on one engine, "
             "the idle prefetch run between them), on the client before the change "
             f"(`{results['before']}`) and on this checkout's "
             f"(`{results.get('checkout', 'not recorded')}`)"
             + (", each on the sites its own commit builds" if results.get("before_builds")
                else "") + ". Steps: the engine in Node, "
             "every answer held 100 ms; modeled: steps x 40 ms plus the bytes sent at "
             "20 Mbit/s, the mean per query. Vectors: the index, bits and row blocks sent; "
             "fragments: the excerpt files, the long pages' parts included.",
             "", "| set | kind | queries | client | "
             + " | ".join(f"{w}: queries by steps | {w}: sent median / mean | {w}: vectors "
                          f"/ fragments, mean | {w}: modeled" for w in PASSES) + " |",
             "|---|---|---|---|" + "---|" * 4 * len(PASSES)]

    def cells(f: dict) -> list[str]:
        steps, sent, modeled = pass_cells(f)
        return [steps, sent, f"{f['vectors_sent_mean'] / 1000:.1f} / "
                f"{f['fragments_sent_mean'] / 1000:.1f} kB", modeled]

    return "\n".join([*lines, *table_rows(results, PASSES, cells)]) + "\n"


def main() -> int:
    def options(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--before", required=True, help="the commit of the client before")
        parser.add_argument("--before-builds", action="store_true",
                            help="run the client before on the sites its own commit builds")

    args, sets, _, loaders = rt.sets_command(__doc__, sets=SETS, options=options)
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "before": args.before,
                     "before_builds": args.before_builds, "checkout": checkout_named(),
                     "sets": {}}
    with client_at(args.before) as before, tempfile.TemporaryDirectory() as tmp:
        if args.before_builds:
            client_built(before.parent.parent)
        for name in sets:
            corpus = loaders[name]()
            if args.before_builds:
                bundle, hints = built_at(before.parent.parent, corpus, Path(tmp) / name)
                runs = [(bundle, hints, {"before": ([], before)}),
                        (corpus.bundle.root, None, {"this checkout": ([], QUERY_ROUNDS)})]
            else:
                runs = [(corpus.bundle.root, None,
                         {"before": ([], before), "this checkout": ([], QUERY_ROUNDS)})]
            kinds: dict = {}
            for kind, texts in query_kinds(corpus).items():
                kinds[kind] = {}
                for bundle, hints, clients in runs:
                    kinds[kind] |= measure_passes(bundle, texts, clients, PASSES,
                                                  pass_figures, hints)
            results["sets"][name] = {"chunks": len(corpus.bundle.chunks), "kinds": kinds}
    write_results(args.out, "typed_reading", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

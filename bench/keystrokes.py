"""Names typed key by key: what the browser engine fetches while a reader types one.

Per set, each exact query (a name, as readers type it) typed one key at a time: every
text from its first letter to the whole query answered in turn as the search box answers
a query being typed (bench/query_rounds.mjs `--typing`: a half-typed last word completed),
on a new engine per query, no idle prefetch, every answer held 100 ms and run to its end
(an upper bound: a search box drops answers a newer key makes stale). The engines are this
checkout's and `--before`'s (a temporary checkout of that commit, driven by this
checkout's query_rounds.mjs, so its engine must answer `{typing}` as this one does), on
the bundle this checkout builds. Figures: keystrokes, bytes sent in all and per
keystroke, steps per keystroke, and the queries whose typing sends 5 kB more or less.

    python bench/keystrokes.py --before <commit> [--sets fastapi,apache] [--out DIR]

Writes <out>/keystrokes.{json,md} (bench/results unless --out).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
from query_rounds import QUERY_ROUNDS, client_at, measure  # noqa: E402
from results_file import write_results  # noqa: E402
from typed_reading import checkout_named  # noqa: E402

SETS = "fastapi,apache"
CHANGED = 5_000
"""Bytes by which a query's typing must differ to be listed."""


def keystrokes(query: str) -> list[str]:
    """The texts a search box holds while `query` is typed, one key at a time, but those
    ending in a space (the reader is between words: the bench counts letters)."""
    return [query[:n] for n in range(1, len(query) + 1) if not query[:n].endswith(" ")]


def typed(bundle: Path, query: str, script: Path, folder: Path) -> dict:
    """One query typed key by key on a new engine: bytes sent, steps and keystrokes."""
    texts = folder / "keys.txt"
    texts.write_text("\n".join(keystrokes(query)) + "\n", encoding="utf-8")
    answers = measure(bundle, texts, "off", ["--typing"], script)["queries"]
    return {"query": query, "keys": len(answers), "sent": sum(a["sent"] for a in answers),
            "steps": sum(a["rounds"] for a in answers)}


def totals(runs: list[dict]) -> dict:
    keys = sum(r["keys"] for r in runs)
    return {"queries": len(runs), "keys": keys, "sent": sum(r["sent"] for r in runs),
            "sent_per_key": sum(r["sent"] for r in runs) / keys,
            "steps_per_key": sum(r["steps"] for r in runs) / keys,
            "sent_median": statistics.median(r["sent"] for r in runs)}


def render(results: dict) -> str:
    lines = ["# Names typed key by key", "",
             f"Reproduce: `python bench/keystrokes.py --before {results['before']}`. "
             f"Measured {results['run']}. Each set's exact queries typed one key at a "
             "time, every text answered as a query being typed, to its end (no answer "
             "dropped), on a new engine per query, no idle prefetch, every answer held "
             f"100 ms; the engine before (`{results['before']}`) and this checkout's "
             f"(`{results['checkout']}`). Steps: rounds of requests on that clock.", "",
             "| set | client | queries | keystrokes | sent in all | sent per keystroke "
             "| sent per query, median | steps per keystroke |", "|---" * 8 + "|"]
    for name, s in results["sets"].items():
        for client in ("before", "this checkout"):
            t = s[client]["totals"]
            lines.append(f"| {name} | {client} | {t['queries']} | {t['keys']} "
                         f"| {t['sent'] / 1e6:.2f} MB | {t['sent_per_key'] / 1000:.2f} kB "
                         f"| {t['sent_median'] / 1000:.1f} kB | {t['steps_per_key']:.2f} |")
    lines += ["", f"Queries whose typing sends {CHANGED / 1000:.0f} kB more or less "
              "(before / this checkout):", ""]
    for name, s in results["sets"].items():
        for b, a in zip(s["before"]["runs"], s["this checkout"]["runs"]):
            if abs(a["sent"] - b["sent"]) >= CHANGED:
                lines.append(f"- {name}: `{a['query']}`, {b['sent'] / 1000:.1f} / "
                             f"{a['sent'] / 1000:.1f} kB, {b['steps']} / {a['steps']} steps")
    return "\n".join(lines) + "\n"


def main() -> int:
    args, sets, _, loaders = rt.sets_command(__doc__, sets=SETS, options=lambda parser: (
        parser.add_argument("--before", required=True, help="the commit of the engine before")))
    results: dict = {"run": time.strftime("%Y-%m-%d %H:%M"), "before": args.before,
                     "checkout": checkout_named(), "sets": {}}
    with client_at(args.before) as before, tempfile.TemporaryDirectory() as tmp:
        shutil.copyfile(QUERY_ROUNDS, before)  # the same driver, the engine before
        for name in sets:
            print(f"{name}: loading", file=sys.stderr)
            corpus = loaders[name]()
            exact = [q.text for q in corpus.queries if q.group == "exact"]
            results["sets"][name] = {}
            for client, script in (("before", before), ("this checkout", QUERY_ROUNDS)):
                runs = [typed(corpus.bundle.root, q, script, Path(tmp)) for q in exact]
                results["sets"][name][client] = {"runs": runs, "totals": totals(runs)}
    write_results(args.out, "keystrokes", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

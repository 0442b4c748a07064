"""Trial: while the reader types, the last word's keyword terms also match as prefixes.

Lunr in Material matches the last word as `word*`. Here, while typing (nothing after the
last word), each keyword term of the last word (the whole lowercased name when it has
parts, and its last part, 3 letters or more) scores a chunk by the best of: the term
itself, and the `LIMIT` index terms held by the most chunks that start with what was
typed, those weighed by `discount`. The best possible keyword score takes the same
best. Everything else is the product's own reading and ranking (`Searcher.answer` with
`typing=True`), so the half-typed copy's last word is still completed by the spelling
rule when the site does not use it.

Compared with the shipped reading on the half-typed copies of bench/readers_typing.py and
the complete queries they were cut from, hybrid MRR@10, both encoders.

    python bench/half_prefix.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/half_prefix.{json,md}.
"""

from __future__ import annotations

import bisect
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from readers_typing import ENCODERS, HALF_TARGET, copies, score  # noqa: E402

from mkdocs_semantic.bundle.cased_forms import capitalized  # noqa: E402
from mkdocs_semantic.bundle.lexical import STOPWORDS, TOKEN, analyze, split_parts, stem  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

LIMIT = 16
DISCOUNTS = (1.0, 0.5, 0.25)
MIN_PREFIX = 3


def open_terms(query: str) -> list[tuple[str | None, str]]:
    """(the term, the prefix it also matches) for the last word, when nothing follows it."""
    matches = list(TOKEN.finditer(query))
    if not matches or matches[-1].end() != len(query):
        return []
    raw = matches[-1].group()
    parts = split_parts(raw)
    out: list[tuple[str | None, str]] = []
    if len(parts) > 1 and len(raw) >= MIN_PREFIX:
        out.append((raw.lower(), raw.lower()))
    last = parts[-1].lower() if parts else ""
    if len(last) >= MIN_PREFIX:
        out.append((None if last in STOPWORDS else stem(last), last))
    return out


class PrefixIndex:
    """The bundle's keyword index, the query's last word matching as a prefix (the
    bench searches through it only while the reader types)."""

    def __init__(self, index, discount: float) -> None:
        self.index = index
        self.discount = discount
        if index.source is not None and index.source.shards is not None:
            # an index read by shard: read every shard, to list the terms
            index.source.need(index, list(index.source.shards.firsts), full=False)
        self.terms = sorted(t for t in index.postings if not capitalized(t))  # no forms

    def __getattr__(self, name: str):
        return getattr(self.index, name)

    def expansions(self, term: str | None, prefix: str) -> list[str]:
        at = bisect.bisect_left(self.terms, prefix)
        found = []
        while at < len(self.terms) and self.terms[at].startswith(prefix):
            if self.terms[at] != term:
                found.append(self.terms[at])
            at += 1
        found.sort(key=lambda t: (-len(self.index.postings[t][0]), t))
        return found[:LIMIT]

    def slots(self, query: str) -> list[list[tuple[str, float]]]:
        """Per scored slot of the query, its weighed terms: a chunk takes the best of a
        slot's. A plain term is a slot of its own; an open term's slot adds its
        expansions."""
        postings = self.index.postings
        opened = open_terms(query)
        taken = {term for term, _ in opened}
        out = [[(term, 1.0)] for term in dict.fromkeys(analyze(query))
               if term not in taken and term in postings]
        for term, prefix in opened:
            slot = [(term, 1.0)] if term in postings else []
            out.append(slot + [(t, self.discount) for t in self.expansions(term, prefix)])
        return out

    def scores(self, query: str, *, full: bool = False) -> np.ndarray:
        index = self.index
        total = np.zeros(index.count)
        for slot in self.slots(query):
            best = np.zeros(index.count)
            for term, weight in slot:
                docs, quanta = index.heads.get(term, index.postings[term])
                np.maximum.at(best, docs, quanta * weight)
            total += best
        return total

    def possible(self, query: str) -> float:
        return sum(max((float(self.index.postings[term][1].max()) * weight
                        for term, weight in slot), default=0.0)
                   for slot in self.slots(query))


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    variants = copies(corpus, name)
    pairs = {"complete": variants["complete"], "half": variants["half"]}
    shipped = corpus.bundle.lexical
    out: dict = {"queries": len(pairs["half"]), "encoders": {}}
    for encoder in ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        rows = {"shipped": {v: score(corpus, searcher, q, "hybrid", typing=True,
                                     as_typed=False)[0] for v, q in pairs.items()}}
        for discount in DISCOUNTS:
            corpus.bundle.lexical = PrefixIndex(shipped, discount)
            try:
                rows[f"prefix, expansions x {discount}"] = {
                    v: score(corpus, searcher, q, "hybrid", typing=True, as_typed=False)[0]
                    for v, q in pairs.items()}
            finally:
                corpus.bundle.lexical = shipped
        out["encoders"][encoder] = rows
    return out


def render(results: dict) -> str:
    return half_table("the half-typed last word matching as a prefix", "half_prefix",
                      "the rule is", results)


def half_table(title: str, bench: str, rules: str, results: dict) -> str:
    """A half-typed trial's report: per set, encoder and reading, the complete and
    half-typed queries' hybrid MRR@10 and their ratio."""
    lines = [f"# Trial: {title}", "",
             f"Reproduce: `python bench/{bench}.py`. Measured {results['run']}. Hybrid "
             f"MRR@10 read while typing; {rules} in the bench's docstring. Target of the "
             f"typing issue: half >= {HALF_TARGET} x complete.", "",
             "| set | encoder | reading | complete | half | half / complete |",
             "|---|---|---|---|---|---|"]
    for name, s in results["sets"].items():
        for encoder, rows in s["encoders"].items():
            for label, r in rows.items():
                ratio = r["half"] / r["complete"] if r["complete"] else 0.0
                lines.append(f"| {name} ({s['queries']}) | {encoder} | {label} "
                             f"| {r['complete']:.3f} | {r['half']:.3f} | {ratio:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "half_prefix", "fastapi,mkdocs,manpages,npm,postgres,python",
                        run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())

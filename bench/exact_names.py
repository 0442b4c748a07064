"""Exact names: does hybrid rank a code name or a heading as well as keywords alone?

Per set and query encoder, MRR@10 of every query and of the exact and paraphrase
subsets for: keyword alone; hybrid with both signals weighing the same (the rule before
names weighed their keywords more); hybrid as shipped (a query that names something,
search/ranking.py's `names_a_thing`, weighs its keyword signal `NAME_KEYWORD_WEIGHT`);
hybrid with a name's keyword signal weighing more than shipped (`WEIGHTS`); and two
candidate rules applied on top of the shipped hybrid (measured, not shipped):

- `heading`: when the query, lowercased, without backticks, quotes or a trailing
  `()`, is the heading (or page title) of one of the keyword ranking's first 10
  sections, that section's page goes first;
- `code`: when the query is one code-like token (`_ . :` inside, a leading `-`, `!` or
  `@`, CamelCase, or all capitals), the keyword ranking's first page goes first.
- `in heading`: when the query names something (`names_a_thing`, or a word typed with
  capitals: `cased_words`) and, without backticks, quotes or a trailing `()`, stands as
  written (case kept, whole words) in the heading (or page title) of one of the keyword
  ranking's first 10 sections, that section's page goes first: `Depends` finds
  "Import `Depends`".

    python bench/exact_names.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/exact_names.{json,md}.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402

import mkdocs_semantic.search.searcher as searcher_module  # noqa: E402
from mkdocs_semantic.bundle.cased_forms import cased_words  # noqa: E402
from mkdocs_semantic.bundle.lexical import TOKEN  # noqa: E402
from mkdocs_semantic.constants import NAME_KEYWORD_WEIGHT  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.ranking import (  # noqa: E402
    chunk_order,
    keyword_weight,
    names_a_thing,
)
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

CODE = re.compile(r"[_.:]|^[-!@]|[a-z][A-Z]|^[A-Z0-9_]{3,}$")
WEIGHTS = (2.0, 3.0, 5.0)
"""Keyword weights of a query that names something, tried beside the shipped one."""
RULES = ("lexical", "equal", "hybrid", *(f"x{w:g}" for w in WEIGHTS), "heading", "code",
         "in heading")
PINNING = ("heading", "code", "in heading")
"""The rules that put one page first, on top of the shipped hybrid."""


def normal(text: str) -> str:
    return as_written(text).lower()


def as_written(text: str) -> str:
    """`text` without backticks or quotes around it, a trailing `()` or extra spaces."""
    return " ".join(text.strip().strip("`'\"").removesuffix("()").split())


def holds(heading: str, name: str) -> bool:
    """Whether `heading`, its backticks dropped, writes `name` as written, as whole words."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", heading.replace("`", "")) is not None


def code_like(query: str) -> bool:
    query = query.strip()
    return TOKEN.fullmatch(query.lstrip("-!@")) is not None and CODE.search(query) is not None


def pinned(searcher: Searcher, query: str, rule: str) -> str | None:
    """The page a rule puts first, or None."""
    scores = searcher.bundle.lexical.scores(query)
    order = chunk_order(scores, scores > 0)[:10]
    if not len(order):
        return None
    if rule == "heading":
        for chunk in (searcher.bundle.chunks[int(c)] for c in order):
            if normal(chunk.path[-1] if chunk.path else chunk.title) == normal(query):
                return chunk.url
    if rule == "code" and code_like(query):
        return searcher.bundle.chunks[int(order[0])].url
    if rule == "in heading" and (names_a_thing(query) or cased_words(query)):
        for chunk in (searcher.bundle.chunks[int(c)] for c in order):
            if holds(chunk.path[-1] if chunk.path else chunk.title, as_written(query)):
                return chunk.url
    return None


def weighing(rule: str) -> Callable[[str], float]:
    """The keyword weight of a query under `rule`: 1 for every query (`equal`), a name's
    `x<w>`, else the shipped one."""
    if rule == "equal":
        return lambda query: 1.0
    if rule.startswith("x"):
        weight = float(rule[1:])
        return lambda query: weight if names_a_thing(query) else 1.0
    return keyword_weight


def run_set(corpus: se.Corpus, embedder: OnnxEmbedder) -> dict:
    out: dict = {}
    for encoder in ("static", "transformer"):
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        rows: dict = {}
        for rule in RULES:
            per: dict[str, list[float]] = {}
            moved: list[str] = []
            searcher_module.keyword_weight = weighing(rule)
            for q in corpus.queries:
                mode = "lexical" if rule == "lexical" else "hybrid"
                results = searcher.search(q.text, mode=mode, top_k=corpus.top_k, as_typed=True)
                pages = list(dict.fromkeys(r.url for r in results))
                first = pinned(searcher, q.text, rule) if rule in PINNING else None
                if first is not None and pages[:1] != [first]:
                    moved.append(q.text)
                    pages = [first] + [p for p in pages if p != first]
                for group in ("all", q.group):
                    per.setdefault(group, []).append(se.mrr_at_10(pages, q.relevant))
            rows[rule] = {g: round(float(np.mean(v)), 4) for g, v in per.items()}
            if rule in PINNING:
                rows[rule]["moved"] = moved
        searcher_module.keyword_weight = keyword_weight
        out[encoder] = rows
    return out


def render(results: dict) -> str:
    lines = ["# Exact names: hybrid against keywords alone, names weighing their keywords more, "
             "heavier weights and three rules tried", "",
             f"Reproduce: `python bench/exact_names.py`. Measured {results['run']}. "
             "MRR@10 of the exact subset, then of the paraphrase subset and of every "
             "query; `equal`: hybrid with both signals weighing the same; `shipped`: "
             f"a query that names something weighs its keywords {NAME_KEYWORD_WEIGHT:g}x; "
             "`names xW`: such a query's keywords weigh W instead; "
             "`heading`, `code` and `in heading` are the rules of the script's docstring, "
             "applied on top of the shipped hybrid.", "",
             "| set | encoder | keyword alone | hybrid, equal | hybrid, shipped | "
             + "".join(f"names x{w:g} | " for w in WEIGHTS)
             + "+ heading rule | + code rule | + in-heading rule |",
             "|---" * (8 + len(WEIGHTS)) + "|"]
    for name, s in results["sets"].items():
        for encoder, rows in s.items():
            cells = [f"{rows[r].get('exact', 0):.3f} / {rows[r].get('paraphrase', 0):.3f}"
                     f" / {rows[r].get('all', 0):.3f}" for r in RULES]
            lines.append(f"| {name} | {encoder} | " + " | ".join(cells) + " |")
    lines += ["", "Queries whose first page a rule changed (set, encoder: queries):", ""]
    for rule in PINNING:
        changed = [f"{name} {encoder}: " + ", ".join(f"`{q}`" for q in rows[rule]["moved"])
                   for name, s in results["sets"].items() for encoder, rows in s.items()
                   if rows[rule].get("moved")]
        lines.append(f"- {rule}: " + ("; ".join(changed) if changed else "none"))
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "exact_names",
                       lambda corpus, name, embedder: run_set(corpus, embedder), render)


if __name__ == "__main__":
    sys.exit(main())

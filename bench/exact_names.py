"""Exact names: does hybrid rank a code name or a heading as well as keywords alone?

Per set and query encoder, MRR@10 of every query and of the exact and paraphrase
subsets for: keyword alone; hybrid with both signals weighing the same; hybrid before
names found in headings went first (a query that names something, search/ranking.py's
`names_a_thing`, weighs its keyword signal `W`, each of `WEIGHTS`: `NAME_KEYWORD_WEIGHT`
as shipped, and heavier ones); three candidate rules applied on top of that hybrid (measured,
not shipped); and the shipped hybrid, where a name the keyword order's first sections
write in their heading goes first (search/ranking.py's step 8):

- `heading`: when the query, lowercased, without backticks, quotes or a trailing
  `()`, is the heading (or page title) of one of the keyword ranking's first 10
  sections, that section's page goes first;
- `code`: when the query is one code-like token (`_ . :` inside, a leading `-`, `!` or
  `@`, CamelCase, or all capitals), the keyword ranking's first page goes first;
- `cased`: when the query types words with deliberate capitals (`cased_words`) and
  every one of them is a form the keyword index keys (written with capitals by at most
  `HEAD_POSTINGS` sections), the first of the keyword ranking's first 10 sections that
  writes them all puts its page first: `CREATE STATISTICS`;
- `keyword lead` (on top of the shipped hybrid): step 8 puts first the page of the
  named section the keyword order ranks first, not the best-ranked page (in the fused
  order) holding a named section.

Under the table, the queries whose first page each rule, and the shipped step 8,
changed from the hybrid before it.

    python bench/exact_names.py [--sets SETS]  (default: readers_typing.SETS, eleven sets)

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

import mkdocs_semantic.search.ranking as ranking_module  # noqa: E402
import mkdocs_semantic.search.searcher as searcher_module  # noqa: E402
from mkdocs_semantic.bundle.cased_forms import cased_words  # noqa: E402
from mkdocs_semantic.bundle.lexical import TOKEN  # noqa: E402
from mkdocs_semantic.constants import NAME_KEYWORD_WEIGHT  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.ranking import (  # noqa: E402
    chunk_order,
    keyword_weight,
    named_sections,
    names_a_thing,
    section_heading,
)
from mkdocs_semantic.search.searcher import Result, Searcher  # noqa: E402

CODE = re.compile(r"[_.:]|^[-!@]|[a-z][A-Z]|^[A-Z0-9_]{3,}$")
WEIGHTS = (NAME_KEYWORD_WEIGHT, 2.0, 3.0, 5.0)
"""Keyword weights of a query that names something: the shipped one first."""
BEFORE = f"x{NAME_KEYWORD_WEIGHT:g}"
"""The hybrid before step 8, which the pinning rules and step 8 are compared with."""
PINNING = ("heading", "code", "cased")
"""The rules that put one page first, on top of the hybrid before step 8."""
RULES = ("lexical", "equal", *(f"x{w:g}" for w in WEIGHTS), *PINNING, "hybrid", "lead")
"""Every rule measured: `lead` is step 8 led by the keyword order (`keyword_lead`)."""
SHIPPED_LEAD = ranking_module._lead_page


def keyword_lead(named: list[int], page_order: list[int], candidates: np.ndarray,
                 page_of_chunk: np.ndarray) -> int | None:
    """Step 8's page under `lead`: the position in `candidates` of the page holding the
    named section the keyword order ranks first (`named` is in that order)."""
    if not named:
        return None
    page = int(page_of_chunk[named[0]])
    return next((at for at in page_order if int(candidates[at]) == page), None)


def normal(text: str) -> str:
    """`text` lowercased, without backticks or quotes around it, a trailing `()` or
    extra spaces."""
    return " ".join(text.strip().strip("`'\"").removesuffix("()").split()).lower()


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
    if rule == "cased" and (words := cased_words(query)):
        writers = [searcher.bundle.lexical.postings.get(word) for word in words]
        if all(w is not None for w in writers):
            every = set.intersection(*(set(w[0].tolist()) for w in writers))
            for c in order:
                if int(c) in every:
                    return searcher.bundle.chunks[int(c)].url
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


def shown(result: Result) -> str:
    """A result's page and the heading it shows: `url` > `heading`."""
    return f"{result.url} > {section_heading(result.title, result.path)}"


def measure_rule(searcher: Searcher, corpus: se.Corpus, rule: str
                 ) -> tuple[dict[str, float], list[str], list[str]]:
    """MRR@10 by subset under `rule`, each query's first page and first result shown
    (step 8 on for the shipped `hybrid` and for `lead` only; the searcher's and the
    ranking's own functions restored)."""
    per: dict[str, list[float]] = {}
    firsts: list[str] = []
    sections: list[str] = []
    searcher_module.keyword_weight = weighing(rule)
    searcher_module.named_sections = (named_sections if rule in ("hybrid", "lead")
                                      else lambda *_: [])
    ranking_module._lead_page = keyword_lead if rule == "lead" else SHIPPED_LEAD
    try:
        for q in corpus.queries:
            mode = "lexical" if rule == "lexical" else "hybrid"
            results = searcher.search(q.text, mode=mode, top_k=corpus.top_k, as_typed=True)
            pages = list(dict.fromkeys(r.url for r in results))
            first = pinned(searcher, q.text, rule) if rule in PINNING else None
            if first is not None:
                pages = [first] + [p for p in pages if p != first]
            firsts.append(pages[0] if pages else "")
            sections.append(shown(results[0]) if results else "")
            for group in ("all", q.group):
                per.setdefault(group, []).append(se.mrr_at_10(pages, q.relevant))
    finally:
        searcher_module.keyword_weight = keyword_weight
        searcher_module.named_sections = named_sections
        ranking_module._lead_page = SHIPPED_LEAD
    return {g: round(float(np.mean(v)), 4) for g, v in per.items()}, firsts, sections


def run_set(corpus: se.Corpus, embedder: OnnxEmbedder) -> dict:
    out: dict = {}
    for encoder in ("static", "transformer"):
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        rows: dict = {}
        firsts: dict[str, list[str]] = {}
        sections: dict[str, list[str]] = {}
        for rule in RULES:
            rows[rule], firsts[rule], sections[rule] = measure_rule(searcher, corpus, rule)
        for rule in (*PINNING, "hybrid", "lead"):
            base = firsts["hybrid" if rule == "lead" else BEFORE]
            rows[rule]["moved"] = [q.text for q, a, b in zip(corpus.queries, base,
                                                               firsts[rule]) if a != b]
        rows["hybrid"]["sections"] = [[q.text, a, b] for q, a, b in zip(
            corpus.queries, sections[BEFORE], sections["hybrid"]) if a != b]
        out[encoder] = rows
    return out


def render(results: dict) -> str:
    lines = ["# Exact names: hybrid against keywords alone, names weighing their keywords more, "
             "three rules tried and names in headings first", "",
             f"Reproduce: `python bench/exact_names.py`. Measured {results['run']}. "
             "MRR@10 of the exact subset, then of the paraphrase subset and of every "
             "query; `equal`: hybrid with both signals weighing the same; `names xW`: "
             "hybrid before names in headings went first, a query that names something "
             f"weighing its keywords W (x{NAME_KEYWORD_WEIGHT:g} shipped); `heading`, "
             "`code` and `cased` are the rules of the script's docstring, applied on top "
             f"of `names x{NAME_KEYWORD_WEIGHT:g}`; `shipped`: that hybrid with a name "
             "the keyword order's first sections write in their heading first "
             "(search/ranking.py, step 8); `keyword lead`: the shipped hybrid with step 8 "
             "led by the keyword order (the script's docstring).", "",
             "| set | encoder | keyword alone | hybrid, equal | "
             + "".join(f"names x{w:g} | " for w in WEIGHTS)
             + "+ heading rule | + code rule | + cased rule | shipped | keyword lead |",
             "|---" * (2 + len(RULES)) + "|"]
    for name, s in results["sets"].items():
        for encoder, rows in s.items():
            cells = [f"{rows[r].get('exact', 0):.3f} / {rows[r].get('paraphrase', 0):.3f}"
                     f" / {rows[r].get('all', 0):.3f}" for r in RULES]
            lines.append(f"| {name} | {encoder} | " + " | ".join(cells) + " |")
    lines += ["", f"Queries whose first page a rule changed from `names x{NAME_KEYWORD_WEIGHT:g}`"
              " (set, encoder: queries):", ""]
    for rule in (*PINNING, "hybrid", "lead"):
        changed = [f"{name} {encoder}: " + ", ".join(f"`{q}`" for q in rows[rule]["moved"])
                   for name, s in results["sets"].items() for encoder, rows in s.items()
                   if rows[rule].get("moved")]
        label = {"hybrid": "shipped", "lead": "keyword lead (from shipped)"}.get(rule, rule)
        lines.append(f"- {label}: " + ("; ".join(changed) if changed else "none"))
    lines += ["", f"First results the shipped step 8 changed from `names x{NAME_KEYWORD_WEIGHT:g}`"
              " (page > heading shown):", "",
              "| set | encoder | query | before | shipped |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in (
        name, encoder, f"`{query}`", before, after)) + " |"
              for name, s in results["sets"].items() for encoder, rows in s.items()
              for query, before, after in rows["hybrid"]["sections"]]
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "exact_names",
                       lambda corpus, name, embedder: run_set(corpus, embedder), render,
                       sets=rt.SETS)


if __name__ == "__main__":
    sys.exit(main())

"""Trial: a half-typed word typed with a capital completed to a name the site spells so.

The rule tried (not shipped; search/spelling.py's rule 1 weighs every entry by its key
alone): while typing, when the completed last word was typed with a capital and some of
its completions are spelled by the site starting with it exactly (`Securit`:
`SecurityScopes`), the likeliest of those is used instead (not `security`).

Per set (built as bench/static_encoder.py builds it) and query encoder:

- hybrid MRR@10 of the half-typed queries and of the complete queries they are cut from,
  read while typing (as bench/readers_typing.py reads them), as shipped and with the
  rule, and the queries the rule reads otherwise;
- what the rule costs words typed with capitals that are not names: of the site's 300
  most used words of six letters or more, how many the rule completes otherwise when
  their first half is typed with a leading capital (a habit, a phone's) and in capitals
  (SQL's), with examples.

    python bench/cased_completion.py [--sets SETS]  (default: the eight it was measured on)

Writes bench/results/cased_completion.{json,md}.
"""

from __future__ import annotations

import string
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.vocabulary import Entry  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402
from mkdocs_semantic.search.spelling import Change, Reading, WordSource, completion  # noqa: E402

READINGS = ("shipped", "cased")
COMMON_WORDS = 300
MIN_LETTERS = 6
EXAMPLES = 6


def cased_completion(typed: str, words: WordSource, *, flag: bool = False) -> str | None:
    """The rule's completion of `typed` (a half-typed word with a capital): the likeliest
    of the site's entries spelled starting with it exactly, or None when there is none."""
    prefix = typed.lower()
    spelled = [e for e in words.starting([prefix]) if e.form.startswith(typed)
               and len(e.key) > len(prefix) and (e.flag or not flag)]
    return completion(prefix, spelled)


def cased_reading(reading: Reading, words: WordSource) -> Reading:
    """`reading` with the rule applied to its completed last word (a completion always
    ends the query)."""
    last = reading.changes[-1] if reading.changes else None
    if last is None or last.kind != "completed" or last.typed.lower() == last.typed:
        return reading
    flag = reading.typed[:-len(last.typed)].endswith("--")
    used = cased_completion(last.typed, words, flag=flag)
    if used is None or used == last.used:
        return reading
    text = reading.text[:-len(last.used)] + used
    return Reading(reading.typed, text,
                   (*reading.changes[:-1], Change(last.typed, used, "completed")))


def with_rule(searcher: Searcher) -> Callable[[], None]:
    """The rule switched on for `searcher`'s readings; returns what switches it off."""
    shipped = searcher.read

    def read(query: str, *, typing: bool = False, **options) -> Reading:
        reading = shipped(query, typing=typing, **options)
        return cased_reading(reading, searcher.bundle.vocabulary) if typing else reading

    searcher.read = read  # type: ignore[method-assign]
    return lambda: delattr(searcher, "read")


def answers(corpus: se.Corpus, searcher: Searcher, queries: list[se.Query]
            ) -> list[tuple[str, float]]:
    """Each query as read while typing, and the reciprocal rank of its hybrid answer."""
    out = []
    for query in queries:
        answer = searcher.answer(query.text, mode="hybrid", top_k=corpus.top_k, typing=True)
        pages = list(dict.fromkeys(r.url for r in answer.results))
        out.append((answer.reading.text, se.mrr_at_10(pages, query.relevant)))
    return out


def common_words(words: WordSource) -> list[Entry]:
    entries = words.starting(list(string.ascii_lowercase))
    plain = [e for e in entries if e.is_word and len(e.key) >= MIN_LETTERS]
    return sorted(plain, key=lambda e: (-e.count, e.key))[:COMMON_WORDS]


def capital_costs(searcher: Searcher) -> dict:
    """Of the site's most used words, the first halves typed with a leading capital or
    in capitals that the rule reads otherwise: (typed, as shipped, with the rule) each."""
    words = searcher.bundle.vocabulary
    out: dict = {"words": 0, "leading capital": [], "capitals": []}
    for entry in common_words(words):
        out["words"] += 1
        half = entry.key[:(len(entry.key) + 1) // 2]
        for kind, typed in (("leading capital", half[0].upper() + half[1:]),
                            ("capitals", half.upper())):
            shipped = searcher.read(typed, typing=True)
            ruled = cased_reading(shipped, words)
            if ruled.text != shipped.text:
                out[kind].append((typed, shipped.text, ruled.text))
    return out


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    variants = rt.copies(corpus, name)
    out: dict = {"queries": len(variants["half"]), "encoders": {},
                 "costs": capital_costs(Searcher(corpus.bundle))}
    for encoder in rt.ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        row: dict = {"changed": []}
        read: dict = {}
        for reading in READINGS:
            switch_off = with_rule(searcher) if reading == "cased" else lambda: None
            try:
                read[reading] = {v: answers(corpus, searcher, variants[v])
                                 for v in ("complete", "half")}
            finally:
                switch_off()
            for variant in ("complete", "half"):
                ranks = [rr for _, rr in read[reading][variant]]
                row[f"{variant}_{reading}"] = round(sum(ranks) / len(ranks), 4)
        for variant in ("complete", "half"):
            for query, before, after in zip(variants[variant], read["shipped"][variant],
                                            read["cased"][variant]):
                if before[0] != after[0]:
                    row["changed"].append({"variant": variant, "typed": query.text,
                                           "shipped": before[0], "cased": after[0],
                                           "rr_shipped": round(before[1], 3),
                                           "rr_cased": round(after[1], 3)})
        out["encoders"][encoder] = row
    return out


def render(results: dict) -> str:
    lines = ["# Trial: a half-typed word with a capital completed to a name the site "
             "spells so", "",
             f"Reproduce: `python bench/cased_completion.py`. Measured {results['run']}. "
             "Hybrid MRR@10 read while typing, as shipped and with the rule (not shipped; "
             "the bench's docstring). Target of the typing issue: half >= "
             f"{rt.HALF_TARGET} x complete.", "",
             "| set | encoder | complete: shipped / rule | half: shipped / rule "
             "| half / complete: shipped / rule |", "|---" * 5 + "|"]
    for name, s in results["sets"].items():
        for encoder, r in s["encoders"].items():
            ratio = {k: r[f"half_{k}"] / r[f"complete_{k}"] if r[f"complete_{k}"] else 0.0
                     for k in READINGS}
            lines.append(f"| {name} ({s['queries']}) | {encoder} "
                         f"| {r['complete_shipped']:.3f} / {r['complete_cased']:.3f} "
                         f"| {r['half_shipped']:.3f} / {r['half_cased']:.3f} "
                         f"| {ratio['shipped']:.2f} / {ratio['cased']:.2f} |")
    lines += ["", "Queries the rule reads otherwise (reciprocal rank shipped / rule):", "",
              "| set | encoder | copy | typed | read as shipped | read with the rule | RR |",
              "|---" * 7 + "|"]
    for name, s in results["sets"].items():
        for encoder, r in s["encoders"].items():
            for c in r["changed"]:
                lines.append(f"| {name} | {encoder} | {c['variant']} | `{c['typed']}` "
                             f"| `{c['shipped']}` | `{c['cased']}` "
                             f"| {c['rr_shipped']:.2f} / {c['rr_cased']:.2f} |")
    lines += ["", f"What the rule costs words that are not names: of each site's "
              f"{COMMON_WORDS} most used words of {MIN_LETTERS} letters or more, the first "
              "halves it completes otherwise (shipped -> rule):", "",
              "| set | leading capital | capitals | examples |", "|---" * 4 + "|"]
    for name, s in results["sets"].items():
        c = s["costs"]
        examples = (c["leading capital"][:EXAMPLES // 2] + c["capitals"][:EXAMPLES // 2])
        lines.append(f"| {name} | {len(c['leading capital'])} of {c['words']} "
                     f"| {len(c['capitals'])} of {c['words']} | "
                     + ", ".join(f"`{t}`: {a} -> {b}" for t, a, b in examples) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "cased_completion", run_set, render,
                       sets=rt.CASED_TRIAL_SETS)


if __name__ == "__main__":
    sys.exit(main())

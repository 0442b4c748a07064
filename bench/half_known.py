"""Trial: while the reader types, a last word the site uses may still be half-typed.

The product completes a half-typed last word only when the site does not use it, but
a word cut short is often a word of its own (`term` of `terminal`, `Proxy` of
`ProxyJump`, `EPOL`, a stem of `epoll`). Two rules, each tried alone and together:

- frequent completion: while typing, a last word the site uses is completed all the
  same when the site's most used word or name that starts with it (rule 1 of
  search/spelling.py) is held by at least `RATIO` times as many chunks as the word;
- trailing separator: a query that ends in a code name's separator (`daemon-`,
  `CLONE_`) right after its last word is typing a name: the word and the separator
  become the site's most used name that starts with them;
- not a site word: a last word the keyword index holds only as the stem of other words
  (`EPOL`, a stem of `epoll`), so that no word of the site's vocabulary is spelled so,
  is completed when a site word starts with it.

The trailing-separator rule has since shipped (rule 4 of search/spelling.py), and so has
the not-a-site-word rule (rule 1), so a run now finds them in "shipped" too. Everything
else is the product's reading and ranking (`Searcher.answer`, typing).
Compared on the half-typed copies of bench/readers_typing.py and the complete queries
they were cut from (both read while typing), hybrid MRR@10, both encoders.

    python bench/half_known.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/half_known.{json,md}.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from half_prefix import half_table  # noqa: E402
from readers_typing import ENCODERS, copies, score  # noqa: E402

from mkdocs_semantic.bundle.lexical import TOKEN, analyze  # noqa: E402
from mkdocs_semantic.bundle.vocabulary import identifier_key, vocabulary_word  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402
from mkdocs_semantic.search.spelling import completion, read_query  # noqa: E402

RATIOS = (4, 16)
TRAILING = re.compile(r"([._:\-]+)$")


class TrialSearcher(Searcher):
    """The product's searcher, reading while typing with the trial's rules."""

    def __init__(self, *args, ratio: int | None, trailing: bool, stems: bool = False,
                 **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.ratio = ratio
        self.trailing = trailing
        self.stems = stems

    def only_a_stem(self, token: str) -> bool:
        key = vocabulary_word(token) or identifier_key(token)
        if key is None:
            return False
        entries = self.bundle.vocabulary.starting([key])
        return (not any(e.key == key for e in entries)
                and completion(key, entries) is not None)

    def frequent_completion(self, token: str) -> bool:
        key = vocabulary_word(token) or identifier_key(token)
        if key is None:
            return False
        entries = self.bundle.vocabulary.starting([key])
        own = max((e.count for e in entries if e.key == key), default=0)
        longer = [e.count for e in entries if len(e.key) > len(key)]
        return bool(longer) and max(longer) >= self.ratio * max(own, 1)

    def read(self, query: str, *, typing: bool = False, words=None):
        lexical = self.bundle.lexical
        last = list(TOKEN.finditer(query))
        if typing and self.trailing and last and (end := TRAILING.search(query)) \
                and end.start() == last[-1].end():
            prefix = (last[-1].group() + end.group()).lower()
            used = completion(prefix, self.bundle.vocabulary.starting([prefix]))
            if used is not None:
                query = query[:last[-1].start()] + used
                last = list(TOKEN.finditer(query))
        open_last = (typing and (self.ratio is not None or self.stems) and last
                     and last[-1].end() == len(query))

        def known(tokens: list[str]) -> list[bool]:
            terms = [analyze(token) for token in tokens]
            held = dict(zip(flat := [t for ts in terms for t in ts], lexical.holds(flat)))
            out = [all(held[t] for t in ts) for ts in terms]
            if open_last and tokens and tokens[-1] == last[-1].group() and out[-1] and (
                    (self.ratio is not None and self.frequent_completion(tokens[-1]))
                    or (self.stems and self.only_a_stem(tokens[-1]))):
                out[-1] = False
            return out

        return read_query(query, words=self.bundle.vocabulary, typing=typing, known=known,
                          model_word=lambda word: word in self.model_words)


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    variants = copies(corpus, name)
    pairs = {"complete": variants["complete"], "half": variants["half"]}
    rules = {"shipped": (None, False, False), "trailing separator": (None, True, False),
             **{f"frequent completion x{r}": (r, False, False) for r in RATIOS},
             **{f"both, x{r}": (r, True, False) for r in RATIOS},
             "not a site word": (None, False, True)}
    out: dict = {"queries": len(pairs["half"]), "encoders": {}}
    for encoder in ENCODERS:
        rows = {}
        for label, (ratio, trailing, stems) in rules.items():
            searcher = TrialSearcher(corpus.bundle,
                                     embedder if encoder == "transformer" else None,
                                     encoder=encoder, ratio=ratio, trailing=trailing,
                                     stems=stems)
            rows[label] = {v: score(corpus, searcher, q, "hybrid", typing=True,
                                    as_typed=False)[0] for v, q in pairs.items()}
        out["encoders"][encoder] = rows
    return out


def render(results: dict) -> str:
    return half_table("a half-typed last word the site uses", "half_known", "the rules are",
                      results)


def main() -> int:
    return se.run_trial(__doc__, "half_known", "fastapi,mkdocs,manpages,npm,postgres,python",
                        run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())

"""Trial: while the reader types, a last word the site uses may still be half-typed.

The product completes a half-typed last word when the site does not use it, when the
site holds it only as the stem of longer words, and when a name's separator follows it
(search/spelling.py). A word cut short is often a site word of its own all the same
(`term` of `terminal`, `Proxy` of `ProxyJump`). The rule tried here: while typing, a
last word the site uses is completed all the same when the site's most used word or
name that starts with it (rule 1) is held by at least `RATIO` times as many chunks as
the word.

Everything else is the product's reading and ranking (`Searcher.answer`, typing).
Compared on the half-typed copies of bench/readers_typing.py and the complete queries
they were cut from (both read while typing), hybrid MRR@10, both encoders.

    python bench/half_known.py [--sets fastapi,mkdocs,manpages,npm,postgres,python]

Writes bench/results/half_known.{json,md}.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from half_prefix import half_table  # noqa: E402
from readers_typing import ENCODERS, copies, score  # noqa: E402

from mkdocs_semantic.bundle.lexical import TOKEN  # noqa: E402
from mkdocs_semantic.bundle.vocabulary import identifier_key, vocabulary_word  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

RATIOS = (4, 16)


class TrialSearcher(Searcher):
    """The product's searcher, reading while typing with the trial's rule."""

    def __init__(self, *args, ratio: int | None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.ratio = ratio

    def frequent_completion(self, token: str) -> bool:
        key = vocabulary_word(token) or identifier_key(token)
        if key is None:
            return False
        entries = self.bundle.vocabulary.starting([key])
        own = max((e.count for e in entries if e.key == key), default=0)
        longer = [e.count for e in entries if len(e.key) > len(key)]
        return bool(longer) and max(longer) >= self.ratio * max(own, 1)

    def read(self, query: str, *, typing: bool = False, words=None, known=None):
        tokens = list(TOKEN.finditer(query))
        if self.ratio is None or not typing or not tokens or tokens[-1].end() != len(query):
            return super().read(query, typing=typing, words=words, known=known)
        last = tokens[-1].group()

        def known_unless_open(found: list[str]) -> list[bool]:
            out = self.known(found)
            if found and found[-1] == last and out[-1] and self.frequent_completion(last):
                out[-1] = False
            return out

        return super().read(query, typing=typing, words=words, known=known_unless_open)


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    variants = copies(corpus, name)
    pairs = {"complete": variants["complete"], "half": variants["half"]}
    rules = {"shipped": None, **{f"frequent completion x{r}": r for r in RATIOS}}
    out: dict = {"queries": len(pairs["half"]), "encoders": {}}
    for encoder in ENCODERS:
        rows = {}
        for label, ratio in rules.items():
            searcher = TrialSearcher(corpus.bundle,
                                     embedder if encoder == "transformer" else None,
                                     encoder=encoder, ratio=ratio)
            rows[label] = {v: score(corpus, searcher, q, "hybrid", typing=True,
                                    as_typed=False)[0] for v, q in pairs.items()}
        out["encoders"][encoder] = rows
    return out


def render(results: dict) -> str:
    return half_table("a half-typed last word the site uses", "half_known", "the rule is",
                      results)


def main() -> int:
    return se.run_trial(__doc__, "half_known", "fastapi,mkdocs,manpages,npm,postgres,python",
                        run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())

"""Trial: training texts with a word swapped for a near word the site may not use.

A paraphrase query is the site's meaning in the reader's words. The table's rows for
words the site seldom or never uses are what a paraphrase needs, and the site's texts
cannot teach them. Here the build makes such texts: each of the recipe's headings and
sentences, with one or two of its words (whole-word tokens of 3+ letters, no stop
word) swapped for a word near it (among the model's vectors of whole-word tokens
alone, one of the `NEIGHBOURS` nearest, drawn with a fixed seed; `substituted` says
which words are tried), lowercase, embedded by the model as the recipe's texts are and
added to the fit. Variants: every near word, only near words the site's chunks do not
use, or only near words of another stem; one or two swaps per text.

    python bench/substituted_texts.py [--sets fastapi,npm] [--levers ...]

Writes bench/results/substituted_texts.{json,md} (or --name).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lever_trial  # noqa: E402
import static_encoder as se  # noqa: E402
import static_levers as sl  # noqa: E402

from mkdocs_semantic.bundle.lexical import STOPWORDS  # noqa: E402

NEIGHBOURS = 8
SEED = 7
WORD = re.compile(r"[A-Za-z]{3,}")


class NearWords:
    """Whole-word tokens of 3+ ASCII letters (no stop word) and their nearest ones by
    the model's vector of each token alone (cached in bench/.cache/near-words-*.npz,
    by the model's hash)."""

    def __init__(self, lab: sl.Lab) -> None:
        vocab = lab.tokenizer.get_vocab()
        words = sorted(w for w in vocab if w.isascii() and w.isalpha() and len(w) >= 3
                       and w.lower() == w and w not in STOPWORDS)
        path = se.CACHE / f"near-words-{lab.embedder.spec.sha256[:12]}.npz"
        near = np.zeros((0, NEIGHBOURS), dtype=np.int64)
        if path.exists():
            with np.load(path) as data:
                near = data["near"]
        if len(near) != len(words):  # missing, or made from another word list
            started = time.perf_counter()
            ids = [vocab[w] for w in words]
            vectors = lab.embedder.embed_token_ids(ids)
            near = np.zeros((len(words), NEIGHBOURS), dtype=np.int64)
            for start in range(0, len(words), 2048):
                sims = vectors[start:start + 2048] @ vectors.T
                for row in range(len(sims)):
                    sims[row, start + row] = -2
                near[start:start + 2048] = np.argsort(-sims, axis=1)[:, :NEIGHBOURS]
            np.savez(path, near=near)
            print(f"near words of {len(words)} tokens in "
                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
        self.words = words
        self.index = {w: i for i, w in enumerate(words)}
        self.near = near

    def of(self, word: str) -> list[str]:
        at = self.index.get(word)
        return [] if at is None else [self.words[i] for i in self.near[at]]


def substituted(texts: list[str], near: NearWords, *, swaps: int, avoid: set[str],
                other_stems: bool = False, seed: int = SEED) -> list[str]:
    """Each text with up to `swaps` of its words swapped for a near word not in
    `avoid` (`other_stems`: nor sharing the word's first four letters). Up to twice
    `swaps` of its words that have near words are drawn, and tried from the last; a
    text none of whose drawn words has an allowed near word is left out."""
    rng = np.random.default_rng(seed)
    out: dict[str, None] = {}
    for text in texts:
        spots = [m for m in WORD.finditer(text) if near.of(m.group().lower())]
        rng.shuffle(spots)
        changed, done = text, 0
        for match in sorted(spots[:swaps * 2], key=lambda m: -m.start()):
            if done == swaps:
                break
            word = match.group().lower()
            options = [w for w in near.of(word) if w not in avoid and w != word
                       and not (other_stems and w[:4] == word[:4])]
            if not options:
                continue
            pick = options[int(rng.integers(len(options)))]
            changed = changed[:match.start()] + pick + changed[match.end():]
            done += 1
        if done and changed not in out:
            out[changed] = None
    return list(out)


def with_texts(lab: sl.Lab, texts: list[str]) -> dict:
    training, _ = lab.with_texts(texts)
    return lab.score(lab.fit(training)) | {"texts": len(texts)}


def run_set(levers: sl.Levers) -> None:
    lab = levers.lab
    near = NearWords(lab)
    short = lab.short_texts
    site = set().union(*(sl.content_words(c.embed_text) for c in lab.corpus.chunks))
    for swaps in (1, 2):
        for avoid, label in ((set(), "any near word"), (site, "near words off the site")):
            levers.measure(f"{label}, {swaps} swap(s), every short text",
                           lambda s=swaps, a=avoid: with_texts(
                               lab, substituted(short, near, swaps=s, avoid=a)))
    levers.measure("any near word of another stem, 1 swap(s), every short text",
                   lambda: with_texts(lab, substituted(short, near, swaps=1, avoid=set(),
                                                       other_stems=True)))


if __name__ == "__main__":
    sys.exit(lever_trial.run(__doc__, "substituted_texts.py",
                             "Trial: training texts with a word swapped for a near word",
                             run_set, count="texts"))

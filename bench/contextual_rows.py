"""Trial: token rows from the model's own token states in the site's text.

The model's vector of a text is the normalized mean of its last layer's token states
([CLS] and [SEP] included). A token's mean state over its occurrences in the site's
texts (chunks, the recipe's headings and sentences) is then the row a sum of rows would
need if states did not depend on their context. Per set, through the product's
`Searcher`, beside the shipped recipe (the model's vector of each token alone as the
ridge prior):

- states alone: the mean states as the table, no fit; summed uniformly with [CLS] and
  [SEP] as the model pools (`uniform`), or IDF-weighted without them (`idf`);
- states as the prior: the shipped ridge fit pulled towards the mean states (scaled to
  the fit's units) instead of the tokens alone, at several lambdas.

    python bench/contextual_rows.py [--sets fastapi,npm] [--levers states,prior]

Writes bench/results/contextual_rows.{json,md}.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lever_trial  # noqa: E402
import static_levers as sl  # noqa: E402

from mkdocs_semantic.indexing.query_table.ridge import (  # noqa: E402
    StaticTable,
    TokenStats,
)
from mkdocs_semantic.indexing.query_table.texts import spread_sample  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402

MAX_CHUNKS = 3000
BATCH = 32
PRIOR_LAMS = (0.01, 0.1, 1.0)


class TokenStates:
    """Sum and count of the model's last-layer state per token id over some texts."""

    def __init__(self, vocab: int, dim: int) -> None:
        self.sums = np.zeros((vocab, dim), dtype=np.float64)
        self.counts = np.zeros(vocab, dtype=np.int64)
        self.pooled_norms: list[float] = []

    def add(self, embedder: OnnxEmbedder, texts: list[str]) -> None:
        """Run the model on `texts`, a batch of similar lengths at a time, and add each
        real token's state (padding left out, as the model's pooling leaves it out)."""
        inputs = {i.name for i in embedder.session.get_inputs()}
        tokens = [e.ids[:sum(e.attention_mask)]  # encode_batch pads to the longest
                  for e in embedder.tokenizer.encode_batch(texts)]
        order = np.argsort([len(t) for t in tokens], kind="stable")
        for start in range(0, len(order), BATCH):
            batch = [tokens[i] for i in order[start:start + BATCH]]
            width = max(len(t) for t in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, t in enumerate(batch):
                ids[row, :len(t)] = t
                mask[row, :len(t)] = 1
            feeds = {"input_ids": ids, "attention_mask": mask,
                     "token_type_ids": np.zeros_like(ids)}
            hidden = embedder.session.run(None, {k: v for k, v in feeds.items()
                                                 if k in inputs})[0]
            on = mask.astype(bool)
            np.add.at(self.sums, ids[on], hidden[on].astype(np.float64))
            np.add.at(self.counts, ids[on], 1)
            pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
            self.pooled_norms += np.linalg.norm(pooled, axis=1).tolist()

    def means(self, ids: np.ndarray) -> np.ndarray:
        return self.sums[ids] / np.maximum(self.counts[ids], 1)[:, None]


def site_states(lab: sl.Lab, *, chunks: bool) -> TokenStates:
    """The states of the recipe's short texts and, with `chunks`, of the set's chunks (up
    to MAX_CHUNKS, spread), cached in bench/.cache/NAME/states-*.npz by the model's hash
    and the texts'."""
    texts = spread_sample([c.embed_text for c in lab.corpus.chunks], MAX_CHUNKS) \
        if chunks else []
    texts += lab.short_texts
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:12]
    path = lab.corpus.cache_dir / f"states-{lab.embedder.spec.sha256[:12]}-{digest}.npz"
    states = TokenStates(lab.vocab, lab.embedder.dim)
    if path.exists():
        with np.load(path) as data:
            states.sums, states.counts = data["sums"], data["counts"]
            states.pooled_norms = data["norms"].tolist()
        return states
    started = time.perf_counter()
    states.add(lab.embedder, [lab.prefix + t for t in texts])
    print(f"{lab.corpus.name}: states of {len(texts)} texts in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    np.savez(path, sums=states.sums, counts=states.counts, norms=np.array(states.pooled_norms))
    return states


def states_table(lab: sl.Lab, states: TokenStates,
                 weighting: str) -> tuple[StaticTable, list[list[int]]]:
    """The mean states as a table (`weighting`: uniform, or idf), and the queries' ids
    to sum it over."""
    if weighting not in ("uniform", "idf"):
        raise ValueError(f"unknown weighting {weighting!r}: use uniform or idf")
    stats = TokenStats.of(lab.base.sequences, [])
    ids = stats.token_ids[states.counts[stats.token_ids] > 0]
    if weighting == "uniform":
        special = np.array(sorted(lab.special & set(np.flatnonzero(states.counts))))
        ids = np.union1d(ids, special)
        table = StaticTable(ids, states.means(ids).astype(np.float32))
        ends = [lab.tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]")]
        return table, [q + ends for q in lab.queries]
    idf = dict(zip(stats.token_ids.tolist(), stats.weights("idf")))
    weights = np.array([idf[i] for i in ids.tolist()])[:, None]
    return StaticTable(ids, (states.means(ids) * weights).astype(np.float32)), lab.queries


def states_prior(lab: sl.Lab, states: TokenStates) -> Callable[[np.ndarray], np.ndarray]:
    """Prior rows: the mean states over the median pooled norm (the targets are unit
    vectors); tokens with no state keep the model's vector alone."""
    scale = 1.0 / float(np.median(states.pooled_norms))

    def rows(tokens: np.ndarray) -> np.ndarray:
        out = lab.token_rows(tokens)
        seen = states.counts[tokens] > 0
        out[seen] = states.means(tokens[seen]) * scale
        return out

    return rows


def run_set(levers: sl.Levers) -> None:
    lab = levers.lab
    for source, chunks in (("chunks and short texts", True), ("short texts", False)):
        names = [f"{source}: states alone, {w}" for w in ("uniform", "idf")] + \
            [f"{source}: states as the prior, lam {lam}" for lam in PRIOR_LAMS]
        if not any(levers.wanted(name) for name in names):
            continue
        states = site_states(lab, chunks=chunks)
        for weighting in ("uniform", "idf"):
            levers.measure(f"{source}: states alone, {weighting}",
                           lambda w=weighting, st=states: lab.score(*states_table(lab, st, w)))
        for lam in PRIOR_LAMS:
            levers.measure(f"{source}: states as the prior, lam {lam}",
                           lambda lam=lam, st=states: lab.score(
                               lab.fit(lab.base, lam=lam, prior_rows=states_prior(lab, st))))


if __name__ == "__main__":
    sys.exit(lever_trial.run(__doc__, "contextual_rows.py",
                             "Trial: token rows from the model's own token states", run_set))

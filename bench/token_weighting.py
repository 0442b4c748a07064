"""Trial: token weights of the static query table beyond plain IDF.

A token's weight sets both its share of a training text's prediction and its share of
a query's sum. Rare tokens weigh most under IDF, and their rows are fitted on the fewest
texts. Per set, the shipped fit (IDF weights) beside:

- confidence: IDF x df / (df + k), a token seen in few texts weighing less (k 1, 3);
- power: IDF ** p (p 0.5 flattens, 1.5 and 2 sharpen).

    python bench/token_weighting.py [--sets fastapi,npm,mkdocs,manshort,postgres,python]

Writes bench/results/token_weighting.{json,md}.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lever_trial  # noqa: E402

from mkdocs_semantic.indexing.query_table import ridge  # noqa: E402

IDF = ridge.TokenStats.weights


def confidence(k: float) -> Callable[[ridge.TokenStats], np.ndarray]:
    return lambda stats: IDF(stats, "idf") * stats.document_counts / (
        stats.document_counts + k)


def power(p: float) -> Callable[[ridge.TokenStats], np.ndarray]:
    return lambda stats: IDF(stats, "idf") ** p


VARIANTS: dict[str, Callable[[ridge.TokenStats], np.ndarray]] = {
    "confidence, k 1": confidence(1),
    "confidence, k 3": confidence(3),
    "IDF ** 0.5": power(0.5),
    "IDF ** 1.5": power(1.5),
    "IDF ** 2": power(2),
}


def run_set(levers: lever_trial.Levers) -> None:
    for name, weights in VARIANTS.items():
        ridge.TokenStats.weights = lambda stats, weighting, w=weights, **_: w(stats)
        try:
            levers.measure(name, lambda: levers.lab.score(levers.lab.fit(levers.lab.base)))
        finally:
            ridge.TokenStats.weights = IDF


if __name__ == "__main__":
    sys.exit(lever_trial.run(__doc__, "token_weighting.py",
                             "Trial: token weights of the static query table beyond plain IDF",
                             run_set))

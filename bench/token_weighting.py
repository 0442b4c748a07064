"""Trial: token weights of the static query table beyond plain IDF.

A token's weight sets both its share of a training text's prediction and its share of
a query's sum. Rare tokens weigh most under IDF, and their rows are fitted on the fewest
texts. Per set, the shipped fit (IDF weights) beside:

- confidence: IDF x df / (df + k), a token seen in few texts weighing less (k 1, 3);
- power: IDF ** p (p 0.5 flattens, 1.5 and 2 sharpen).

    python bench/token_weighting.py [--sets fastapi,npm,mkdocs,manshort,postgres,python]
        [--levers WORDS]

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
import static_levers as sl  # noqa: E402

from mkdocs_semantic.indexing.query_table.ridge import TokenStats  # noqa: E402


def confidence(k: float) -> Callable[[TokenStats], np.ndarray]:
    return lambda stats: stats.weights("idf") * stats.document_counts / (
        stats.document_counts + k)


def power(p: float) -> Callable[[TokenStats], np.ndarray]:
    return lambda stats: stats.weights("idf") ** p


VARIANTS: dict[str, Callable[[TokenStats], np.ndarray]] = {
    "confidence, k 1": confidence(1),
    "confidence, k 3": confidence(3),
    "IDF ** 0.5": power(0.5),
    "IDF ** 1.5": power(1.5),
    "IDF ** 2": power(2),
}


def run_set(levers: sl.Levers) -> None:
    lab = levers.lab
    for name, weights in VARIANTS.items():
        levers.measure(name, lambda w=weights: lab.score(lab.fit(lab.base, token_weights=w)))


if __name__ == "__main__":
    sys.exit(lever_trial.run(__doc__, "token_weighting.py",
                             "Trial: token weights of the static query table beyond plain IDF",
                             run_set))

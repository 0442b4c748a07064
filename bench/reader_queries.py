"""Trial: other readers' queries as training texts of the static query table.

The judged queries themselves as training texts take the static encoder to the model
on those queries (bench/results/static_levers.md, the oracle). Would a site's own
readers' queries (a search log) do the same for queries the table has not seen? This
measures it: the judged queries are cut into `k` folds
(every k-th query, so each subset is spread over them); each fold is answered by a
table fitted on the shipped recipe's texts plus the other folds' queries, towards the
model's query vectors, at weight `w` against one site text. A fold never trains on
itself, so every figure is of queries the table never saw, asked by other readers of
the same site.

    python bench/reader_queries.py [--sets fastapi,npm,...]

Writes bench/results/reader_queries.{json,md}.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lever_trial  # noqa: E402
import static_encoder as se  # noqa: E402
import static_levers as sl  # noqa: E402

from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

FOLDS = (2, 5)
WEIGHTS = (1.0, 5.0)


def cross_validated(lab: sl.Lab, model: np.ndarray, folds: int, weight: float) -> dict:
    """Each fold's queries answered by a table that trained on the other folds'."""
    corpus = lab.corpus
    searcher = Searcher(corpus.bundle, encoder="static")
    vectors: list[np.ndarray | None] = [None] * len(corpus.queries)
    for fold in range(folds):
        asked = [i for i in range(len(corpus.queries)) if i % folds == fold]
        known = [i for i in range(len(corpus.queries)) if i % folds != fold]
        training = sl.Training(lab.base.sequences + [lab.queries[i] for i in known],
                               np.concatenate([lab.base.targets, model[known]]))
        sample_weight = np.concatenate([np.ones(len(lab.base.targets)),
                                        np.full(len(known), weight)])
        table = lab.fit(training, sample_weight=sample_weight)
        for i in asked:
            vectors[i] = sl.query_vector(table, lab.queries[i])
    return se.evaluate(corpus, searcher, vectors)


def run_set(levers: sl.Levers) -> None:
    lab = levers.lab
    model = lab.embedder.embed_queries([q.text for q in lab.corpus.queries])
    for folds in FOLDS:
        for weight in WEIGHTS:
            levers.measure(f"{folds} folds, queries weigh {weight:g}",
                           lambda f=folds, w=weight: cross_validated(lab, model, f, w))


if __name__ == "__main__":
    sys.exit(lever_trial.run(__doc__, "reader_queries.py",
                             "Trial: other readers' queries as training texts", run_set))

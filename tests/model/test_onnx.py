"""Running the model's batches side by side: same vectors, same order, errors kept."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from mkdocs_semantic.model.onnx import (
    MAX_WORKERS,
    OnnxEmbedder,
    map_batches,
    single_token_vectors,
    thread_split,
)
from mkdocs_semantic.model.spec import default_model_spec

TEXTS = [
    "Steep black tea for four minutes in water just off the boil.",
    "Marmalade is made from bitter oranges, sugar and water, boiled until it sets.",
    "Add milk after pouring, never before.",
    "Path parameters are declared with the same syntax as Python format strings. " * 6,
    "Install the package, then run the server.",
    "Dependencies can declare their own sub-dependencies, as deep as needed. " * 12,
    "Query parameters that are not part of the path are interpreted as query parameters.",
    "Tea.",
]


def test_batches_come_back_in_order_with_at_most_twice_the_workers_started_ahead():
    started: list[int] = []
    running = threading.Semaphore(0)

    def run(n: int) -> np.ndarray:
        started.append(n)
        running.release()
        time.sleep(0.001 * (n % 3))  # finish out of order
        return np.array([n])

    got = []
    for rows in map_batches(run, list(range(20)), workers=3):
        got.append(int(rows[0]))
        assert len(started) <= len(got) + 6
    assert got == list(range(20))


def test_a_failing_batch_stops_the_rest_and_raises_in_the_caller():
    def run(n: int) -> np.ndarray:
        if n == 4:
            raise RuntimeError("batch 4 failed")
        return np.array([n])

    got = []
    with pytest.raises(RuntimeError, match="batch 4 failed"):
        for rows in map_batches(run, list(range(100)), workers=2):
            got.append(int(rows[0]))
    assert got == [0, 1, 2, 3]


def test_thread_split_runs_one_batch_per_core_and_caps_the_batches_at_once():
    assert thread_split(1) == (1, 1)
    assert thread_split(2) == (2, 1)
    assert thread_split(4 * MAX_WORKERS) == (MAX_WORKERS, 4)
    workers, threads = thread_split(0)
    assert 1 <= workers <= MAX_WORKERS and threads >= 1


def test_batches_run_side_by_side_give_the_vectors_of_one_batch_at_a_time():
    spec = default_model_spec()
    one_at_a_time = OnnxEmbedder(spec, batch_size=2)
    side_by_side = OnnxEmbedder(spec, batch_size=2, threads=1, workers=3)
    expected = one_at_a_time.embed_documents(TEXTS)
    # the same floats to the bit on the machines measured; a tolerance for any other
    np.testing.assert_allclose(side_by_side.embed_documents(TEXTS), expected, atol=1e-6)
    alone = np.stack([one_at_a_time.embed_documents([t])[0] for t in TEXTS])
    np.testing.assert_allclose(expected, alone, atol=1e-6)

    tokenizer = one_at_a_time.tokenizer
    ends = {"cls_id": tokenizer.token_to_id("[CLS]"), "sep_id": tokenizer.token_to_id("[SEP]")}
    ids = list(range(2000, 2100))
    np.testing.assert_allclose(
        single_token_vectors(side_by_side, ids, batch_size=7, **ends),
        single_token_vectors(one_at_a_time, ids, **ends), atol=1e-6)

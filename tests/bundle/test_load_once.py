"""Payloads read once each, several at the same time (bundle/load_once.py)."""

from __future__ import annotations

import threading

import pytest

from mkdocs_semantic.bundle.load_once import LoadOnce, in_parallel


def test_a_value_is_made_once_however_many_threads_ask():
    made = []
    once: LoadOnce[int] = LoadOnce()

    def make() -> int:
        made.append(1)
        return 7

    threads = [threading.Thread(target=once.get, args=("key", make)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert once.get("key", make) == 7 and len(made) == 1 and "key" in once


def test_calls_run_at_the_same_time_and_the_first_error_is_raised_after_all():
    # three calls that each wait for the other two: they pass only if run together
    meet = threading.Barrier(3, timeout=30)
    done = []
    in_parallel(lambda i=i: (meet.wait(), done.append(i)) for i in range(3))
    assert sorted(done) == [0, 1, 2]

    finished = []

    def fails() -> None:
        raise ValueError("bad shard")

    with pytest.raises(ValueError, match="bad shard"):
        in_parallel([fails, lambda: finished.append(1), lambda: finished.append(2)])
    assert sorted(finished) == [1, 2]
    in_parallel([])  # nothing to do

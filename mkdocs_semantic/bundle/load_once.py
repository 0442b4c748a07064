"""Payloads read once each, and several read at the same time.

A bundle downloaded without its shards fetches each when a query first needs it. A
query usually needs several at once (the keyword shards of its terms, the partitions
it probes, the excerpts of the pages it shows): `in_parallel` fetches them together,
so that a query waits for about one round trip per step instead of one per file.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")

WORKERS = 8
"""Files fetched at the same time, at most."""


class LoadOnce(Generic[T]):
    """Values made once per key, even when threads ask for one at the same time;
    different keys are made in parallel."""

    def __init__(self) -> None:
        self._values: dict[Hashable, T] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def __contains__(self, key: Hashable) -> bool:
        return key in self._values

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        if key in self._values:
            return self._values[key]
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._values:
                self._values[key] = make()
        return self._values[key]


def in_parallel(calls: Iterable[Callable[[], object]]) -> None:
    """Run `calls` on up to WORKERS threads; the first exception is raised once all
    have finished. One call or none runs on this thread."""
    work = list(calls)
    if len(work) <= 1:
        for call in work:
            call()
        return
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(work))) as pool:
        futures = [pool.submit(call) for call in work]
    for future in futures:
        future.result()

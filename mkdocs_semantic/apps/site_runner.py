"""One site's searches, one at a time on a thread of its own.

A server of several sites searches each on its own runner, so a site whose source (a
URL, a database) is slow holds its own thread only: the other sites keep answering. A
search waits for such a site at most the site's `wait`, then leaves it out (`SiteLate`:
the site is unavailable, a 503 when it was the only one asked), while the site's search
goes on and keeps what it fetched for the next query. Until that search ends, later
ones leave the site out at once instead of queueing behind it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from ..bundle.format import BundleError
from .service import BadRequest
from .sources import env_seconds

log = logging.getLogger("mkdocs_semantic")
T = TypeVar("T")

SOURCE_WAIT = 5.0
"""Seconds a search waits for a site whose source is a URL or a database: a healthy one
sends a query's few small files well within it."""
SOURCE_WAIT_ENV = "MKDOCS_SEMANTIC_SOURCE_WAIT"


class SiteLate(BundleError):
    """A site that did not answer within its wait; the message says how long."""


def source_wait() -> float:
    """$MKDOCS_SEMANTIC_SOURCE_WAIT (seconds), else `SOURCE_WAIT`."""
    try:
        return env_seconds(SOURCE_WAIT_ENV, SOURCE_WAIT)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None


class SiteRunner:
    """Runs site `name`'s searches one at a time; `wait`: how long a search waits for
    one (None: as long as it takes, for a site of local files)."""

    def __init__(self, name: str, wait: float | None = None) -> None:
        self.name = name
        self.wait = wait
        self._jobs: queue.SimpleQueue[tuple[Future, Callable[[], object]]] = \
            queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._started: float | None = None
        """When the search now running started (monotonic), None when idle."""
        self._overdue = False
        """Whether the search now running has outlasted a search's wait."""

    def submit(self, call: Callable[[], T]) -> Future[T]:
        """Queue `call`; refused at once (`SiteLate`) while the search now running has
        outlasted a search's wait already."""
        with self._lock:
            if self._overdue:
                busy = time.monotonic() - (self._started or time.monotonic())
                raise SiteLate(f"site {self.name!r} is still waiting on its source for an "
                               f"earlier search ({busy:.0f} s so far); try again shortly")
            if self._thread is None:  # a daemon: a search left waiting never holds up exit
                self._thread = threading.Thread(target=self._work, name=f"site-{self.name}",
                                                daemon=True)
                self._thread.start()
            future: Future[T] = Future()
            self._jobs.put((future, call))
            return future

    def result(self, future: Future[T], *, until: float | None) -> T:
        """`future`'s value, waiting until the monotonic time `until` at most (None: as
        long as it takes). Past it, the search goes on and the site is `SiteLate`."""
        timeout = None if until is None else max(0.0, until - time.monotonic())
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:  # TimeoutError itself from Python 3.11
            if future.done():  # the search's own error, a socket's timeout say
                raise
        if not future.cancel():  # running: it goes on, and says how it ended
            future.add_done_callback(self._ended)
        with self._lock:
            if self._started is not None:  # the search in the way, this one's or another's
                self._overdue = True
        raise SiteLate(f"site {self.name!r} did not answer within {self.wait:g} s: its source "
                       "is slow; what it sends is kept for the next query")

    def _work(self) -> None:
        while True:
            future, call = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue  # given up before it started
            with self._lock:
                self._started = time.monotonic()
            try:
                value, error = call(), None
            except BaseException as exc:  # the caller's to raise
                value, error = None, exc
            with self._lock:  # idle before the caller hears: its next search is not refused
                self._started = None
                self._overdue = False
            if error is None:
                future.set_result(value)
            else:
                future.set_exception(error)

    def _ended(self, future: Future) -> None:
        error = None if future.cancelled() else future.exception()
        if error is None:
            log.info("site %r answered a search it had been left out of", self.name)
        else:
            log.warning("site %r: a search it had been left out of failed: %s", self.name,
                        error)

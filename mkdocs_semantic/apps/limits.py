"""Limits on the connections `serve` keeps open, for uvicorn, and a log that cannot flood.

uvicorn closes an idle keep-alive connection after `timeout_keep_alive`, but a
connection that never sends a complete request head has no timer at all: a
client can open one and send nothing (or a byte now and then) for ever. Its
`limit_concurrency` answers 503 to a *request* once the open connections reach
the limit, so idle sockets that send nothing would turn real users away instead
of being closed. Nor does anything cap the open connections, so enough idle
sockets exhaust the process's file descriptors and the server stops accepting.

`GuardedProtocol` subclasses uvicorn's HTTP protocol class with two rules:

- a connection must complete each request head within `header_timeout`
  seconds of opening, or of the end of its previous response, else it is closed;
- at most `max_connections` stay open: one more closes the connection that has
  waited longest for a request head (as nginx reuses idle keep-alive
  connections), or, when every connection is busy with a request, itself.

Importing this module imports uvicorn: only `serve` does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

log = logging.getLogger("mkdocs_semantic")


@dataclass(frozen=True)
class ConnectionLimits:
    """What one worker allows its clients. Defaults are `serve`'s."""

    max_connections: int = 1000
    header_timeout: float = 10.0
    """Seconds a connection may take to send a whole request head."""
    keep_alive_timeout: float = 5.0
    """Seconds an idle keep-alive connection stays open (uvicorn's own timer)."""
    backlog: int = 2048
    """Connections the kernel queues before they are accepted (also how many the
    event loop accepts in one go: they all need a file descriptor at once)."""


class _Guarded:
    """Mixin over a uvicorn HTTP protocol; see the module docstring."""

    # set by uvicorn's protocol __init__ / connection_made
    config: Any
    server_state: Any
    connections: set
    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    cycle: Any

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        limits = self._limits()
        if len(self.connections) > limits.max_connections and not self._close_longest_idle():
            log.warning("connection limit (%d) reached and every connection is busy: "
                        "refused a new one; raise --max-connections or add workers",
                        limits.max_connections)
            transport.abort()
            return
        self._wait_for_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)  # type: ignore[misc]
        if self._busy():
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        if not self._busy() and not self.transport.is_closing():
            self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)  # type: ignore[misc]

    # --------------------------------------------------------------------------------

    def _limits(self) -> ConnectionLimits:
        return getattr(self.config, "connection_limits", None) or ConnectionLimits()

    def _waiting(self) -> dict[_Guarded, None]:
        """This server's connections waiting for a request head, longest-waiting first."""
        waiting = getattr(self.server_state, "waiting_for_head", None)
        if waiting is None:
            waiting = self.server_state.waiting_for_head = {}
        return waiting

    def _busy(self) -> bool:
        """A request has its head and its response is not finished yet."""
        return self.cycle is not None and not self.cycle.response_complete

    def _wait_for_head(self) -> None:
        self._stop_waiting()
        self._waiting()[self] = None
        self._head_timer = self.loop.call_later(self._limits().header_timeout,
                                                self._head_too_slow)

    def _stop_waiting(self) -> None:
        self._waiting().pop(self, None)
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        self._waiting().pop(self, None)
        if not self.transport.is_closing():
            log.info("closed connections that sent no complete request within %g s",
                     self._limits().header_timeout)
            self.transport.close()

    def _close_longest_idle(self) -> bool:
        waiting = self._waiting()
        victim = next(iter(waiting), None)
        if victim is None:
            return False
        victim._stop_waiting()
        victim.transport.close()
        log.warning("connection limit (%d) reached: closed connections that were waiting "
                    "for a request", self._limits().max_connections)
        return True


class GuardedProtocol(_Guarded, AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    """uvicorn's HTTP protocol (httptools when installed, else h11) with the limits.

    Named to uvicorn by import string (`PROTOCOL`), so worker processes load it too.
    """


PROTOCOL = f"{__name__}:GuardedProtocol"


@dataclass
class _Window:
    started: float
    passed: int = 1
    held_back: int = 0


class RateLimitFilter(logging.Filter):
    """Lets the first `burst` log records of each kind through per `interval` seconds.

    A kind is the logger, level and message template. The last record let through
    in a window says that more are held back; the first of the next window says how
    many were. Keeps at most `kinds` windows (the oldest go first).
    """

    def __init__(self, *, burst: int = 5, interval: float = 60.0, kinds: int = 1000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.burst = burst
        self.interval = interval
        self.kinds = kinds
        self.clock = clock
        self._windows: dict[tuple[str, int, str], _Window] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, record.levelno, str(record.msg))
        now = self.clock()
        window = self._windows.get(key)
        if window is None or now - window.started >= self.interval:
            if window is not None and window.held_back:
                self._note(record, f"{window.held_back} more like this were held back "
                                   f"in {self.interval:g} s")
            self._windows.pop(key, None)
            self._windows[key] = _Window(started=now)
            while len(self._windows) > self.kinds:
                del self._windows[next(iter(self._windows))]
            return True
        if window.passed < self.burst:
            window.passed += 1
            if window.passed == self.burst:
                self._note(record, f"more like this are held back for up to "
                                   f"{self.interval - (now - window.started):.0f} s")
            return True
        window.held_back += 1
        return False

    @staticmethod
    def _note(record: logging.LogRecord, note: str) -> None:
        record.msg = f"{record.getMessage()} ({note})"
        record.args = ()

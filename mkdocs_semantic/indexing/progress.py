"""Progress of a long build step, weighted by tokens, on a terminal or in a CI log.

A chunk's cost grows with its length, so the estimate counts tokens, not chunks. On a
terminal one line is redrawn; without one (CI), a log line is written every
`LOG_INTERVAL` seconds, so a build is never silent for long.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from ..logs import build_log as log

LOG_INTERVAL = 10.0
"""Seconds between progress lines in a log (no terminal)."""
TERMINAL_PREFIX = "semantic: "
"""What the build log puts before each line (`logs.build_log`), on the terminal line too."""
REDRAW_INTERVAL = 0.5
"""Seconds between redraws of the line on a terminal."""


class _LastLine(logging.Handler):
    """Notes when MkDocs' log last showed a line (its own and every plugin's)."""

    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None

    def emit(self, record: logging.LogRecord) -> None:
        self.at = time.monotonic()


# The silence before a step's first progress line counts from the log's last line, not
# from the step's start: work between steps (reading the cache, counting tokens) would
# otherwise add to the interval.
last_line = _LastLine()
logging.getLogger("mkdocs").addHandler(last_line)


def duration(seconds: float) -> str:
    """`42 s`, `3 min 05 s`, `1 h 02 min`."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


@dataclass
class Progress:
    """Counts done items and tokens of one step, and reports them now and then."""

    label: str
    """What is done, plural: "embedding chunks"."""
    items: int
    tokens: int
    stream: TextIO | None = None
    """Where a terminal line goes; None: sys.stderr."""
    interactive: bool | None = None
    """Redraw one line (a terminal) or log lines; None: whether `stream` is a terminal."""
    clock: Callable[[], float] = time.monotonic
    summary: bool = True
    """Whether `close` reports the step even if it was too quick for a progress line."""
    quiet_since: float | None = None
    """When the log last showed a line: the first progress line comes `LOG_INTERVAL`
    after it. None: MkDocs' last log line when `clock` is the monotonic clock that
    stamps it, else the step's start."""
    done_items: int = 0
    done_tokens: int = 0
    started: float = field(init=False)
    last_report: float = field(init=False)
    reported: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        if self.stream is None:
            self.stream = sys.stderr
        if self.interactive is None:
            isatty = getattr(self.stream, "isatty", None)
            self.interactive = bool(isatty and isatty())
        self.started = self.clock()
        since = self.quiet_since
        if since is None and self.clock is time.monotonic:
            since = last_line.at
        self.last_report = self.started if since is None else min(self.started, since)

    def advance(self, items: int, tokens: int) -> None:
        self.done_items += items
        self.done_tokens += tokens
        now = self.clock()
        interval = REDRAW_INTERVAL if self.interactive else LOG_INTERVAL
        if now - self.last_report >= interval:
            self.last_report = now
            self.reported = True
            self._report(self.line(now))

    def remaining_seconds(self, now: float | None = None) -> float | None:
        """Seconds left at the rate so far, by tokens; None before any token is done."""
        now = self.clock() if now is None else now
        if self.done_tokens <= 0:
            return None
        rate = self.done_tokens / max(now - self.started, 1e-9)
        return max(0, self.tokens - self.done_tokens) / rate

    def line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        elapsed = max(now - self.started, 1e-9)
        share = self.done_tokens / self.tokens if self.tokens else 1.0
        left = self.remaining_seconds(now)
        eta = "" if left is None else f", about {duration(left)} left"
        return (f"{self.label} {self.done_items:,}/{self.items:,} ({share:.0%}), "
                f"{self.done_items / elapsed:.0f}/s{eta}")

    def close(self) -> None:
        """The last line: what was done and how long it took."""
        if not (self.summary or self.reported):
            return
        took = duration(self.clock() - self.started)
        final = f"{self.label} {self.done_items:,}/{self.items:,} done in {took}"
        if self.interactive:
            assert self.stream is not None  # __post_init__ set it
            self.stream.write(f"\r\x1b[2K{TERMINAL_PREFIX}{final}\n")
            self.stream.flush()
        else:
            log.info(final)

    def _report(self, text: str) -> None:
        if self.interactive:
            assert self.stream is not None  # __post_init__ set it
            self.stream.write(f"\r\x1b[2K{TERMINAL_PREFIX}{text}")
            self.stream.flush()
        else:
            log.info(text)

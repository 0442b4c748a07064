"""A `mkdocs-semantic serve` process for a benchmark: started, waited for, stopped."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"  # loopback only, by design


@contextmanager
def serve_process(command: list[str], *, port: int, log: Path | None = None,
                  timeout: float = 120) -> Iterator[subprocess.Popen]:
    """Run `command` until `GET /health` on `port` answers, yield the process, and stop
    it afterwards. Output goes to the file `log` (never a pipe, which a chatty server
    could fill and block on) or nowhere; an early exit shows the log's end."""
    with open(log or os.devnull, "wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                shown = log.read_text(errors="replace")[-2000:] if log else \
                    "run it by hand to see why"
                raise SystemExit(f"serve exited early:\n{shown}")
            try:
                urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

"""Servers the tests start as subprocesses on 127.0.0.1, and always stop."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class Running:
    """A started server process and the file its output goes to."""

    proc: subprocess.Popen
    log: Path
    final: str | None = None
    """All the output, kept when the process is stopped and its file removed."""

    def output(self) -> str:
        if self.final is not None:
            return self.final
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def running(command: Sequence[str], *, ready_url: str, name: str, timeout: float = 60,
            env: dict[str, str] | None = None) -> Iterator[Running]:
    """Start `command`, wait until `ready_url` answers, and stop the process afterwards.

    Fails the test with the process's last output if it exits first or stays silent
    past `timeout` seconds. Output goes to a file, not a pipe, so a chatty server
    never blocks on a full pipe.
    """
    with tempfile.TemporaryDirectory(prefix="server-") as tmp:
        log = Path(tmp) / "output.txt"
        with open(log, "wb") as out:
            proc = subprocess.Popen(list(command), stdout=out, stderr=subprocess.STDOUT,
                                    env=env)
        server = Running(proc=proc, log=log)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"{name} exited early:\n{server.output()[-3000:]}")
                try:
                    urllib.request.urlopen(ready_url, timeout=5).close()
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        proc.kill()
                        pytest.fail(f"{name} did not answer {ready_url} within {timeout:.0f} s:"
                                    f"\n{server.output()[-3000:]}")
                    time.sleep(0.3)
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            server.final = server.output()


def with_open_file_limit(command: Sequence[str], limit: int) -> list[str]:
    """`command` (a Python one: `python -m ...`) run with at most `limit` open files,
    soft and hard, as on a host whose default limit is low."""
    if command[0] != sys.executable:
        raise ValueError("with_open_file_limit wraps a command run by this Python")
    launcher = ("import os, resource, sys; "
                f"resource.setrlimit(resource.RLIMIT_NOFILE, ({limit}, {limit})); "
                "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")
    return [sys.executable, "-c", launcher, *command[1:]]

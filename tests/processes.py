"""Servers the tests start as subprocesses on 127.0.0.1, and always stop."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest


@contextmanager
def running(command: Sequence[str], *, ready_url: str, name: str, timeout: float = 60,
            env: dict[str, str] | None = None) -> Iterator[subprocess.Popen]:
    """Start `command`, wait until `ready_url` answers, and stop the process afterwards.

    Fails the test with the process's last output if it exits first or stays silent
    past `timeout` seconds.
    """
    proc = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                pytest.fail(f"{name} exited early:\n{proc.stdout.read()[-3000:]}")
            try:
                urllib.request.urlopen(ready_url, timeout=5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    proc.kill()
                    pytest.fail(f"{name} did not answer {ready_url} within {timeout:.0f} s:\n"
                                f"{proc.stdout.read()[-3000:]}")
                time.sleep(0.3)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()

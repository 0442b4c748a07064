"""`npm test` in js/: a dot a passing test, every failure in full, then the closing
counts the TAP reporter writes (`# pass N`, `# fail N`), which CI reads."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from ..conftest import REPO

JS = REPO / "js"

SAMPLE = """
import test from "node:test";
import assert from "node:assert";
test("passes", () => {});
test("fails", () => { assert.strictEqual(1, 2, "one is not two"); });
test("passes too", () => {});
"""


def test_npm_tests_reporter_is_short_keeps_failures_whole_and_ends_with_the_counts(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node on PATH")
    script = json.loads((JS / "package.json").read_text(encoding="utf-8"))["scripts"]["test"]
    (reporter,) = [arg for arg in script.split() if arg.startswith("--test-reporter=")]
    sample = tmp_path / "sample.test.mjs"
    sample.write_text(SAMPLE, encoding="utf-8")
    proc = subprocess.run([node, "--test", reporter, str(sample)], cwd=JS, capture_output=True,
                          text=True, timeout=120)  # hang guard only
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == ".X."
    assert "one is not two" in proc.stdout and "sample.test.mjs:5" in proc.stdout
    assert lines[-8:-1] == ["# tests 3", "# suites 0", "# pass 2", "# fail 1",
                            "# cancelled 0", "# skipped 0", "# todo 0"]
    assert lines[-1].startswith("# duration_ms ")

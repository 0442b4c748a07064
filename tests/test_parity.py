"""Parity of the readers on one committed, real bundle (tests/fixtures/parity).

`tests/fixtures/make_parity.py` wrote the bundle and the Python searcher's answers; here
the answers are recomputed from the committed bundle and must not have changed, and the
JavaScript engine (node, js/test/parity.test.js) must give the same codes and top 10.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"


def _generator():
    spec = importlib.util.spec_from_file_location("make_parity", FIXTURES / "make_parity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_python_answers_match_the_committed_expectations():
    generator = _generator()
    expected = json.loads(generator.EXPECTED.read_text(encoding="utf-8"))
    actual = json.loads(json.dumps(generator.expectations(generator.BUNDLE), ensure_ascii=False))
    assert len(actual["queries"]) >= 20
    for want, got in zip(expected["queries"], actual["queries"], strict=True):
        assert got == want, want["query"]
    assert actual["filtered"] == expected["filtered"]
    assert actual["synthetic_codes"] == expected["synthetic_codes"]
    # the fixture exercises what it is for: several shards, a query without a vector
    catalog = json.loads(next(generator.BUNDLE.glob("catalog.*.json")).read_text("utf-8"))
    shard_lists = [catalog["fragments"], catalog["lexical"]["shards"],
                   catalog["vectors"][0]["parts"], catalog["encoders"]["static"]["shards"]]
    assert all(len(shards) > 2 for shards in shard_lists)
    assert any(q["codes"] is None for q in expected["queries"])
    assert expected["filtered"]["results"]


def test_the_javascript_engine_gives_the_same_answers():
    node = shutil.which("node")
    if node is None or not (REPO / "js" / "node_modules" / "@huggingface").exists():
        pytest.fail("node and js/node_modules are needed: run scripts/setup")
    run = subprocess.run([node, "--test", "test/parity.test.js"], cwd=REPO / "js",
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout

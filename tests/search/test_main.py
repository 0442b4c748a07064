"""`python -m mkdocs_semantic.search SITE QUERY`, as scripts/demo runs it."""

from __future__ import annotations

import subprocess
import sys

from ..conftest import REPO

BUNDLE = REPO / "tests" / "fixtures" / "parity" / "bundle"


def test_python_dash_m_search_prints_results_and_no_warning():
    """Every warning an error: running the package as a script must not import its
    searcher module twice (Python's RuntimeWarning about `sys.modules`)."""
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-m", "mkdocs_semantic.search", str(BUNDLE),
         "run code when the app starts"],
        capture_output=True, text=True, timeout=120)  # hang guard only
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr
    assert "assets/#cache-forever" in proc.stdout

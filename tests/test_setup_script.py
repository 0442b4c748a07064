"""setup.py, as `pip install` of a clone runs it: before the long npm build of the browser
client it says what it does, where pip's user sees it."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from .conftest import REPO


def load_setup_script(root: Path):
    spec = importlib.util.spec_from_file_location("setup_script_under_test", root / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines the build steps; `setup()` runs only as __main__
    return module


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script stands in for npm")
def test_the_client_build_says_first_what_it_runs_and_for_how_long(tmp_path, monkeypatch,
                                                                    capfd):
    """pip keeps a build's stderr to itself unless it runs with -v, so the line also goes
    to the terminal pip runs in (a file here)."""
    shutil.copy(REPO / "setup.py", tmp_path / "setup.py")  # a tree with no built client
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "package.json").write_text("{}", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text('#!/bin/sh\necho "npm $*" >&2\n', encoding="utf-8")
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    setup_script = load_setup_script(tmp_path)
    terminal = tmp_path / "terminal"
    monkeypatch.setattr(setup_script, "TERMINAL", str(terminal))

    setup_script.build_client()

    notice = setup_script.BUILD_NOTICE
    assert "npm ci" in notice and "npm run build" in notice and "about 2 minutes" in notice
    assert capfd.readouterr().err.splitlines() == [
        notice, "npm ci --no-audit --no-fund", "npm run build"]
    assert terminal.read_text(encoding="utf-8").strip() == notice

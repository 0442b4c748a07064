"""Builds the browser client (js/, with npm) into mkdocs_semantic/assets/ when it is
missing, so that `pip install .` from a clean clone, and every sdist and wheel, ship a
working client. All metadata lives in pyproject.toml."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
JS = HERE / "js"
ASSETS = HERE / "mkdocs_semantic" / "assets"
COPIED_INTO_CLIENT = ("LICENSE", "NOTICE")
BUILD_NOTICE = ("mkdocs-semantic-search: building the browser client with npm (npm ci, npm run "
                "build in js/): about 2 minutes, once (this source tree has no built client yet)")
TERMINAL = "/dev/tty"
"""Where pip's user sees a line: pip keeps a build backend's stdout and stderr to itself
unless it runs with -v (or the build fails), but not the terminal it runs in."""


def client_is_built() -> bool:
    try:
        listing = json.loads((ASSETS / "client.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not all((ASSETS / name).is_file()
               for name in [*listing.get("files", []), listing.get("entry", "client.json")]):
        return False
    # The client carries copies of these (and they are in its hash): an edit means a rebuild.
    return all((ASSETS / name).read_bytes() == (HERE / name).read_bytes()
               for name in COPIED_INTO_CLIENT if (HERE / name).is_file())


def build_client() -> None:
    if client_is_built():
        return
    if not (JS / "package.json").is_file():
        raise SystemExit(
            f"mkdocs-semantic-search: the browser client is not built in {ASSETS} and there is "
            "no js/ folder to build it from: install from a git checkout or an sdist"
        )
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "mkdocs-semantic-search: building the browser client needs Node.js 20+ and npm on "
            "PATH (it runs `npm ci` and `npm run build` in js/); install them, then run pip again"
        )
    tell(BUILD_NOTICE)
    for args in (["ci", "--no-audit", "--no-fund"], ["run", "build"]):
        subprocess.run([npm, *args], cwd=JS, check=True)


def tell(line: str) -> None:
    """`line` on stderr (what `pip install -v` shows), and on the terminal when stderr is
    not it, as under pip; without a terminal (CI, Windows), stderr only."""
    print(line, file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        return
    try:
        with open(TERMINAL, "w", encoding="utf-8") as terminal:
            terminal.write(f"\n{line}\n")
    except OSError:
        pass


class BuildPyWithClient(build_py):
    def run(self) -> None:
        build_client()
        super().run()


class SdistWithClient(sdist):
    def run(self) -> None:
        build_client()  # the sdist then carries the built client as package data
        super().run()


if __name__ == "__main__":  # as setuptools runs it; a test imports it
    setup(cmdclass={"build_py": BuildPyWithClient, "sdist": SdistWithClient})

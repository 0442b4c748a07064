"""The browser client ships with the package: wheels carry the built files, and a build
without them explains that it needs npm. Builds run in pip's isolated environment on a
copy of the project, as `pip install .` from a clean clone would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mkdocs_semantic.client import ASSETS, ClientAssets, ClientError

from .conftest import REPO

PROJECT_FILES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "NOTICE")


def copy_project(target: Path, *, with_client: bool) -> Path:
    target.mkdir()
    for name in PROJECT_FILES:
        shutil.copy2(REPO / name, target / name)
    ignore = shutil.ignore_patterns("__pycache__", *([] if with_client else ["assets"]))
    shutil.copytree(REPO / "mkdocs_semantic", target / "mkdocs_semantic", ignore=ignore)
    (target / "js").mkdir()
    for name in ("package.json", "package-lock.json", "build.mjs"):
        shutil.copy2(REPO / "js" / name, target / "js" / name)
    shutil.copytree(REPO / "js" / "src", target / "js" / "src")
    return target


def pip_wheel(project: Path, out: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
         "--disable-pip-version-check", "-w", str(out), str(project)],
        capture_output=True, text=True, timeout=600, env=env,
    )


def test_the_wheel_carries_every_client_file(tmp_path):
    client = ClientAssets.load()
    project = copy_project(tmp_path / "project", with_client=True)
    proc = pip_wheel(project, tmp_path / "dist")
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {name.removeprefix("mkdocs_semantic/assets/") for name in names
               if name.startswith("mkdocs_semantic/assets/")}
    assert {*client.files, "client.json"} <= shipped
    listing = json.loads(zipfile.ZipFile(wheel).read("mkdocs_semantic/assets/client.json"))
    assert listing["hash"] == client.hash


def test_a_build_without_the_client_or_npm_says_to_install_npm(tmp_path):
    project = copy_project(tmp_path / "project", with_client=False)
    bin_dir = tmp_path / "bin"  # a PATH with python and nothing else
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    env = {**os.environ, "PATH": str(bin_dir)}
    proc = pip_wheel(project, tmp_path / "dist", env)
    assert proc.returncode != 0
    assert "needs Node.js 20+ and npm on PATH" in proc.stderr + proc.stdout


def test_a_missing_or_incomplete_client_names_the_fix(tmp_path):
    with pytest.raises(ClientError, match=r"run `npm ci && npm run build` in js/"):
        ClientAssets.load(tmp_path)
    shutil.copy2(ASSETS / "client.json", tmp_path / "client.json")
    with pytest.raises(ClientError, match=r"incomplete \(missing .*worker\.js"):
        ClientAssets.load(tmp_path)

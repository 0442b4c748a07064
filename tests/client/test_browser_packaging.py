"""The browser client ships with the package: wheels carry the built files, and a build
without them explains that it needs npm. Builds run in pip's isolated environment on a
copy of the project, as `pip install .` from a clean clone would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mkdocs_semantic.pages.theme import ASSETS, ClientAssets, ClientError

from ..conftest import REPO

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
    assert {*client.files, client.entry, "client.json"} <= shipped
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


# A stemmer class in snowball-stemmers' one UMD file, and a string literal.
_STEMMER_CLASS = re.compile(r"^\s*var (\w+)Stemmer = function \(_SnowballStemmer\d*\) \{$", re.M)
_STEMMER_TABLE = re.compile(r"^\s*function newStemmer\(", re.M)
_LITERAL = re.compile(r"""'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)\"""")


def _literals(text: str) -> set[str]:
    return {single or double for single, double in _LITERAL.findall(text)}


def _worker_chunks(metafile: dict) -> dict[str, dict]:
    """The outputs the worker loads (statically or on demand), by file name."""
    outputs = {Path(path).name: output for path, output in metafile["outputs"].items()}
    seen, todo = {}, ["worker.js"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen[name] = outputs[name]
            imports = outputs[name]["imports"]
            todo += [Path(i["path"]).name for i in imports if not i.get("external")]
    return seen


def test_the_worker_ships_porters_stemmer_and_no_other_language():
    """snowball-stemmers is one file holding every language, so the metafile lists one input
    either way: the test looks in the worker's code for each language's own strings (its
    suffix tables and method names), which the package's source shows."""
    js = REPO / "js"
    metafile = json.loads((js / "dist" / "metafile.json").read_text(encoding="utf-8"))
    chunks = _worker_chunks(metafile)
    with_stemmer = {name: chunk for name, chunk in chunks.items()
                    if any("/snowball-stemmers/" in path for path in chunk["inputs"])}
    assert len(with_stemmer) == 1, f"the worker's chunks holding the stemmer: {with_stemmer}"
    ((name, chunk),) = with_stemmer.items()
    code = (ASSETS / name).read_text(encoding="utf-8")

    stemmer_path = next(path for path in chunk["inputs"] if "/snowball-stemmers/" in path)
    source = (js / stemmer_path).read_text(encoding="utf-8")
    starts = list(_STEMMER_CLASS.finditer(source))
    end = _STEMMER_TABLE.search(source).start()
    classes = {m.group(1): _literals(source[m.start(): nxt.start() if nxt else end])
               for m, nxt in zip(starts, [*starts[1:], None])}
    everything_else = [(js / path).read_text(encoding="utf-8") for path in chunk["inputs"]
                       if path != stemmer_path]
    common = _literals(source[: starts[0].start()] + source[end:])
    porter = classes.pop("porter") - common
    assert len(classes) > 20 and porter
    assert all(f'"{s}"' in code for s in porter), "Porter's stemmer is not in the worker"
    for language, strings in classes.items():
        own = {s for s in strings - porter - common
               if len(s) >= 3 and not any(s in text for text in everything_else)}
        assert own, language
        shipped = sorted(s for s in own if f'"{s}"' in code or f"'{s}'" in code)
        assert not shipped, f"the worker ships the {language} stemmer ({shipped[:5]})"

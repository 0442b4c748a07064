"""What a user installs and what a site publishes: the sdist (with js/) builds a wheel and
installs without Node.js, its js/ rebuilds the very client it ships, and the wheel and a
built site carry the licence text of every third-party package the client bundles (the
packages read from esbuild's metafile, not from a list kept here)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from mkdocs_semantic.pages.theme import ClientAssets

from .conftest import REPO

JS = REPO / "js"
METAFILE = JS / "dist" / "metafile.json"
# What the full text of each licence says, and its short notice does not.
LICENSE_MARKERS = {
    # the MIT text as packages ship it: "AS IS" or 'AS IS'
    "MIT": [r"Permission is hereby granted, free of charge, to any person obtaining a copy",
            r"THE SOFTWARE IS PROVIDED [\"']AS IS[\"']"],
    "ISC": [r"Permission to use, copy, modify, and(/or)? distribute this software",
            r"THE SOFTWARE IS PROVIDED \"AS IS\""],
    "Apache-2.0": [r"Apache License Version 2\.0, January 2004",
                   r"TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
                   r"END OF TERMS AND CONDITIONS"],
    "BSD-3-Clause": [r"Redistribution and use in source and binary forms",
                     r"Neither the name of"],
}


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    license: str


def bundled_packages() -> list[Package]:
    """Every npm package an input of the client's bundles comes from, per the metafile."""
    if not METAFILE.is_file():
        pytest.fail(f"{METAFILE} is missing: build the client (`npm run build` in js/)")
    inputs = json.loads(METAFILE.read_text(encoding="utf-8"))["inputs"]
    dirs = set()
    for path in inputs:
        parts = path.split("/")
        if "node_modules" in parts:
            at = len(parts) - 1 - parts[::-1].index("node_modules")
            dirs.add("/".join(parts[: at + (3 if parts[at + 1].startswith("@") else 2)]))
    packages = []
    for folder in sorted(dirs):
        meta = json.loads((JS / folder / "package.json").read_text(encoding="utf-8"))
        packages.append(Package(meta["name"], meta["version"], meta["license"]))
    assert packages, f"no npm package among the inputs of {METAFILE}"
    return packages


def licence_headers(files: dict[str, str]) -> dict[str, dict[str, str]]:
    """licenses/*.txt in the client: file -> its header (`name` line, then `Key: value`)."""
    headers = {}
    for name, text in files.items():
        if not re.fullmatch(r"licenses/[^/]+\.txt", name):
            continue
        first, *rest = text.split("\n\n", 1)[0].splitlines()
        fields = dict(line.split(": ", 1) for line in rest)
        headers[name] = {"name": first, **fields, "text": text}
    return headers


def assert_full_licence(text: str, license_id: str, where: str) -> None:
    flat = " ".join(text.split())
    assert license_id in LICENSE_MARKERS, (
        f"{where}: no markers for licence {license_id!r}: add its full text's phrases to "
        "LICENSE_MARKERS")
    for marker in LICENSE_MARKERS[license_id]:
        assert re.search(marker, flat), f"{where} lacks the {license_id} text ({marker!r})"


def assert_client_licences(files: dict[str, str], where: str) -> dict[str, dict[str, str]]:
    """The client's files carry NOTICE, LICENSE and the full licence of every bundled
    package, each naming the version bundled."""
    headers = licence_headers(files)
    for package in bundled_packages():
        matches = [h for h in headers.values()
                   if h["name"] == f"{package.name} {package.version}"]
        assert matches, f"{where} has no licence file for {package.name} {package.version}"
        (header,) = matches
        assert header["License"] == package.license
        assert_full_licence(header["text"], package.license, f"{where}: {package.name}")
        assert package.name in files["NOTICE"], f"{where}: NOTICE does not name {package.name}"
    assert files["NOTICE"] == (REPO / "NOTICE").read_text(encoding="utf-8")
    assert_full_licence(files["LICENSE"], "Apache-2.0", f"{where}: LICENSE")
    return headers


def run(args: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)  # hang guard only
    assert proc.returncode == 0, f"{args} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


def without_node(tmp: Path) -> dict[str, str]:
    """The environment with a PATH that holds python and nothing else (no node, no npm)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    if not (bin_dir / "python").exists():
        (bin_dir / "python").symlink_to(sys.executable)
    return {**os.environ, "PATH": str(bin_dir)}


def link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


# What a fresh clone with the client built holds: no checkout state, in particular no
# *.egg-info, whose SOURCES.txt setuptools would add to the sdist.
NOT_SOURCES = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "dist", "*.egg-info", "site", ".cache", "__pycache__",
    ".pytest_cache", ".ruff_cache", ".mypy_cache")


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("sdist")
    shutil.copytree(REPO, tmp / "source", ignore=NOT_SOURCES)
    run([sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp / "out"),
         str(tmp / "source")])
    (archive,) = (tmp / "out").glob("*.tar.gz")
    return archive


@pytest.fixture(scope="module")
def unpacked(sdist, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("unpacked")
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(sdist) as tar:
        tar.extractall(target, **safe)
    (root,) = target.iterdir()
    return root


@pytest.fixture(scope="module")
def wheel(unpacked, tmp_path_factory) -> Path:
    """A wheel built from the unpacked sdist with no Node.js on PATH, as pip does for a user."""
    tmp = tmp_path_factory.mktemp("wheel")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
         "--disable-pip-version-check", "-w", str(tmp / "dist"), str(unpacked)],
        env=without_node(tmp))
    (built,) = (tmp / "dist").glob("*.whl")
    return built


def test_the_sdist_carries_js_sources_and_the_built_client(sdist):
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    sources = {path.relative_to(REPO).as_posix() for path in JS.rglob("*")
               if path.is_file() and not {"node_modules", "dist"} & set(path.relative_to(JS).parts)}
    assert {"js/package.json", "js/package-lock.json", "js/build.mjs"} <= sources
    assert sources <= names, f"js/ files missing from the sdist: {sorted(sources - names)[:10]}"
    assert not [n for n in names if n.startswith(("js/node_modules", "js/dist"))]
    client = ClientAssets.load()
    assert {f"mkdocs_semantic/assets/{name}"
            for name in (*client.files, client.entry, "client.json")} <= names


def test_pip_installs_from_the_sdist_without_node_and_the_client_loads(wheel, tmp_path):
    target = tmp_path / "installed"
    run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--disable-pip-version-check", "--target", str(target), str(wheel)])
    script = ("import mkdocs_semantic, json; "
              "from mkdocs_semantic.pages.theme import ClientAssets; a = ClientAssets.load(); "
              "print(json.dumps([mkdocs_semantic.__file__, a.hash]))")
    proc = run([sys.executable, "-c", script], cwd=tmp_path,  # not the checkout's package
               env={**os.environ, "PYTHONPATH": str(target)})
    module, client_hash = json.loads(proc.stdout)
    assert Path(module).is_relative_to(target)
    assert client_hash == ClientAssets.load().hash


def test_the_sdists_js_sources_rebuild_the_client_it_ships(unpacked, tmp_path):
    node = shutil.which("node")
    if node is None or not (JS / "node_modules" / "esbuild").is_dir():
        pytest.fail("node and js/node_modules are needed: run scripts/setup")
    tree = tmp_path / "tree"
    shutil.copytree(unpacked, tree, symlinks=True)
    shipped = json.loads((tree / "mkdocs_semantic" / "assets" / "client.json").read_text())
    shutil.rmtree(tree / "mkdocs_semantic" / "assets")  # as if the sdist carried no client
    # What `npm ci` would install from the sdist's lock file, without fetching it again:
    # a copy (hard links where it can), as a symlink would change the bundles' input paths.
    shutil.copytree(JS / "node_modules", tree / "js" / "node_modules", symlinks=True,
                    copy_function=link_or_copy)
    run([node, "build.mjs"], cwd=tree / "js")
    rebuilt = json.loads((tree / "mkdocs_semantic" / "assets" / "client.json").read_text())
    assert rebuilt == shipped


def test_the_wheel_carries_every_bundled_packages_licence(wheel):
    prefix = "mkdocs_semantic/assets/"
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        files = {name.removeprefix(prefix): whl.read(name).decode("utf-8") for name in names
                 if name.startswith(prefix) and not name.endswith((".wasm", ".js", ".mjs"))}
        dist_notice = next(whl.read(n).decode() for n in names if n.endswith("licenses/NOTICE"))
    headers = assert_client_licences(files, "the wheel")
    assert dist_notice == files["NOTICE"]
    # and the model files the package itself ships (its tokenizer) have theirs
    model_files = [n.rsplit("/", 1)[1] for n in names if n.startswith("mkdocs_semantic/model/")
                   and not n.endswith(".py")]  # the modules are the project's own
    assert model_files
    for name in model_files:
        covering = [h for h in headers.values() if f"model/{name}" in h["Shipped in"]]
        assert covering, f"no licence file in the wheel says it covers model/{name}"
        assert_full_licence(covering[0]["text"], covering[0]["License"], f"model/{name}")


def test_a_built_site_carries_every_bundled_packages_licence(project):
    project.write("index.md", "# Caching\n\nKeep responses in the browser cache.\n")
    project.build()
    folder = project.bundle / "client" / ClientAssets.load().hash
    files = {path.relative_to(folder).as_posix(): path.read_text(encoding="utf-8")
             for path in folder.rglob("*") if path.is_file() and path.suffix not in (".js", ".mjs")}
    headers = assert_client_licences(files, "the built site")
    # the site ships the model's tokenizer (model/): its licence is there too
    manifest = json.loads((project.bundle / "manifest.json").read_text(encoding="utf-8"))
    catalog = json.loads((project.bundle / manifest["catalog"]["name"]).read_text("utf-8"))
    assert list((project.bundle / "model").iterdir())
    covering = [h for h in headers.values() if catalog["model"]["id"].startswith(h["name"])]
    assert covering, f"no licence file for the model {catalog['model']['id']!r}"
    assert_full_licence(covering[0]["text"], covering[0]["License"], "the model's licence")

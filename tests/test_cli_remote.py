"""A deployed site as SOURCE: the built site served by a static HTTP server on 127.0.0.1."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from mkdocs_semantic.cli import cli

from .conftest import Project
from .test_cli import JUDGED, NAV, build_sample_site, write_tsv


class Recorder(SimpleHTTPRequestHandler):
    """Serves a folder and notes every path asked for."""

    requested: list[str]

    def log_message(self, format, *args) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self.requested.append(self.path)
        super().do_GET()


class StaticSite:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.requested: list[str] = []
        handler = type("Handler", (Recorder,), {"requested": self.requested})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0),
                                         functools.partial(handler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def downloads(self) -> list[str]:
        """Payload files fetched (the manifest is fetched every time)."""
        return [p.rsplit("/", 1)[-1] for p in self.requested if not p.endswith("manifest.json")]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("deployed")
    build_sample_site(root)
    return root


@pytest.fixture
def deployed(project, tmp_path) -> Iterator[StaticSite]:
    """A copy of the built site under a sub-path (docs/), as on a project page."""
    public = tmp_path / "public"
    shutil.copytree(project / "site", public / "docs")
    server = StaticSite(public)
    server.thread.start()
    yield server
    server.stop()


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_eval_gives_the_same_numbers_locally_and_over_http(project, deployed, tmp_path):
    tsv = write_tsv(tmp_path / "judged.tsv", JUDGED)
    cache = str(tmp_path / "cache")
    local = run("eval", str(project / "site"), str(tsv), "--json", "--misses")
    remote = run("eval", deployed.url + "docs/", str(tsv), "--json", "--misses",
                 "--cache-dir", cache)
    assert local.exit_code == 0 and remote.exit_code == 0, remote.output
    assert json.loads(local.stdout) == json.loads(remote.stdout)
    assert len(json.loads(local.stdout)["modes"]) == 3
    # the site URL, the bundle URL and the manifest URL name the same bundle
    for url in ("docs/semantic/", "docs/semantic/manifest.json"):
        again = run("eval", deployed.url + url, str(tsv), "--json", "--cache-dir", cache)
        assert json.loads(again.stdout)["modes"] == json.loads(local.stdout)["modes"]


def test_download_once_then_only_changed_files(project, deployed, tmp_path):
    cache = tmp_path / "cache"
    url = deployed.url + "docs/"
    first = run("query", url, "cookies", "--json", "--cache-dir", str(cache))
    assert first.exit_code == 0, first.output
    manifest = json.loads((project / "site" / "semantic" / "manifest.json").read_text())
    names = {f["name"] for f in manifest["files"].values()}
    assert sorted(deployed.downloads()) == sorted(names)

    deployed.requested.clear()
    assert run("stats", url, "--cache-dir", str(cache)).exit_code == 0
    assert deployed.downloads() == []  # unchanged manifest: nothing downloaded

    # redeploy after editing one page: only the changed payloads come down
    edited = Project(root=project, plugin_options={"cache_dir": str(project / "cache")})
    edited.write("learn/cookies.md", "# Cookie parameters\n\nCookies are sent back by the "
                 "browser. Read them with `Cookie`; set them on the response.\n")
    edited.build(nav=NAV)
    public = deployed.root / "docs"
    shutil.rmtree(public)
    shutil.copytree(project / "site", public)
    deployed.requested.clear()
    second = run("query", url, "cookies", "--json", "--cache-dir", str(cache))
    assert second.exit_code == 0, second.output
    new = json.loads((project / "site" / "semantic" / "manifest.json").read_text())["files"]
    changed = {f["name"] for f in new.values()} - names
    assert changed and set(deployed.downloads()) == changed
    assert not any(n.startswith(("model.", "tokenizer.")) for n in deployed.downloads())
    cached = {p.name for p in next(cache.iterdir()).iterdir()}
    assert cached == {f["name"] for f in new.values()} | {"manifest.json", "source.json"}
    assert "Read them with" in json.dumps(json.loads(second.stdout))


def test_offline_uses_the_cached_copy_with_a_warning(deployed, tmp_path):
    cache = str(tmp_path / "cache")
    url = deployed.url + "docs/"
    assert run("query", url, "cookies", "--cache-dir", cache).exit_code == 0
    deployed.stop()
    result = run("query", url, "cookies", "--cache-dir", cache)
    assert result.exit_code == 0
    assert "WARNING: cannot reach" in result.stderr and "downloaded before" in result.stderr
    assert "/learn/cookies/" in result.stdout


def test_tampered_download_is_refused_and_not_cached(deployed, tmp_path):
    root = deployed.root / "docs" / "semantic"
    manifest = json.loads((root / "manifest.json").read_text())
    chunks = root / manifest["files"]["chunks"]["name"]
    chunks.write_bytes(chunks.read_bytes().replace(b"Cookie", b"Biscut"))
    cache = tmp_path / "cache"
    result = run("query", deployed.url + "docs/", "cookies", "--cache-dir", str(cache))
    assert result.exit_code == 1
    line = result.stderr.strip()
    assert line.count("\n") == 0 and chunks.name in line and "does not match its manifest" in line
    assert not list(cache.rglob(chunks.name))


def test_a_site_without_a_bundle_says_so(deployed, tmp_path):
    result = run("stats", deployed.url + "elsewhere/", "--cache-dir", str(tmp_path / "c"))
    assert result.exit_code == 1
    assert "no search bundle at " + deployed.url + "elsewhere/" in result.stderr

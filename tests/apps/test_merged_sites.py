"""Several sites searched as one (apps/merged_sites.py), and the MCP tools over them: the
four-page sample site and the parity fixture's bundle, two real bundles of different
docs."""

from __future__ import annotations

from pathlib import Path

import pytest

from mkdocs_semantic.apps.mcp_server import Docs
from mkdocs_semantic.apps.merged_sites import NamedSource, Site, SiteSet, parse_sources
from mkdocs_semantic.apps.service import BadRequest, Query, QueryService
from mkdocs_semantic.search.searcher import Searcher

from .test_cli import build_sample_site

PARITY = Path(__file__).resolve().parents[1] / "fixtures" / "parity" / "bundle"


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    return build_sample_site(tmp_path_factory.mktemp("sample"))


@pytest.fixture(scope="module")
def services(sample) -> dict[str, QueryService]:
    return {"app": QueryService(Searcher.open(sample)),
            "pwa": QueryService(Searcher.open(PARITY))}


@pytest.fixture(scope="module")
def sites(services) -> SiteSet:
    return SiteSet([Site("app", services["app"]),
                    Site("pwa", services["pwa"], "https://pwa.example.org/docs/")])


def test_sources_are_named_by_name_folder_or_url():
    assert parse_sources(["docs=site/", "https://example.org/app/?v=1", "proj/site"]) == [
        NamedSource("docs", "site/"),
        NamedSource("example.org-app", "https://example.org/app/?v=1"),
        NamedSource("proj", "proj/site"),
    ]
    with pytest.raises(BadRequest, match="two sources are named 'proj'"):
        parse_sources(["proj/site", "proj=other/"])
    with pytest.raises(BadRequest, match="names no SOURCE"):
        parse_sources(["docs="])
    for bad in ("a/b", "x" * 65, ".hidden", "n" * 260):  # 260: longer than a file name
        with pytest.raises(BadRequest, match=f"'{bad}' is no site name: a name is 1 to 64"):
            parse_sources([f"{bad}=site/"])


def test_one_search_over_both_sites_keeps_each_sites_order(sites, services):
    query = Query(text="cache files for offline use and upload big files", top_k=40)
    answer = sites.search(query)
    assert {found.site for found in answer.results} == {"app", "pwa"}
    scores = [found.result.score for found in answer.results]
    assert scores == sorted(scores, reverse=True)
    for name, service in services.items():
        own = [r.chunk_id for r in service.search_read(query).results]
        merged = [f.result.chunk_id for f in answer.results if f.site == name]
        assert merged == own[:len(merged)]
    assert set(answer.readings) == {"app", "pwa"}


def test_the_site_filter_gives_that_sites_own_ranking(sites, services):
    for name in ("app", "pwa"):
        query = Query(text="how do I keep working without a network")
        answer = sites.search(query, [name])
        assert [(f.site, f.result.chunk_id) for f in answer.results] == [
            (name, r.chunk_id) for r in services[name].search_read(query).results]
    with pytest.raises(BadRequest, match="unknown site 'nope': this server searches app, pwa"):
        sites.search(Query(text="cookies"), ["nope"])


def test_a_filter_leaves_out_the_sites_that_cannot_pass_it(sites):
    answer = sites.search(Query(text="offline", filters={"version": ["2"]}))
    assert answer.results and {f.site for f in answer.results} == {"pwa"}
    with pytest.raises(BadRequest, match="unknown filter 'colour'"):
        sites.search(Query(text="offline", filters={"colour": ["red"]}))


def test_mcp_tools_over_two_sites(sites):
    docs = Docs(sites=sites)
    found = docs.search_docs("service worker offline cache", top_k=5)
    assert found["results"][0]["site"] == "pwa"
    assert found["results"][0]["url"].startswith("https://pwa.example.org/docs/offline/")
    only = docs.search_docs("cookies the browser sends", top_k=5, site=["app"])
    assert only["results"] and {r["site"] for r in only["results"]} == {"app"}
    assert all(not r["url"].startswith("https://") for r in only["results"])
    slipped = docs.search_docs("cookeis the browser sends", site=["app"])
    assert slipped["readings"]["app"]["searched"] == "cookies the browser sends"

    page = docs.read_page("https://pwa.example.org/docs/offline/#strategies")
    assert page["site"] == "pwa" and page["title"] == "Working offline"
    assert docs.read_page("learn/uploads/")["site"] == "app"
    with pytest.raises(BadRequest, match="2 sites have a page ''"):
        docs.read_page("")
    assert docs.read_page("", site="app")["site"] == "app"
    with pytest.raises(BadRequest, match="no page with url 'no/such/' in site 'app'"):
        docs.read_page("no/such/", site="app")


def test_one_site_keeps_its_plain_answers(services):
    docs = Docs(services["app"])
    found = docs.search_docs("cookeis the browser sends")
    assert found["searched"] == "cookies the browser sends"
    assert "site" not in found["results"][0]
    assert "site" not in docs.read_page("learn/uploads/")

"""`mkdocs-semantic serve` over loopback HTTP: uvicorn in a subprocess on a free port."""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .processes import running
from .test_cli import build_sample_site, free_port


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_sample_site(tmp_path_factory.mktemp("sample"))


@contextmanager
def serving(*args: str, timeout: float = 60) -> Iterator[str]:
    """Run `mkdocs-semantic serve ARGS` on 127.0.0.1 until /health answers; yields its URL."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "mkdocs_semantic", "serve", *args, "--port", str(port)]
    with running(command, ready_url=base + "/health", name="mkdocs-semantic serve",
                 timeout=timeout, env={**os.environ, "PYTHONWARNINGS": "ignore"}):
        yield base


def get(url: str, headers: dict | None = None) -> tuple[int, dict, dict]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
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
    assert body["status"] == "ok" and body["pages"] == 4 and body["format"] == 2
    assert body["query_encoder"] == "static"
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
    ({"q": "cookies", "k": "-1"}, "k must be from 1 to 100"),
    ({"q": "cookies", "k": "99999999999"}, "k must be from 1 to 100"),
    ({"q": "cookies", "k": "ten"}, "k must be a whole number"),
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

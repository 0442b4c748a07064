"""A site's runner: searches one at a time on a thread of its own, waited for at most the
site's wait (apps/site_runner.py), with real threads held by events, never by sleeps."""

from __future__ import annotations

import threading
import time

import pytest

from mkdocs_semantic.apps.service import BadRequest
from mkdocs_semantic.apps.site_runner import SiteLate, SiteRunner, source_wait


def test_a_search_past_its_wait_goes_on_and_later_ones_are_refused_until_it_ends():
    runner = SiteRunner("web", wait=5)
    started, release = threading.Event(), threading.Event()

    def slow() -> str:
        started.set()
        assert release.wait(60)  # a hang guard: the test lets it go
        return "fetched"

    first = runner.submit(slow)
    assert started.wait(60)
    with pytest.raises(SiteLate, match="site 'web' did not answer within 5 s"):
        runner.result(first, until=time.monotonic())  # its wait is over
    with pytest.raises(SiteLate, match="site 'web' is still waiting on its source"):
        runner.submit(lambda: "another")
    release.set()
    assert first.result(timeout=60) == "fetched"  # it went on, and kept what it fetched
    assert runner.result(runner.submit(lambda: "another"), until=None) == "another"


def test_a_search_queued_behind_one_past_its_wait_is_dropped():
    runner = SiteRunner("web", wait=5)
    started, release = threading.Event(), threading.Event()
    ran = []
    first = runner.submit(lambda: (started.set(), release.wait(60)))
    assert started.wait(60)
    queued = runner.submit(lambda: ran.append("queued"))
    with pytest.raises(SiteLate, match="did not answer within 5 s"):
        runner.result(queued, until=time.monotonic())
    release.set()
    first.result(timeout=60)
    runner.result(runner.submit(lambda: None), until=None)  # runs after where queued was
    assert queued.cancelled() and ran == []


def test_a_searchs_own_timeout_is_its_error_not_the_sites_wait():
    runner = SiteRunner("web", wait=5)

    def times_out() -> None:
        raise TimeoutError("a socket timed out")

    with pytest.raises(TimeoutError, match="a socket timed out") as caught:
        runner.result(runner.submit(times_out), until=time.monotonic() + 60)
    assert not isinstance(caught.value, SiteLate)


@pytest.mark.parametrize(("text", "seconds"), [("", 5.0), ("2.5", 2.5)])
def test_the_wait_comes_from_the_environment(monkeypatch, text, seconds):
    monkeypatch.setenv("MKDOCS_SEMANTIC_SOURCE_WAIT", text)
    assert source_wait() == seconds


@pytest.mark.parametrize("text", ["0", "-1", "soon"])
def test_a_wait_that_is_no_number_of_seconds_is_named(monkeypatch, text):
    monkeypatch.setenv("MKDOCS_SEMANTIC_SOURCE_WAIT", text)
    with pytest.raises(BadRequest, match=r"MKDOCS_SEMANTIC_SOURCE_WAIT=.* is not a number "
                                         r"of seconds above 0"):
        source_wait()

"""Several sites searched as one: named query services, one ranking over them.

Each site answers from its own bundle exactly as it does alone; the results of the sites
a query asks for are merged by page score (each site's own 0-1 relevance, its best page
near 1), best first, ties in the order the sites were given. A query limited to one site
(`sites=[name]`) gets that site's own ranking. A filter applies to the sites whose
bundles filter on its keys; a site that cannot filter on one of them is left out, since
none of its pages could pass.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import logging
import re
import time
import urllib.parse
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..bundle.format import BundleError
from ..model.spec import ModelError
from ..portal.folder import SITE_NAME  # what a query's `site` names, and a folder
from ..search.searcher import Ranking, Result
from ..search.spelling import Reading
from .service import (
    BadRequest,
    Query,
    QueryService,
    SiteDir,
    open_service,
    reading_dict,
    result_dict,
)
from .site_runner import SiteLate, SiteRunner, source_wait
from .sources import downloaded, is_url

log = logging.getLogger("mkdocs_semantic")
T = TypeVar("T")


@dataclass(frozen=True)
class NamedSource:
    """One SOURCE of the command line: `NAME=SOURCE`, or a SOURCE named after itself."""

    name: str
    source: str


def _exists(path: str) -> bool:
    """Whether `path` is there; False for one no file system could hold (too long)."""
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def parse_sources(items: tuple[str, ...] | list[str]) -> list[NamedSource]:
    """`["docs=site/", "https://example.org/app/"]` -> named sources, names unique.

    A URL is never split at an `=` (its query may hold one); an unnamed SOURCE is named
    after its folder, or its URL's host and path.
    """
    named: list[NamedSource] = []
    for item in items:
        name, sep, source = item.partition("=")
        if sep and not is_url(item) and not SITE_NAME.match(name) and not _exists(item):
            raise BadRequest(
                f"{name!r} is no site name: a name is 1 to 64 letters, digits, '.', '_' or "
                "'-', starting with a letter or digit (write NAME=SOURCE, for example "
                "docs=site/)")
        if not sep or is_url(item) or not SITE_NAME.match(name):
            name, source = default_name(item), item
        if not source.strip():
            raise BadRequest(f"{item!r} names no SOURCE: write NAME=SOURCE, for example "
                             "docs=site/")
        named.append(NamedSource(name, source))
    names = [n.name for n in named]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise BadRequest(f"two sources are named {repeated[0]!r}: name each one, for "
                         f"example {repeated[0]}-a=SOURCE {repeated[0]}-b=SOURCE")
    return named


def default_name(source: str) -> str:
    """A site name from a SOURCE: its folder's name, or its URL's host and path."""
    if is_url(source):
        parts = urllib.parse.urlsplit(source)
        text = parts.netloc + parts.path
    else:
        path = Path(source).resolve()
        text = path.parent.name if path.name in ("site", "semantic") else path.name
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:64]
    return name or "site"


@dataclass(frozen=True)
class SiteResult:
    """A result and the site it is from."""

    site: str
    result: Result


@dataclass(frozen=True)
class SitesAnswer:
    """Merged results, and each asked site's reading of the query (slips corrected);
    `unavailable`: the asked sites that could not be read (a source that stopped
    answering, a damaged file), with why."""

    results: list[SiteResult]
    readings: dict[str, Reading]
    unavailable: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Site:
    name: str
    service: QueryService
    base_url: str | None = None
    """The deployed site's URL (ending in /), for absolute links; None: links stay relative."""
    wait: float | None = None
    """How long a search waits for this site, whose source is a URL or a database
    (apps/site_runner.py); None: as long as it takes (local files)."""
    runner: SiteRunner = field(init=False, repr=False, compare=False)
    """Where its searches run, one at a time."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "runner", SiteRunner(self.name, self.wait))


class SiteSet:
    """Named sites, searched one by one or all at once."""

    def __init__(self, sites: list[Site]) -> None:
        self._served = self._named(sites)

    @staticmethod
    def _named(sites: list[Site]) -> tuple[list[Site], dict[str, Site]]:
        if not sites:
            raise ValueError("a site set needs at least one site")
        return list(sites), {site.name: site for site in sites}

    @property
    def sites(self) -> list[Site]:
        return self._served[0]

    @property
    def by_name(self) -> dict[str, Site]:
        return self._served[1]

    def replace(self, sites: list[Site]) -> None:
        """Search `sites` from the next query on (a site loaded again: apps/loaded.py);
        a query under way keeps the sites it started with."""
        self._served = self._named(sites)

    def site(self, name: str) -> Site:
        found = self.by_name.get(name)
        if found is None:
            raise BadRequest(f"unknown site {name!r}: this server searches "
                             f"{', '.join(self.by_name)}")
        return found

    def scope(self, names: list[str] | None, query: Query) -> list[Site]:
        """The sites a query asks for (`names`, or every one) that can pass its filters."""
        asked = [self.site(name) for name in dict.fromkeys(names)] if names else self.sites
        keys = set(query.filters or {})
        able = [site for site in asked if keys <= set(site.service.filter_keys)]
        if not able:
            known = sorted({key for site in asked for key in site.service.filter_keys})
            unknown = sorted(keys - set(known)) or sorted(keys)
            raise BadRequest(f"unknown filter {unknown[0]!r}: "
                             + (f"these sites filter on {', '.join(known)}" if known
                                else "these sites have no filters"))
        return able

    def search(self, query: Query, names: list[str] | None = None) -> SitesAnswer:
        """The best sections of the asked sites, merged by score (each site's own order
        kept); `query.top_k` None: the largest `top_k` of those sites. Only the sections
        kept get their results (excerpts) made. Each site searches on its own runner, at
        the same time; a site that cannot be read, or does not answer within its wait
        (a slow source), is left out and named in `unavailable`; when none can, the
        first one's error is raised."""
        asked = self.scope(names, query)
        started = time.monotonic()
        unavailable: dict[str, str] = {}
        failures: list[Exception] = []
        ranked = self._each(asked, lambda site: site.service.rank_read(query), started,
                            unavailable, failures)
        while True:
            sites = [site for site in asked if site.name in ranked]
            if not sites:
                raise failures[0]
            rankings = [ranked[site.name][1] for site in sites]
            lists = [[(-r.page_score, number, at) for at, r in enumerate(ranking.fused)]
                     for number, ranking in enumerate(rankings)]
            top_k = query.top_k or max(site.service.searcher.defaults["top_k"]
                                       for site in sites)
            kept = list(itertools.islice(heapq.merge(*lists, key=lambda item: item[0]),
                                         top_k))
            shown = {sites[number]: (rankings[number], 1 + max(at for _, n, at in kept
                                                               if n == number))
                     for number in {n for _, n, _ in kept}}

            def results(site: Site, shown: dict[Site, tuple[Ranking, int]] = shown
                        ) -> list[Result]:
                return site.service.searcher.results(*shown[site])

            made = self._each(list(shown), results, started, unavailable, failures)
            if len(made) == len(shown):
                break
            ranked = {name: value for name, value in ranked.items() if name not in
                      unavailable}  # merge again without the sites that failed
        return SitesAnswer(results=[SiteResult(sites[n].name, made[sites[n].name][at])
                                    for _, n, at in kept],
                           readings={site.name: ranked[site.name][0] for site in sites},
                           unavailable=unavailable)

    @staticmethod
    def _each(sites: list[Site], call: Callable[[Site], T], started: float,
              unavailable: dict[str, str], failures: list[Exception]) -> dict[str, T]:
        """`call(site)` for each site, on its runner, all at the same time: by name, the
        values of the sites that gave one; those that could not be read, or did not
        answer within their wait of the search `started` (monotonic), go to
        `unavailable` and `failures`."""
        futures: dict[Site, Future[T]] = {}
        values: dict[str, T] = {}

        def failed(site: Site, exc: Exception) -> None:
            log.warning("site %s could not be read: %s", site.name, exc)
            unavailable[site.name] = str(exc)
            failures.append(exc)

        for site in sites:
            try:
                futures[site] = site.runner.submit(functools.partial(call, site))
            except SiteLate as exc:
                failed(site, exc)
        for site, future in futures.items():
            until = None if site.wait is None else started + site.wait
            try:
                values[site.name] = site.runner.result(future, until=until)
            except (BundleError, ModelError, OSError) as exc:
                failed(site, exc)
        return values

    def link(self, site: str, href: str) -> str:
        base = self.site(site).base_url
        return urllib.parse.urljoin(base, href) if base else href

    def page_site(self, url: str, name: str | None = None) -> tuple[Site, str]:
        """The site `url` is a page of, and the page's URL within it: by `name`, by the
        URL's start (a site with a base URL), or the one site that has such a page."""
        url = url.strip().split("#", 1)[0]
        if name is not None:
            site = self.site(name)
            return site, own_page_key(url, site)
        for site in self.sites:
            if site.base_url and url.startswith(site.base_url):
                return site, page_key(url, site.base_url)
        if is_absolute(url):
            raise BadRequest(f"{url!r} is no page of {self._which()}: use a url that "
                             "search_docs returned")
        holding = [site for site in self.sites
                   if site.service.searcher.bundle.chunks_of_page(page_key(url, site.base_url))]
        if len(holding) > 1:
            raise BadRequest(f"{len(holding)} sites have a page {url!r} "
                             f"({', '.join(s.name for s in holding)}): say which with site")
        if not holding and len(self.sites) > 1:
            raise BadRequest(f"no site has a page {url!r}: use a url that search_docs "
                             "returned")
        site = holding[0] if holding else self.sites[0]
        return site, page_key(url, site.base_url)

    def _which(self) -> str:
        if len(self.sites) == 1:
            return "this site"
        return "the sites " + ", ".join(repr(s.name) for s in self.sites)


def is_absolute(url: str) -> bool:
    """Whether `url` names a host (`https://...`, `//host/...`), not a page of a site."""
    parts = urllib.parse.urlsplit(url)
    return bool(parts.scheme or parts.netloc)


def own_page_key(url: str, site) -> str:
    """`url`'s page key in `site`, refusing a URL of another host."""
    if is_absolute(url) and not (site.base_url and url.startswith(site.base_url)):
        raise BadRequest(f"{url!r} is no page of site {site.name!r}: use a url that "
                         "search_docs returned")
    return page_key(url, site.base_url)


def page_key(url: str, base_url: str | None) -> str:
    """A page's URL as its bundle names it (relative to the site's root, no fragment)."""
    url = url.strip().split("#", 1)[0]
    if base_url and url.startswith(base_url):
        url = url[len(base_url):]
    elif urllib.parse.urlsplit(url).scheme:
        url = urllib.parse.urlsplit(url).path
    return url.lstrip("/").removeprefix("./")


class SitesService:
    """The HTTP service's interface (`check`, `answer`, `health`) over several sites:
    `GET /search?q=...&site=NAME` (repeatable) searches those, every result names its
    site."""

    parallel = True
    """Its searches wait on the runners of their sites, which search one at a time each
    (apps/site_runner.py): a worker takes several at once, so that a site waiting on its
    source holds up only the searches that wait for it."""

    def __init__(self, sites: SiteSet,
                 problem: Callable[[], str | None] | None = None) -> None:
        self.sites = sites
        self.problem = problem
        """Why what is loaded cannot be read now (a database down), or None: `health`
        then says the service is unavailable."""

    def check(self, query: Query, names: list[str] | None = None) -> Query:
        for site in self.sites.scope(names, query):
            site.service.check(query)
        return query

    def answer(self, query: Query, names: list[str] | None = None) -> dict[str, Any]:
        started = time.perf_counter()
        answer = self.sites.search(query, names)
        results = []
        for found in answer.results:
            entry = {"site": found.site, **result_dict(found.result)}
            if self.sites.site(found.site).base_url:
                entry["link"] = self.sites.link(found.site, found.result.href)
            results.append(entry)
        readings = {name: reading_dict(r) for name, r in answer.readings.items()}
        return {
            "query": query.text,
            **({"readings": {k: v for k, v in readings.items() if v}}
               if any(readings.values()) else {}),
            "mode": query.mode or self.sites.sites[0].service.default_mode,
            "query_encoders": {name: self.sites.site(name).service.searcher.encoder
                               for name in answer.readings},
            **({"unavailable": answer.unavailable} if answer.unavailable else {}),
            "results": results,
            "took_ms": round((time.perf_counter() - started) * 1000, 2),
        }

    def health(self) -> dict[str, Any]:
        problem = self.problem() if self.problem else None
        status = {"status": "unavailable", "error": problem} if problem else {"status": "ok"}
        return {**status, "sites": {site.name: site.service.health()
                                    for site in self.sites.sites}}

    def warm_up(self) -> None:
        for site in self.sites.sites:
            site.service.warm_up()


def open_sites(sites: tuple[SiteDir, ...], *, threads: int = 0,
               encoder: str | None = None) -> SitesService:
    """A service over the bundles of `sites`, each query encoder loaded (`encoder`:
    encoders.server_encoder)."""
    return SitesService(SiteSet([
        Site(site.name, open_service(site.bundle_dir, threads=threads, encoder=encoder),
             site.base_url, wait=source_wait() if downloaded(site.bundle_dir) else None)
        for site in sites]))


def database_sites(url: str) -> list[str]:
    """The names of the sites in the database at `url` (checked as a server opens it)."""
    from ..portal.pg_read import open_database

    database = open_database(url)
    try:
        return [site.name for site in database.sites()]
    finally:
        database.close()

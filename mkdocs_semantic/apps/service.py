"""The query service: validated queries over one bundle, and its HTTP JSON API.

`QueryService` is plain Python (the CLI and the MCP server use it too);
`create_app` wraps it in a Starlette app, imported only when asked for. The app
is stateless and read-only: run as many workers or replicas as the load needs.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import logging
import os
import re
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..bundle.format import BundleError
from ..bundle.reader import Bundle
from ..chunk import page_link
from ..constants import MAX_QUERY_CHARS, MAX_TOP_K, SEARCH_MODES
from ..logs import LOGGERS
from ..model.spec import ModelError
from ..search.searcher import Answer, Ranking, Result, Searcher
from ..search.spelling import Reading
from .encoders import server_model, shared_embedder

if TYPE_CHECKING:
    from .limits import ConnectionLimits

log = logging.getLogger("mkdocs_semantic")

SEARCHES_PER_WORKER = 1
"""Searches run at once in one worker of one site: search is CPU-bound, so more only adds
GIL contention; requests queue instead, and /health stays responsive. (Several sites
search one at a time each, on runners of their own: apps/site_runner.py.)"""
SOURCE_ENV = "MKDOCS_SEMANTIC_SOURCE"
SITES_ENV = "MKDOCS_SEMANTIC_SITES"
"""Several sites, as JSON: [[name, bundle folder, base URL or null], ...]."""
DATABASE_ENV = "MKDOCS_SEMANTIC_DATABASE"
INDEX_ENV = "MKDOCS_SEMANTIC_INDEX"
EF_SEARCH_ENV = "MKDOCS_SEMANTIC_EF_SEARCH"
CORS_ENV = "MKDOCS_SEMANTIC_CORS"
THREADS_ENV = "MKDOCS_SEMANTIC_THREADS"
QUEUE_ENV = "MKDOCS_SEMANTIC_MAX_QUEUED"
ENCODER_ENV = "MKDOCS_SEMANTIC_QUERY_ENCODER"
MAX_QUEUED_SEARCHES = 64
"""Searches that may wait for the searcher in one worker; past that, 503 at once. At
tens of milliseconds a search, a full queue is already seconds of waiting."""



def text_problem(text: str) -> str | None:
    """What makes `text` no text to search (bytes that were not UTF-8, which a command
    line hands over as lone surrogates), or None."""
    for at, char in enumerate(text):
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            shown = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF \
                else f"a lone surrogate U+{code:04X}"
            return (f"the query is not UTF-8 text ({shown} at character {at + 1}): type it "
                    "again in UTF-8")
    return None

class BadRequest(ValueError):
    """A query the caller must fix; the message says what (HTTP 400, CLI exit 2)."""


class MissingDependency(RuntimeError):
    """An optional extra is not installed; the message names the pip command."""


def require(extra: str, *modules: str) -> None:
    """Import `modules` now, or say which `pip install` brings them."""
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise MissingDependency(
                f"this command needs the '{extra}' extra ({name} is missing): "
                f"pip install 'mkdocs-semantic-search[{extra}]'"
            ) from exc


@dataclass(frozen=True)
class Query:
    """One validated request."""

    text: str
    top_k: int | None = None
    """None: the bundle's `top_k` (the site's configured number)."""
    mode: str | None = None
    filters: dict[str, list[str]] | None = None
    as_typed: bool = False
    """Search the words exactly as typed (no correction of slips)."""


def parse_filters(items: Iterable[str]) -> dict[str, list[str]] | None:
    """`["section=Learn", "tags=a", "tags=b"]` -> `{"section": ["Learn"], "tags": ["a", "b"]}`."""
    filters: dict[str, list[str]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise BadRequest(f"filter {item!r} is not key=value (for example section=Learn)")
        filters.setdefault(key, []).append(value)
    return filters or None


def parse_top_k(value: str | int | None) -> int | None:
    """A requested number of results; None (the bundle's top_k) when none was given."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    # ASCII digits only: int() also takes '٣', '1_0' and ' 3 ', which no client means
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,18}", value):
        return int(value)
    raise BadRequest(f"k must be a whole number from 1 to {MAX_TOP_K}, got {value!r}")


def result_dict(result: Result) -> dict[str, Any]:
    """A result as JSON-ready data: every field, its `url` as a link (`page_link`: "./"
    for the home page), plus `href` (url#anchor)."""
    return {**{f.name: getattr(result, f.name) for f in fields(result)},
            "url": page_link(result.url), "href": result.href}


def reading_dict(reading: Reading) -> dict[str, Any]:
    """`searched` (the query as searched) and its `corrections`, when not as typed."""
    if not reading.changes:
        return {}
    return {"searched": reading.text,
            "corrections": [{"typed": c.typed, "used": c.used, "kind": c.kind}
                            for c in reading.changes]}


class QueryService:
    """Checks queries at the boundary and answers them from one `Searcher`."""

    modes = SEARCH_MODES

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher
        self.default_mode: str = searcher.defaults["mode"]
        self.filter_keys = tuple(searcher.defaults["filters"])

    def check(self, query: Query, sites: list[str] | None = None) -> Query:
        """Raise `BadRequest` naming the first problem with `query` (`sites`: a server of
        several sites takes them; this one searches one)."""
        if sites:
            raise BadRequest("this server searches one site: leave out site")
        if not query.text.strip():
            raise BadRequest("the query is empty: give a few words to search for")
        if (problem := text_problem(query.text)) is not None:
            raise BadRequest(problem)
        if len(query.text) > MAX_QUERY_CHARS:
            raise BadRequest(f"the query is {len(query.text)} characters long; "
                             f"at most {MAX_QUERY_CHARS} are accepted")
        if query.top_k is not None and not 1 <= query.top_k <= MAX_TOP_K:
            raise BadRequest(f"k must be from 1 to {MAX_TOP_K}, got {query.top_k}")
        if query.mode is not None and query.mode not in SEARCH_MODES:
            raise BadRequest(f"unknown mode {query.mode!r}: use one of "
                             f"{', '.join(SEARCH_MODES)}")
        if query.filters:
            unknown = sorted(set(query.filters) - set(self.filter_keys))
            if unknown:
                raise BadRequest(f"unknown filter {unknown[0]!r}: this bundle filters on "
                                 f"{', '.join(self.filter_keys)}")
        return query

    def search(self, query: Query) -> list[Result]:
        return self.search_read(query).results

    def search_read(self, query: Query) -> Answer:
        """The results, and the query as searched (slips corrected unless `as_typed`)."""
        reading, ranking = self.rank_read(query)
        return Answer(reading, self.searcher.results(ranking))

    def rank_read(self, query: Query) -> tuple[Reading, Ranking]:
        """The query as searched and its fused order, results not made yet."""
        self.check(query)
        try:
            return self.searcher.read_and_rank(query.text, top_k=query.top_k,
                                               mode=query.mode, filters=query.filters,
                                               as_typed=query.as_typed)
        except (BundleError, ModelError):
            raise  # a broken bundle or model is not the caller's fault
        except ValueError as exc:  # the searcher's own word on a bad query
            raise BadRequest(str(exc)) from exc

    def answer(self, query: Query, sites: list[str] | None = None) -> dict[str, Any]:
        """The JSON body of a search response."""
        self.check(query, sites)
        started = time.perf_counter()
        answer = self.search_read(query)
        return {
            "query": query.text,
            **reading_dict(answer.reading),
            "mode": query.mode or self.default_mode,
            "query_encoder": self.searcher.encoder,
            "results": [result_dict(r) for r in answer.results],
            "took_ms": round((time.perf_counter() - started) * 1000, 2),
        }

    def health(self) -> dict[str, Any]:
        bundle = self.searcher.bundle
        manifest = bundle.manifest
        return {"status": "ok", "format": manifest.format, "generator": manifest.generator,
                "model": bundle.catalog["model"]["id"], "query_encoder": self.searcher.encoder,
                **manifest.counts, "vectors": bundle.vectors.layout,
                "modes": list(self.modes), "filters": list(self.filter_keys)}

    def warm_up(self) -> None:
        """Load the query encoder now, so the first request (and no two at once) pays."""
        self.searcher.embed("warm up")


@dataclass(frozen=True)
class SiteDir:
    """One of the sites a server of several searches (apps/merged_sites.py)."""

    name: str
    bundle_dir: Path
    base_url: str | None = None


@dataclass(frozen=True)
class AppConfig:
    """What `create_app` serves: a bundle, optionally its site, and CORS origins; or
    several `sites` (then `bundle_dir` and `site_dir` are unused)."""

    bundle_dir: Path | None = None
    site_dir: Path | None = None
    cors_origins: tuple[str, ...] = ()
    threads: int = 0
    max_queued_searches: int = MAX_QUEUED_SEARCHES
    query_encoder: str | None = None
    """`static` or `transformer` (None: `server_encoder`'s choice)."""
    sites: tuple[SiteDir, ...] = ()
    database: str | None = None
    """The sites `load --db` put in this PostgreSQL database (then `sites` is unused)."""
    index_dir: Path | None = None
    """The sites `load --index` put in this data folder (then `sites` is unused)."""
    ef_search: int | None = None
    """With `database` or `index_dir`: the HNSW candidate list while searching."""


def unreadable(exc: Exception) -> str:
    """What a caller is told when the documentation could not be read (a source that
    stopped answering, a damaged file)."""
    text = str(exc)
    return f"the documentation could not be read ({text})" + (
        "" if "try again" in text else "; try again later")


def open_service(bundle_dir: Path, *, threads: int = 0, graph: Path | None = None,
                 ef_search: int | None = None, name: str = "",
                 encoder: str | None = None) -> QueryService:
    """A query service over the bundle at `bundle_dir`, its query encoder loaded;
    `graph`: a loaded site's (`name`) HNSW graph, which finds the nearest chunks."""
    from ..bundle.reader import read_bundle
    from ..portal.read import graph_bundle
    from .sources import payload_fetcher, range_fetcher

    if graph is not None:
        bundle = graph_bundle(bundle_dir, graph, site=name, expansion_search=ef_search)
    else:
        bundle = read_bundle(bundle_dir, fetch=payload_fetcher(bundle_dir),
                             fetch_range=range_fetcher(bundle_dir))
    return bundle_service(bundle, threads=threads, encoder=encoder)


def bundle_service(bundle: Bundle, *, threads: int = 0, encoder: str | None = None,
                   warm: bool = True) -> QueryService:
    """A query service over `bundle` answering with `encoder` (`server_encoder`), its
    query encoder loaded unless not `warm`."""
    chosen, spec = server_model(bundle, encoder)
    embedder = shared_embedder(spec, threads) if spec is not None else None
    service = QueryService(Searcher(bundle, embedder, encoder=chosen))
    if warm:
        service.warm_up()
    return service


def create_app(config: AppConfig, service: Any = None):
    """The Starlette app: `GET /search`, `GET /health`, and the site (if any) at `/`.
    `service`: a QueryService, or anything with its `check`, `answer` and `health`
    (apps/merged_sites.py's SitesService); default: one over `config.bundle_dir`."""
    require("serve", "starlette")
    import anyio
    import anyio.to_thread
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.middleware.cors import CORSMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    if service is None:
        if config.bundle_dir is None:
            raise ValueError("create_app needs a bundle_dir or a service")
        service = open_service(config.bundle_dir, threads=config.threads,
                               encoder=config.query_encoder)

    limiter: list[anyio.CapacityLimiter] = []

    async def search(request: Request) -> JSONResponse:
        params = request.query_params
        try:
            query = Query(text=params.get("q", ""), top_k=parse_top_k(params.get("k")),
                          mode=params.get("mode") or None,
                          filters=parse_filters(params.getlist("filter")),
                          as_typed=params.get("as_typed", "") in ("1", "true"))
            sites = params.getlist("site") or None
            service.check(query, sites)  # cheap: bad requests never wait for the searcher
            if not limiter:  # several sites: the work waits on each site's runner
                limiter.append(anyio.CapacityLimiter(
                    max(1, config.max_queued_searches) if getattr(service, "parallel", False)
                    else SEARCHES_PER_WORKER))
                app.state.searches = limiter[0]
            waiting = limiter[0].statistics().tasks_waiting
            if waiting >= config.max_queued_searches:
                log.warning("search queue full (%d waiting): answered 503", waiting)
                return JSONResponse(
                    {"error": f"busy: {waiting} searches are already waiting; try again in a "
                              "moment"}, status_code=503, headers={"Retry-After": "1"})
            answer = await anyio.to_thread.run_sync(service.answer, query, sites,
                                                    limiter=limiter[0])
            return JSONResponse(answer)
        except BadRequest as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except (BundleError, ModelError, OSError) as exc:  # a source that stopped answering
            log.warning("search failed: %s", exc)
            return JSONResponse({"error": unreadable(exc)}, status_code=503,
                                headers={"Retry-After": "5"})

    def health(request: Request) -> JSONResponse:
        state = service.health()
        return JSONResponse(state, status_code=200 if state["status"] == "ok" else 503)

    routes: list = [Route("/search", search, methods=["GET"]),
                    Route("/health", health, methods=["GET"])]
    if config.site_dir is not None:
        routes.append(Mount("/", app=StaticFiles(directory=config.site_dir, html=True)))
    middleware = []
    if config.cors_origins:
        middleware.append(Middleware(CORSMiddleware, allow_origins=list(config.cors_origins),
                                     allow_methods=["GET"]))
    app = Starlette(routes=routes, middleware=middleware)
    return app


def config_to_env(config: AppConfig) -> dict[str, str]:
    """The environment that `app_from_env` (or apps/loaded.py's, for several sites) reads:
    how each worker process gets its config."""
    settings = {THREADS_ENV: str(config.threads), CORS_ENV: " ".join(config.cors_origins),
                QUEUE_ENV: str(config.max_queued_searches),
                ENCODER_ENV: config.query_encoder or ""}
    if config.database:
        return {DATABASE_ENV: config.database, EF_SEARCH_ENV: str(config.ef_search or ""),
                **settings}
    if config.index_dir:
        return {INDEX_ENV: str(config.index_dir), EF_SEARCH_ENV: str(config.ef_search or ""),
                **settings}
    if config.sites:
        sites = [[site.name, str(site.bundle_dir), site.base_url] for site in config.sites]
        return {SITES_ENV: json.dumps(sites), **settings}
    return {SOURCE_ENV: str(config.site_dir or config.bundle_dir), **settings}


def settings_from_env() -> dict[str, Any]:
    """The AppConfig fields besides what to serve, as `config_to_env` wrote them."""
    return {"cors_origins": tuple(os.environ.get(CORS_ENV, "").split()),
            "threads": int(os.environ.get(THREADS_ENV) or 0),
            "max_queued_searches": int(os.environ.get(QUEUE_ENV) or MAX_QUEUED_SEARCHES),
            "query_encoder": os.environ.get(ENCODER_ENV) or None}


def app_from_env():
    """App factory for `uvicorn --factory mkdocs_semantic.apps.service:app_from_env`.

    Reads MKDOCS_SEMANTIC_SOURCE (a site directory, also served at /, a bundle
    directory or a site URL), and optionally MKDOCS_SEMANTIC_CORS (origins,
    space-separated), MKDOCS_SEMANTIC_THREADS (onnxruntime threads),
    MKDOCS_SEMANTIC_MAX_QUEUED (searches that may wait; more get 503) and
    MKDOCS_SEMANTIC_QUERY_ENCODER (static or transformer; default: the model where it is
    at hand).
    """
    from .sources import open_source

    source = os.environ.get(SOURCE_ENV)
    if not source:
        raise RuntimeError(f"set {SOURCE_ENV} to a built site, a bundle directory or a URL")
    located = open_source(source)
    return create_app(AppConfig(bundle_dir=located.bundle_dir, site_dir=located.site_dir,
                                **settings_from_env()))


FD_RESERVE = 128
"""File descriptors a worker needs besides its connections (model, bundle, event loop)."""
ACCEPT_BATCHES = 4
"""Under a flood the event loop accepts a few batches of `backlog` connections before it
hands the first to the protocol, which closes the surplus: each needs a descriptor."""


def serve(config: AppConfig, *, host: str = "127.0.0.1", port: int = 8000,
          workers: int = 1, limits: ConnectionLimits | None = None,
          service: Any = None) -> None:
    """Run the app with uvicorn; several workers each load their own copy (read-only).
    `service`: what one worker answers with (default: create_app's); several workers
    each open their own from `config`.

    Every worker holds to `limits` (connections, header and keep-alive timeouts) and
    rate-limits repeated log lines (see `http_guard`).
    """
    require("serve", "starlette", "uvicorn")
    import uvicorn

    from .limits import PROTOCOL
    from .limits import ConnectionLimits as Limits

    limits = fit_file_limit(limits or Limits())
    settings: dict[str, Any] = {
        "host": host, "port": port, "access_log": False, "http": PROTOCOL,
        "backlog": limits.backlog, "timeout_keep_alive": limits.keep_alive_timeout,
        "log_config": log_config()}
    if workers == 1:
        uv_config = uvicorn.Config(create_app(config, service), **settings)
        uv_config.connection_limits = limits  # type: ignore[attr-defined]  # read by PROTOCOL
        server = uvicorn.Server(uv_config)
        with contextlib.suppress(KeyboardInterrupt):
            server.run()
        if not server.started:
            raise SystemExit(3)  # uvicorn has said why
        return
    from uvicorn.supervisors import Multiprocess

    os.environ.update(config_to_env(config))
    factory = ("mkdocs_semantic.apps.loaded:app_from_env"
               if config.sites or config.database or config.index_dir
               else "mkdocs_semantic.apps.service:app_from_env")
    uv_config = uvicorn.Config(factory, factory=True,
                               workers=workers, **settings)
    uv_config.connection_limits = limits  # type: ignore[attr-defined]
    Multiprocess(uv_config, sockets=[tcp_listener(host, port)]).run()


def log_config() -> dict[str, Any]:
    """uvicorn's logging, with repeated lines rate-limited, and ours and asyncio's beside it."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"rate_limit": {"()": "mkdocs_semantic.apps.limits.RateLimitFilter"}}
    for handler in config["handlers"].values():
        handler["filters"] = ["rate_limit"]
    for name in (*LOGGERS, "asyncio"):
        config["loggers"][name] = {"handlers": ["default"], "level": "INFO",
                                   "propagate": False}
    return config


def fit_file_limit(limits: ConnectionLimits) -> ConnectionLimits:
    """`limits`, or less if this process cannot open enough files for them.

    Raises the soft open-file limit up to the hard one when that is enough; else
    lowers the connection cap and the backlog to fit, with a warning.
    """
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return limits
    need = limits.max_connections + ACCEPT_BATCHES * limits.backlog + FD_RESERVE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < need:
        wanted = need if hard == resource.RLIM_INFINITY else min(need, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    if soft == resource.RLIM_INFINITY or soft >= need:
        return limits
    room = max(soft - FD_RESERVE, 32)
    backlog = min(limits.backlog, max(4, room // (2 * ACCEPT_BATCHES)))
    connections = max(16, min(limits.max_connections, room - ACCEPT_BATCHES * backlog))
    log.warning("this process may open only %d files (ulimit -n), too few for "
                "--max-connections %d: serving at most %d connections (backlog %d); raise "
                "the limit to %d or more to allow them all", soft, limits.max_connections,
                connections, backlog, need)
    return dataclasses.replace(limits, max_connections=connections, backlog=backlog)


def tcp_listener(host: str, port: int) -> socket.socket:
    """A listening socket that says it is TCP, so asyncio turns Nagle off per connection.

    uvicorn's own multi-worker socket leaves `proto` at 0, and then every keep-alive
    response waits ~40 ms for a delayed ACK (uvicorn issue 3149).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock

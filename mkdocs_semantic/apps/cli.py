"""The `mkdocs-semantic` command: index, query, stats, eval, load, serve, mcp.

SOURCE is a built site directory, a bundle directory, or the http(s) URL of a
deployed site (its bundle is downloaded once and cached). Errors end the command
with one line on stderr and a non-zero exit code: 2 for bad input, 1 otherwise.

Text from a bundle may come from anyone's site: human output drops control and
bidi characters (a terminal obeys them), JSON output escapes them.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import shutil
import sys
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..bundle.folder import DROP_IN, bundle_dir_problem, site_folder
from ..bundle.format import BundleError
from ..bundle.reader import browser_forward_pass, read_bundle
from ..constants import (
    QUERY_ENCODERS,
    SEARCH_MODES,
    SITE_QUERY_ENCODERS,
    __version__,
    site_encoders,
)
from ..logs import LOGGERS
from ..model.spec import ModelError
from ..pages.theme import ClientAssets, ClientError
from .evaluate import QueryFileError
from .service import (
    BadRequest,
    MissingDependency,
    Query,
    QueryService,
    parse_filters,
    parse_top_k,
)
from .sources import Source, open_source

if TYPE_CHECKING:
    from ..pages.hints import PageHints
    from ..portal.folder import StoredSite

USER_ERRORS = (BundleError, ModelError, MissingDependency, OSError)
# C0 and C1 controls but newline and tab, and the bidi embeddings, overrides and isolates.
_CONTROLS = [*range(0x00, 0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F),
             *range(0x2066, 0x206A)]
_UNPRINTABLE = {c: None for c in _CONTROLS if chr(c) not in "\n\t"}
# JSON escapes C0 itself; C1, DEL and bidi controls only ever stand inside its strings.
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in _CONTROLS if c >= 0x7F}


def printable(text: object) -> str:
    """`text` with nothing a terminal would obey: no escape sequences, bells, carriage
    returns or bidi overrides."""
    return str(text).translate(_UNPRINTABLE)


def say(text: object = "", *, err: bool = False) -> None:
    """Print one line of human output."""
    click.echo(printable(text), err=err)


def dump_json(data: object) -> str:
    """JSON that decodes to exactly `data`, with every control character escaped."""
    return json.dumps(data, ensure_ascii=False, indent=1).translate(_JSON_ESCAPES)


class BadInput(click.ClickException):
    """Bad input from the user: one line, exit code 2."""

    exit_code = 2


class Cli(click.Group):
    """Turns the package's own errors into one clear line, without a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (BadRequest, QueryFileError) as exc:
            raise BadInput(printable(exc)) from None
        except USER_ERRORS as exc:
            raise click.ClickException(printable(exc)) from None


class _StderrHandler(logging.Handler):
    """Writes to whatever sys.stderr is at the time (stdout stays clean for `mcp`)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(printable(self.format(record)), file=sys.stderr)
        except Exception:
            self.handleError(record)


def show_logs() -> Callable[[], None]:
    """Show every logger of the package (`logs.LOGGERS`: the indexer's and the caches'
    warnings too) on stderr, INFO and up; returns what undoes it."""
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    undo = []
    for logger in map(logging.getLogger, LOGGERS):
        if any(isinstance(h, _StderrHandler) for h in logger.handlers):
            continue
        undo.append((logger, logger.level, logger.propagate))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False

    def restore() -> None:
        for logger, level, propagate in undo:
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate

    return restore


@click.group(cls=Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mkdocs-semantic")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Semantic search over a built documentation site, from the terminal, HTTP or MCP."""
    ctx.call_on_close(show_logs())  # undone when the command ends (it may run in-process)


def main(argv: list[str] | None = None) -> None:
    cli.main(args=argv, prog_name="mkdocs-semantic")


source_argument = click.argument("source")
cache_option = click.option(
    "--cache-dir", type=click.Path(file_okay=False, path_type=Path),
    help="Where bundles downloaded from a URL are kept (default: the user cache folder).")
all_option = click.option(
    "--all", "fetch_all", is_flag=True,
    help="With a URL SOURCE, download the whole bundle now (default: the keyword, excerpt, "
         "text and query-table shards and a partitioned site's vector partitions come down "
         "as queries need them).")
MODE_HELP = f"Ranking: {', '.join(SEARCH_MODES)} (default: the bundle's)."
encoder_option = click.option(
    "--query-encoder", "encoder", type=click.Choice(QUERY_ENCODERS),
    help="How queries are embedded: transformer, the model (default wherever it is at hand: "
         "the site ships it or was built with the installed default model), or static, the "
         "query table browsers use (their ranking exactly).")


def load_source(source: str, cache_dir: Path | None, *, fetch_all: bool = False,
                encoder: str | None = None) -> tuple[Source, QueryService]:
    """The located source and a query service over its bundle, answering with `encoder`
    (apps/encoders.py server_encoder); the model is loaded when a query first needs it."""
    from ..bundle.reader import read_bundle
    from .service import bundle_service

    located = open_source(source, cache_dir=cache_dir, everything=fetch_all)
    bundle = read_bundle(located.bundle_dir, fetch=located.fetch,
                         fetch_range=located.fetch_range)
    return located, bundle_service(bundle, encoder=encoder, warm=False)


# index ---------------------------------------------------------------------------------


@cli.command()
@click.argument("site_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--bundle-dir", default="semantic", show_default=True,
              help="Folder inside SITE_DIR that receives the bundle.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Embedding cache folder (default: .cache/mkdocs-semantic/<site> beside "
                   "SITE_DIR).")
@click.option("--no-cache", is_flag=True, help="Embed everything; keep no cache.")
@click.option("--dtype", type=click.Choice(("i8", "f16", "f32")), default="i8",
              show_default=True, help="How vectors are stored.")
@click.option("--dry-run", is_flag=True, help="Print what would change; write nothing.")
@click.option("--ui", type=click.Choice(("auto", "dialog", "script", "none")), default="none",
              show_default=True,
              help="Search in the pages: auto answers in the site's own search box where it "
                   "is one the client knows (Zensical's, Material's, the mkdocs and "
                   "readthedocs themes'), in a dialog elsewhere; dialog, in a dialog on every "
                   "page (/ or Ctrl-K); script rewrites no page but writes the client and "
                   "BUNDLE_DIR/ui.js, whose one <script> line in a page adds the dialog; "
                   "none writes the bundle alone and no page.")
@click.option("--query-encoder", "encoder", type=click.Choice(SITE_QUERY_ENCODERS),
              default="static", show_default=True,
              help="How browsers embed a query: static (a token table: no model download), "
                   "transformer (the model, downloaded before a first semantic answer) or "
                   "progressive (the table first, the model fetched in idle time after).")
def index(site_dir: Path, bundle_dir: str, cache_dir: Path | None, no_cache: bool, dtype: str,
          dry_run: bool, ui: str, encoder: str) -> None:
    """Index a built static HTML site from any generator into SITE_DIR/semantic, and
    with --ui wire search into its pages."""
    from ..bundle.wordpieces import keyed_pieces_hash
    from ..indexing.indexer import Indexer, IndexOptions
    from ..indexing.static_site import chunk_site, plan_site
    from ..model.spec import default_model_spec, verify_default_model
    from ..pages.drop_in import write_drop_in
    from ..pages.hints import bundle_hints

    problem = bundle_dir_problem(bundle_dir)
    if problem:
        raise BadRequest(f"--bundle-dir {bundle_dir!r} must be {problem}")
    out = site_dir / bundle_dir
    spec = default_model_spec()
    verify_default_model(spec)
    cache_path = None
    if not no_cache:
        folder = cache_dir or site_dir.resolve().parent / ".cache" / "mkdocs-semantic" / \
            site_dir.resolve().name
        cache_path = folder / "embeddings.npz"
    indexer = Indexer(spec, IndexOptions(dtype=dtype, query_encoder=encoder),
                      cache_path=cache_path)
    indexer.embed_early = not dry_run
    assets = _client_assets() if ui != "none" else None  # a missing client fails first
    pages, chunks = chunk_site(site_dir, indexer, bundle_dir=out)
    if not chunks:
        raise BundleError(f"no HTML page with text under {site_dir}: point at a built site")
    if dry_run:
        _print_plan(plan_site(chunks, indexer, bundle_dir=out), out)
        return
    stats = indexer.write(out, chunks, pages=len(pages))
    stats = stats.with_files(indexer.footprint(out))
    say(f"semantic: {stats.summary()} -> {out}")
    if assets is None:
        return
    shipped = site_encoders(encoder)
    assets.install(site_dir, bundle_dir, forward=browser_forward_pass(out))
    hints = bundle_hints(out, pieces=keyed_pieces_hash(spec.tokenizer_path)
                         if "static" in shipped else None)
    if ui == "script":
        write_drop_in(out, assets, hints)
        say(f"semantic: for search in a page, add to its <head>: <script type=\"module\" "
            f"src=\"/{site_folder(bundle_dir)}/{DROP_IN}\"></script> (under a base path, "
            "the path starts with it)")
    else:
        _wire_pages(pages, ui=ui, bundle_dir=bundle_dir, assets=assets, hints=hints)


def _client_assets() -> ClientAssets:
    try:
        return ClientAssets.load()
    except ClientError as exc:
        raise click.ClickException(f"--ui needs the browser client: {exc}") from None


def _wire_pages(pages: list[tuple[Path, str]], *, ui: str, bundle_dir: str,
                assets: ClientAssets, hints: PageHints) -> None:
    """Wire the installed client into every indexed page; one warning line for each page
    that could not be rewritten."""
    from ..pages.wiring import Wiring, wire_pages

    wired = wire_pages(pages, Wiring(ui=ui, bundle_dir=bundle_dir, assets=assets, hints=hints))
    say(f"semantic: search ({ui}) in {wired.changed + wired.unchanged} pages, "
        f"{wired.changed} rewritten")


def _print_plan(plan, out: Path) -> None:
    against = "the existing bundle" if plan.existing_bundle else "no existing bundle"
    unchanged = plan.pages - len(plan.pages_new) - len(plan.pages_changed)
    say(f"dry run: nothing written; compared with {against} in {out}")
    if plan.note:
        say(f"note: {plan.note}")
    say(f"pages   {plan.pages:>6} now: {len(plan.pages_new)} new, "
               f"{len(plan.pages_changed)} changed, {len(plan.pages_removed)} removed, "
               f"{unchanged} unchanged")
    say(f"chunks  {plan.chunks:>6} now: {plan.chunks_new} new, "
               f"{plan.chunks_removed} removed; {plan.from_cache} reused from the cache, "
               f"{plan.to_embed} to embed")
    for label, urls in (("new", plan.pages_new), ("changed", plan.pages_changed),
                        ("removed", plan.pages_removed)):
        for url in urls:
            say(f"  {label:<8} /{url}")


# query ---------------------------------------------------------------------------------


@cli.command()
@source_argument
@click.argument("text", nargs=-1, required=True)
@click.option("-k", "--top-k", metavar="INTEGER", default=None,
              help="How many sections to return (default: the site's top_k).")
@click.option("--mode", help=MODE_HELP)
@click.option("-f", "--filter", "filters", multiple=True, metavar="KEY=VALUE",
              help="Keep results whose page has this value, e.g. section=Learn (repeatable).")
@click.option("--as-typed", is_flag=True,
              help="Search the words exactly as typed: no correction of slips.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@encoder_option
@cache_option
@all_option
def query(source: str, text: tuple[str, ...], top_k: str | None, mode: str | None,
          filters: tuple[str, ...], as_typed: bool, as_json: bool, encoder: str | None,
          cache_dir: Path | None, fetch_all: bool) -> None:
    """Print the sections of SOURCE that best answer TEXT."""
    # -k as the HTTP API reads k: ASCII digits only (int() would take '٣' and '1_0')
    request = Query(text=" ".join(text), top_k=parse_top_k(top_k), mode=mode,
                    filters=parse_filters(filters), as_typed=as_typed)
    located, service = load_source(source, cache_dir, fetch_all=fetch_all, encoder=encoder)
    answer = service.answer(request)
    if as_json:
        click.echo(dump_json(answer))
        return
    if "searched" in answer:
        click.echo(f"results for: {printable(answer['searched'])} (search as typed: --as-typed)")
    if not answer["results"]:
        click.echo("no results")
    click.echo(format_results(answer["results"], base_url=located.base_url))


def format_results(results: list[dict], *, base_url: str | None = None,
                   width: int | None = None) -> str:
    """Aligned, readable lines: rank and score, heading path, link, excerpt."""
    width = width or shutil.get_terminal_size((100, 20)).columns
    rank_width = len(str(len(results)))
    indent = " " * (rank_width + 10)
    lines = []
    for rank, r in enumerate(results, 1):
        heading = printable(" > ".join([r["title"], *r["path"]]))
        link = printable(urllib.parse.urljoin(base_url, r["href"]) if base_url else r["href"])
        lines.append(f"{rank:>{rank_width}}  {r['score']:6.4f}  "
                     + click.style(heading, bold=True))
        lines.append(indent + link)
        excerpt = printable(r["excerpt"])
        room = max(20, width - len(indent))
        if len(excerpt) > room:
            excerpt = excerpt[: room - 1].rstrip() + "…"
        lines.append(indent + excerpt)
    return "\n".join(lines)


# stats ---------------------------------------------------------------------------------


@cli.command()
@source_argument
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@cache_option
def stats(source: str, as_json: bool, cache_dir: Path | None) -> None:
    """Describe the bundle of SOURCE: model, counts per section and facet, file sizes
    (the bundle's, and the browser client's beside it). A URL's bundle comes down whole:
    the counts read every page."""
    from .facts import bundle_facts, render_facts

    bundle = read_bundle(open_source(source, cache_dir=cache_dir, everything=True).bundle_dir)
    facts = bundle_facts(bundle)
    if as_json:
        click.echo(dump_json(facts))
        return
    say(render_facts(facts))


# eval ----------------------------------------------------------------------------------


@cli.command(name="eval")
@source_argument
@click.argument("queries", type=click.Path(exists=True, path_type=Path))
@click.option("--mode", "modes", multiple=True,
              help="Mode to evaluate (repeatable; default: every mode available).")
@click.option("--k", "k", type=click.IntRange(1, 100), default=10, show_default=True,
              help="Cutoff of Recall@k.")
@click.option("--misses", is_flag=True, help="List the queries with no expected page in the "
              "top k.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@encoder_option
@cache_option
@all_option
def eval_(source: str, queries: Path, modes: tuple[str, ...], k: int, misses: bool,
          as_json: bool, encoder: str | None, cache_dir: Path | None, fetch_all: bool) -> None:
    """MRR@10, nDCG@10 and Recall@k of SOURCE on QUERIES (a BEIR folder or a TSV file).

    TSV: one `query<TAB>url url ...` a line. BEIR: a doc id is a page URL without
    its leading and trailing slashes (the home page is `index`).
    """
    from ..constants import MAX_TOP_K
    from .evaluate import evaluate, read_queries, unknown_pages

    judged = read_queries(queries)
    _, service = load_source(source, cache_dir, fetch_all=fetch_all, encoder=encoder)
    for mode in modes:
        service.check(Query(text="mode check", mode=mode))
    unknown = unknown_pages(judged, service.searcher.bundle.page_urls())
    reports = []
    for mode in modes or service.modes:
        def search(text: str, depth: int, mode: str = mode) -> list[str]:
            request = Query(text=text, top_k=min(depth, MAX_TOP_K), mode=mode)
            return [r.url for r in service.search(request)]

        reports.append(evaluate(judged, search, mode=mode, k=k))
    if as_json:
        click.echo(dump_json({"queries": len(judged), "unknown_pages": unknown,
                              "query_encoder": service.searcher.encoder,
                              "modes": [r.figures() for r in reports],
                              "misses": {r.mode: [_miss(o) for o in r.misses]
                                         for r in reports} if misses else None}))
        return
    say(f"{len(judged)} queries from {queries}, embedded with the "
        f"{service.searcher.encoder} query encoder")
    if unknown:
        say(f"warning: {len(unknown)} expected pages are not in the bundle: "
                   + ", ".join(unknown[:5]) + (" …" if len(unknown) > 5 else ""), err=True)
    say(f"{'mode':<8} {'MRR@10':>8} {'nDCG@10':>8} {f'Recall@{k}':>10}")
    for r in reports:
        say(f"{r.mode:<8} {r.mrr:>8.4f} {r.ndcg:>8.4f} {r.recall:>10.4f}")
    if misses:
        for r in reports:
            say(f"\nmisses ({r.mode}): {len(r.misses)} of {r.queries}")
            for o in r.misses:
                miss = _miss(o)
                say(f"  {miss['query']}\n    expected {' '.join(miss['expected'])}\n"
                           f"    got      {' '.join(miss['got']) or '-'}")


def _miss(outcome) -> dict:
    return {"id": outcome.query.id, "query": outcome.query.text,
            "expected": sorted(outcome.query.relevant), "got": outcome.ranked[:3]}


# load ---------------------------------------------------------------------------------


def loaded_sites_options(command: Callable) -> Callable:
    """`--index DIR`, `--db URL` and `--ef-search` of `serve` and `mcp`."""
    for option in reversed([
        click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path),
                     metavar="DIR", help="Search the sites `load` put in this data folder "
                     "instead of SOURCEs."),
        click.option("--db", "database", metavar="URL", help="Search the sites `load` put "
                     "in this PostgreSQL database instead of SOURCEs."),
        click.option("--ef-search", type=click.IntRange(1, 1000), default=None,
                     help="With --index or --db: the HNSW candidate list while searching "
                     "(default 256, at most 1000 as pgvector allows; at least the 100 "
                     "nearest chunks are kept)."),
    ]):
        command = option(command)
    return command


@cli.command()
@click.argument("sources", nargs=-1, metavar="NAME=SOURCE...")
@click.option("--index", "index_dir", type=click.Path(file_okay=False, path_type=Path),
              metavar="DIR", help="The data folder to load into (made if new).")
@click.option("--db", "database", metavar="URL",
              help="The PostgreSQL database (with pgvector) to load into, as "
              "postgresql://user:password@host:5432/dbname.")
@click.option("--drop", multiple=True, metavar="NAME",
              help="Remove this site from the folder (repeatable).")
@click.option("--connectivity", type=click.IntRange(2, 256), default=16, show_default=True,
              help="HNSW edges per chunk (pgvector's m).")
@click.option("--ef-construction", type=click.IntRange(8, 4096), default=64,
              show_default=True, help="HNSW candidate list while building.")
@click.option("--fetch-timeout", type=click.FloatRange(0.1, 86400), metavar="SECONDS",
              help="How long downloading a URL SOURCE's bundle may take in all.")
@cache_option
def load(sources: tuple[str, ...], index_dir: Path | None, database: str | None,
         drop: tuple[str, ...], connectivity: int, ef_construction: int,
         fetch_timeout: float | None, cache_dir: Path | None) -> None:
    """Load sites' bundles into a data folder that `serve --index` and `mcp --index`
    search as one: each site's bundle copied (payloads it already holds are kept, not
    written again) and an HNSW graph of its vectors built. A site loads whole or not at
    all; loading an unchanged site writes nothing."""
    from ..portal.hnsw import HnswSettings
    from .merged_sites import parse_sources

    if (index_dir is None) == (database is None):
        raise click.UsageError("give the place to load into: --index DIR or --db URL")
    if not sources and not drop:
        raise click.UsageError("give the sites to load as NAME=SOURCE, or --drop NAME")
    named = parse_sources(sources)
    settings = HnswSettings(connectivity=connectivity, expansion_add=ef_construction)
    with load_target(index_dir, database) as (load_one, drop_one):
        for name in drop:
            say(f"{name}: removed" if drop_one(name) else f"{name}: not loaded")
        for entry in named:
            located = open_source(entry.source, cache_dir=cache_dir,
                                  fetch_timeout=fetch_timeout, everything=True)
            outcome = load_one(entry.name, located.bundle_dir, source=entry.source,
                               base_url=located.base_url, settings=settings,
                               progress=lambda text: say(text, err=True))
            if outcome.state == "unchanged":
                say(f"{entry.name}: unchanged, {outcome.chunks:,} chunks")
            else:
                say(f"{entry.name}: {outcome.state}, {outcome.chunks:,} chunks; "
                    f"{outcome.payloads_copied} payloads copied "
                    f"({outcome.bytes_copied / 1e6:.1f} MB), {outcome.payloads_linked} kept, "
                    f"in {outcome.seconds:.1f} s")


@contextlib.contextmanager
def load_target(index_dir: Path | None, database: str | None):
    """(load one site, drop one site) into the data folder or the database."""
    if index_dir is not None:
        from ..portal.folder import IndexFolder
        from ..portal.load import drop_site, load_site

        folder = IndexFolder(index_dir)
        with folder.locked():
            yield (functools.partial(load_site, folder), functools.partial(drop_site, folder))
        return
    from ..portal.database import connect, create_schema
    from ..portal.pg_load import drop_site_pg, load_site_pg

    assert database is not None  # load asked for one place or the other
    with connect(database) as conn:
        create_schema(conn)
        yield (functools.partial(load_site_pg, conn), functools.partial(drop_site_pg, conn))


# serve and mcp -------------------------------------------------------------------------


@cli.command()
@click.argument("sources", nargs=-1, metavar="[NAME=]SOURCE...")
@loaded_sites_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--cors-origin", "cors", multiple=True, metavar="ORIGIN",
              help="Allow browsers on this origin to call the API (repeatable; '*' for any).")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Worker processes, each with its own read-only copy.")
@click.option("--threads", type=click.IntRange(0, 64), default=0, show_default=True,
              help="onnxruntime threads per worker (0: onnxruntime decides).")
@click.option("--max-connections", type=click.IntRange(1, 1_000_000), default=1000,
              show_default=True, help="Open connections per worker; past it, the one idle "
              "longest is closed.")
@click.option("--header-timeout", type=click.FloatRange(0.1, 3600), default=10.0,
              show_default=True, metavar="SECONDS",
              help="Close a connection that has not sent a whole request head by then.")
@click.option("--keep-alive-timeout", type=click.FloatRange(0.1, 3600), default=5.0,
              show_default=True, metavar="SECONDS",
              help="Close an idle keep-alive connection after this long.")
@click.option("--max-queued-searches", type=click.IntRange(0, 100_000), default=64,
              show_default=True, help="Searches that may wait per worker; more are answered "
              "503 with Retry-After at once.")
@click.option("--fetch-timeout", type=click.FloatRange(0.1, 86400),
              metavar="SECONDS", help="How long downloading a URL SOURCE's bundle may take "
              "in all (default: $MKDOCS_SEMANTIC_FETCH_TIMEOUT, else 120).")
@encoder_option
@cache_option
@all_option
def serve(sources: tuple[str, ...], index_dir: Path | None, database: str | None,
          ef_search: int | None, host: str,
          port: int, cors: tuple[str, ...], workers: int, threads: int, max_connections: int,
          header_timeout: float, keep_alive_timeout: float, max_queued_searches: int,
          fetch_timeout: float | None, encoder: str | None, cache_dir: Path | None,
          fetch_all: bool) -> None:
    """Serve an HTTP JSON API (GET /search?q=&k=&mode=&filter=, GET /health) and, when
    SOURCE is a site directory, the site itself at /.

    Several SOURCEs are searched as one: each result names its site (NAME, or the
    SOURCE's folder or host), and /search?site=NAME (repeatable) searches only those."""
    from .encoders import server_encoder
    from .loaded import open_database_sites, open_index_sites
    from .merged_sites import database_sites, open_sites, parse_sources
    from .service import AppConfig, SiteDir, require
    from .service import serve as run

    require("serve", "starlette", "uvicorn")
    from .limits import ConnectionLimits
    from .site_runner import source_wait

    source_wait()  # a bad $MKDOCS_SEMANTIC_SOURCE_WAIT is named before any worker starts

    limits = ConnectionLimits(max_connections=max_connections, header_timeout=header_timeout,
                              keep_alive_timeout=keep_alive_timeout)
    if database is not None:
        no_sources(sources, "--db URL")
        config = AppConfig(database=database, ef_search=ef_search, cors_origins=cors,
                           threads=threads, max_queued_searches=max_queued_searches,
                           query_encoder=encoder)
        # several workers each open the database; this process only checks it
        service = (open_database_sites(database, ef_search=ef_search, threads=threads,
                                       encoder=encoder)
                   if workers == 1 else None)
        count = len(service.sites.sites) if service else len(database_sites(database))
        click.echo(f"serving {count} sites of the database on http://{host}:{port}/ "
                   "(GET /search?q=...&site=..., GET /health)", err=True)
        run(config, host=host, port=port, workers=workers, limits=limits, service=service)
        return
    if index_dir is not None or not sources:
        folder, loaded = index_sites(sources, index_dir)
        config = AppConfig(index_dir=folder, ef_search=ef_search, cors_origins=cors,
                           threads=threads, max_queued_searches=max_queued_searches,
                           query_encoder=encoder)
        click.echo(f"serving {len(loaded)} sites of {folder} on http://{host}:{port}/ "
                   "(GET /search?q=...&site=..., GET /health)", err=True)
        # several workers each open the folder; this process only checks it
        service = (open_index_sites(folder, ef_search=ef_search, threads=threads,
                                    encoder=encoder) if workers == 1 else None)
        run(config, host=host, port=port, workers=workers, limits=limits, service=service)
        return
    named = parse_sources(sources)
    located = [open_source(entry.source, cache_dir=cache_dir, fetch_timeout=fetch_timeout,
                           everything=fetch_all) for entry in named]
    for place in located:  # a broken bundle or an encoder it cannot have fails here
        server_encoder(read_bundle(place.bundle_dir, fetch=place.fetch), encoder)
    if len(named) == 1:
        config = AppConfig(bundle_dir=located[0].bundle_dir, site_dir=located[0].site_dir,
                           cors_origins=cors, threads=threads,
                           max_queued_searches=max_queued_searches, query_encoder=encoder)
        click.echo(f"serving {located[0].bundle_dir} on http://{host}:{port}/ "
                   "(GET /search?q=..., GET /health)", err=True)
        run(config, host=host, port=port, workers=workers, limits=limits)
        return
    sites = tuple(SiteDir(entry.name, place.bundle_dir, place.base_url)
                  for entry, place in zip(named, located, strict=True))
    config = AppConfig(sites=sites, cors_origins=cors, threads=threads,
                       max_queued_searches=max_queued_searches, query_encoder=encoder)
    click.echo(f"serving {len(sites)} sites ({', '.join(s.name for s in sites)}) on "
               f"http://{host}:{port}/ (GET /search?q=...&site=..., GET /health)", err=True)
    service = open_sites(sites, threads=threads, encoder=encoder) if workers == 1 else None
    run(config, host=host, port=port, workers=workers, limits=limits, service=service)


@cli.command()
@click.argument("sources", nargs=-1, metavar="[NAME=]SOURCE...")
@loaded_sites_options
@click.option("--base-url", help="The deployed site's URL, for absolute links in results "
              "(default: SOURCE when it is a URL; one SOURCE only).")
@encoder_option
@cache_option
@all_option
def mcp(sources: tuple[str, ...], index_dir: Path | None, database: str | None,
        ef_search: int | None, base_url: str | None, encoder: str | None,
        cache_dir: Path | None, fetch_all: bool) -> None:
    """Run a Model Context Protocol server over stdio (tools: search_docs, read_page).

    Several SOURCEs are searched as one: each result names its site (NAME, or the
    SOURCE's folder or host), and search_docs takes the sites to search."""
    from .mcp_server import Docs, run
    from .merged_sites import Site, SiteSet, parse_sources
    from .service import require
    from .site_runner import source_wait

    require("mcp", "mcp")
    if database is not None:
        from .loaded import open_database_sites

        no_sources(sources, "--db URL")
        run(Docs(sites=open_database_sites(database, ef_search=ef_search,
                                           encoder=encoder).sites))
        return
    if index_dir is not None or not sources:
        from .loaded import open_index_sites

        folder, _ = index_sites(sources, index_dir)
        run(Docs(sites=open_index_sites(folder, ef_search=ef_search,
                                        encoder=encoder).sites))
        return
    named = parse_sources(sources)
    if base_url and len(named) > 1:
        raise click.UsageError("--base-url goes with one SOURCE; with several, give each "
                               "site as its URL, or leave its links relative")
    sites = []
    for entry in named:
        located, service = load_source(entry.source, cache_dir, fetch_all=fetch_all,
                                       encoder=encoder)
        service.warm_up()
        base = (base_url if len(named) == 1 else None) or located.base_url
        sites.append(Site(entry.name, service,
                          base if not base or base.endswith("/") else base + "/",
                          wait=source_wait() if located.fetch is not None else None))
    run(Docs(sites=SiteSet(sites)))


def index_sites(sources: tuple[str, ...],
                index_dir: Path | None) -> tuple[Path, list[StoredSite]]:
    """The data folder `index_dir` and the sites `load --index` put in it, checked as a
    server opens them."""
    from ..portal.read import loaded_sites

    if index_dir is None:
        raise click.UsageError("give the SOURCEs to search, or --index DIR, or --db URL")
    no_sources(sources, "--index DIR")
    return index_dir, loaded_sites(index_dir)


def no_sources(sources: tuple[str, ...], instead: str) -> None:
    if sources:
        raise click.UsageError(f"give SOURCEs or {instead}, not both: `load` puts SOURCEs "
                               "there")

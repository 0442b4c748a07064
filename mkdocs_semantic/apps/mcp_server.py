"""An MCP server over stdio: AI assistants search the docs and read pages by URL.

Tools: `search_docs(query, top_k, filters)` and `read_page(url)`. Nothing but
protocol messages goes to stdout; logging goes to stderr.
"""

from __future__ import annotations

import io
import logging
import sys
from typing import Any

from ..bundle.format import BundleError
from ..chunk import Chunk, context_line, opens_with_lead, page_link
from ..constants import MAX_TOP_K, __version__
from .merged_sites import Site, SiteSet
from .service import BadRequest, Query, QueryService, reading_dict, require, unreadable

log = logging.getLogger("mkdocs_semantic")
SERVER_NAME = "mkdocs-semantic"
INSTRUCTIONS = (
    "Searches documentation by meaning. Call search_docs with a question or "
    "a few words; cite results by their url. Call read_page with a result's url to read "
    "the whole page, section by section."
)

SEARCH_DOCS = (
    "Search the documentation by meaning; returns ranked sections.\n\n"
    "Each result has url (cite it), title, heading_path, score and the section's text. "
    f"top_k is 1-{MAX_TOP_K}; leave it out for the site's own number of results. filters "
    'narrows by page facets, for example {"section": ["Learn"]}. Words the site does not '
    "use that are one or two typing slips from one it does are corrected: then searched "
    "gives the query as searched, and corrections each word changed."
)
"""The search tool's description, which the assistant reads."""
SEARCH_SITES = (
    "\n\nThis server searches several sites: {names}. Each result names its site; site "
    "(a list of names) limits the search to those. Scores are relative to each site's own "
    "best match; corrections are given per site under readings."
)
READ_PAGE_SITES = (
    "Read one documentation page, section by section, by the url search_docs gave, and "
    "its site (one of {names}) when the url does not say which site it is from."
)


class Docs:
    """The tools' logic, independent of the MCP SDK (so it is easy to test and reuse):
    over one site (`service`, `base_url`) or several (`sites`)."""

    def __init__(self, service: QueryService | None = None, base_url: str | None = None, *,
                 sites: SiteSet | None = None) -> None:
        if sites is None:
            if service is None:
                raise ValueError("Docs needs a service or a site set")
            sites = SiteSet([Site("site", service, base_url)])
        self.sites = sites
        self.many = len(sites.sites) > 1

    def search_docs(self, query: str, top_k: int | None = None,
                    filters: dict[str, list[str]] | None = None,
                    site: list[str] | None = None) -> dict[str, Any]:
        """Ranked sections; `top_k` None returns the site's configured top_k. Over several
        sites each result names its `site`, and `site` limits the search to those named."""
        answer = self.sites.search(Query(text=query, top_k=top_k, filters=filters or None),
                                   site or None)
        results = []
        for found in answer.results:
            r = found.result
            chunks = self.sites.site(found.site).service.searcher.bundle.chunks
            results.append({**({"site": found.site} if self.many else {}),
                            "url": self.sites.link(found.site, r.href), "title": r.title,
                            "heading_path": list(r.path), "score": round(r.score, 4),
                            "text": chunks[r.chunk_id].text})
        if not self.many:
            return {**reading_dict(next(iter(answer.readings.values()))),
                    "query_encoder": self.sites.sites[0].service.searcher.encoder,
                    "results": results}
        readings = {name: reading_dict(reading) for name, reading in answer.readings.items()}
        return {**({"readings": {k: v for k, v in readings.items() if v}}
                   if any(readings.values()) else {}),
                "query_encoders": {name: self.sites.site(name).service.searcher.encoder
                                   for name in answer.readings},
                **({"unavailable": answer.unavailable} if answer.unavailable else {}),
                "results": results}

    def read_page(self, url: str, site: str | None = None) -> dict[str, Any]:
        found, key = self.sites.page_site(url, site)
        chunks = found.service.searcher.bundle.chunks_of_page(key)
        if not chunks:
            where = f"site {found.name!r}" if self.many else "this site"
            raise BadRequest(f"no page with url {url!r} in {where}: use a url that "
                             "search_docs returned")
        link = lambda href: self.sites.link(found.name, href)  # noqa: E731
        return {**({"site": found.name} if self.many else {}), "url": link(page_link(key)),
                "title": chunks[0].title, "sections": page_sections(chunks, link)}


def page_sections(chunks: list[Chunk], link) -> list[dict[str, Any]]:
    """A page's sections in order, the parts of split sections joined again.

    The page-level chunk holds the page's lead paragraphs: it comes first when no
    section starts with them (the opening before the first heading, which the chunker
    keeps only there), and is left out when a section repeats them.
    """
    sections: list[dict[str, Any]] = []
    parts = [c for c in chunks if c.kind != "page"]
    page = next((c for c in chunks if c.kind == "page"), None)
    if page is not None and (not parts or _only_in_page_chunk(page, parts)):
        parts = [page, *parts]
    for chunk in parts:
        if sections and sections[-1]["anchor"] == chunk.anchor \
                and sections[-1]["heading_path"] == chunk.path:
            sections[-1]["text"] += "\n" + chunk.text
            continue
        sections.append({"heading": context_line(chunk.title, chunk.path),
                         "heading_path": list(chunk.path), "anchor": chunk.anchor,
                         "url": link(chunk.href), "text": chunk.text})
    return sections


def _only_in_page_chunk(page: Chunk, sections: list[Chunk]) -> bool:
    """Whether the page chunk has a lead, and no section chunk starts with it."""
    lead = " ".join(page.text.split())
    return bool(lead) and lead != " ".join(page.title.split()) \
        and not any(opens_with_lead(page, c) for c in sections)


def build_server(docs: Docs):
    """The MCP server object with both tools registered."""
    require("mcp", "mcp")
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS,
                       log_level="WARNING")

    def tool_error(call):
        try:
            return call()
        except BadRequest as exc:  # the caller's mistake: tell the model what to fix
            raise ToolError(str(exc)) from None
        except (BundleError, OSError) as exc:  # a site that stopped answering, a damaged file
            raise ToolError(unreadable(exc)) from None

    if not docs.many:
        @server.tool(description=SEARCH_DOCS)
        def search_docs(query: str, top_k: int | None = None,
                        filters: dict[str, list[str]] | None = None) -> dict[str, Any]:
            return tool_error(lambda: docs.search_docs(query, top_k, filters))

        @server.tool()
        def read_page(url: str) -> dict[str, Any]:
            """Read one documentation page, section by section, by the url search_docs gave."""
            return tool_error(lambda: docs.read_page(url))

        return server

    names = ", ".join(site.name for site in docs.sites.sites)

    # a tool is named after its function: these stand for the ones above with many sites
    @server.tool(description=SEARCH_DOCS + SEARCH_SITES.format(names=names))  # type: ignore[no-redef]
    def search_docs(query: str, top_k: int | None = None,
                    filters: dict[str, list[str]] | None = None,
                    site: list[str] | None = None) -> dict[str, Any]:
        return tool_error(lambda: docs.search_docs(query, top_k, filters, site))

    @server.tool(description=READ_PAGE_SITES.format(names=names))  # type: ignore[no-redef]
    def read_page(url: str, site: str | None = None) -> dict[str, Any]:
        return tool_error(lambda: docs.read_page(url, site))

    return server


def run(docs: Docs) -> None:
    """Serve over stdio until the client closes the connection."""
    server = build_server(docs)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    import anyio

    anyio.run(serve_stdio, server)


async def serve_stdio(server) -> None:
    """Serve over stdio as the SDK's `run("stdio")` does, except that every line that is
    no request or notification gets the protocol's error reply (`read_message`), where
    the SDK would send none. Lines are read here; the SDK's transport writes."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    lowlevel = server._lowlevel_server  # what run("stdio") runs, on our streams
    if isinstance(sys.stdin, io.TextIOWrapper):  # read as the SDK reads it
        sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    lines = anyio.wrap_file(sys.stdin)
    async with stdio_server(stdin=_no_lines()) as (_, write_stream):
        inbox_writer, inbox = anyio.create_memory_object_stream[SessionMessage](0)

        async def sort_lines() -> None:
            async with inbox_writer:
                async for line in lines:
                    message, reply = read_message(line)
                    if reply is not None:
                        await write_stream.send(SessionMessage(reply))
                    else:
                        await inbox_writer.send(SessionMessage(message))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(sort_lines)
            await lowlevel.run(inbox, write_stream, lowlevel.create_initialization_options())


async def _no_lines():
    """What the SDK's transport reads: nothing (`serve_stdio` reads stdin itself)."""
    return
    yield


def read_message(line: str) -> tuple[Any, Any]:
    """(the JSON-RPC message on `line`, None), or (None, the error reply it gets): a parse
    error (-32700) for a line that is no JSON, an invalid request (-32600) for JSON that
    is no message, or for a request whose id is no string or integer (MCP's ids), which
    the SDK's reader would take for a notification and answer nothing."""
    import json

    from mcp_types import (
        INVALID_REQUEST,
        PARSE_ERROR,
        ErrorData,
        JSONRPCError,
        JSONRPCNotification,
        jsonrpc_message_adapter,
    )
    from pydantic import ValidationError

    def error(code: int, message: str) -> tuple[None, JSONRPCError]:
        return None, JSONRPCError(jsonrpc="2.0", id=None,
                                  error=ErrorData(code=code, message=message))

    try:
        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError as exc:
        if any(e.get("type") == "json_invalid" for e in exc.errors()):
            return error(PARSE_ERROR, "Parse error")
        return error(INVALID_REQUEST, "Invalid Request")
    if isinstance(message, JSONRPCNotification) and "id" in json.loads(line):
        return error(INVALID_REQUEST, "Invalid Request")
    return message, None

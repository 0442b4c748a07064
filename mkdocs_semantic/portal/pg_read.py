"""Opening the sites of a PostgreSQL database for queries: each site's payloads come
from the database when a query first needs them (into a local folder, verified like a
downloaded bundle's), and pgvector's HNSW index finds the nearest chunks."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..bundle.format import MANIFEST, BundleError
from ..bundle.reader import ON_DEMAND, Bundle, read_bundle
from ..bundle.vectors import Vectors
from ..constants import VECTOR_CHUNKS
from .database import (
    NO_SITES,
    TABLE_NAME,
    DatabaseError,
    PgSite,
    check_schema,
    connect,
    first_line,
    loaded,
    require_driver,
    shown_url,
)
from .hnsw import HnswSettings
from .nearest import NearestVectors
from .pg_load import vector_text

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg_pool import ConnectionPool

POOL_SIZE = 4
POOL_WAIT = 3.0
"""Seconds a query waits for a connection of the pool: less than a server's wait for a
slow site (apps/site_runner.py SOURCE_WAIT), so that a database that is down is named."""


@dataclass
class Database:
    """A connection pool to one database, each connection searching with `ef_search`."""

    url: str
    ef_search: int
    pool: ConnectionPool | None = None
    """Made by `open`."""

    def open(self) -> Database:
        """The pool, once one connection has checked the URL and the schema (a wrong
        URL is one line at once, not a pool's timeout)."""
        psycopg = require_driver()
        from psycopg_pool import ConnectionPool

        with connect(self.url) as conn:
            check_schema(conn)
            if not loaded(conn):
                raise DatabaseError(NO_SITES)
        ef = max(self.ef_search, VECTOR_CHUNKS)

        def configure(conn) -> None:
            conn.execute(f"SET hnsw.ef_search = {int(ef)}")

        try:
            self.pool = ConnectionPool(self.url, min_size=1, max_size=POOL_SIZE,
                                       configure=configure, open=False,
                                       kwargs={"autocommit": True})
            self.pool.open(wait=True, timeout=15)
        except psycopg.Error as exc:
            raise DatabaseError(f"cannot use {shown_url(self.url)}: "
                                f"{first_line(exc)}") from exc
        atexit.register(self.close)
        return self

    @contextmanager
    def connection(self) -> Iterator[Connection]:
        """A connection of the pool, given back when the `with` block ends. A database
        that cannot be reached (stopped, restarting, or no connection free within
        `POOL_WAIT`) is a DatabaseError naming it, so that a server answers 503 saying
        so rather than 500 or a site's wait running out."""
        assert self.pool is not None, "open the database first"
        psycopg = require_driver()
        try:
            with self.pool.connection(timeout=POOL_WAIT) as conn:
                yield conn
        except psycopg.OperationalError as exc:
            raise DatabaseError(f"the database {shown_url(self.url)} cannot be reached "
                                f"({first_line(exc)}): is it running?") from exc

    def sites(self) -> list[PgSite]:
        psycopg = require_driver()
        try:
            with self.connection() as conn:
                return loaded(conn)
        except psycopg.Error as exc:
            raise DatabaseError(f"the loaded sites could not be read from "
                                f"{shown_url(self.url)}: {first_line(exc)}") from exc

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


class PgVectors(NearestVectors):
    """The bundle's vectors with pgvector's HNSW index finding the nearest chunks."""

    layout = "pgvector"

    def __init__(self, exact: Vectors, database: Database, table: str) -> None:
        if not TABLE_NAME.match(table):
            raise DatabaseError(f"{table!r} is not a vectors table: load the site again")
        super().__init__(exact)
        self.database = database
        self.table = table

    def nearest(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        psycopg = require_driver()
        text = vector_text(np.asarray(query))
        kind = "vector" if self.dtype == "f32" else "halfvec"
        statement = (f"SELECT chunk, embedding <#> %s::{kind} FROM {self.table} "
                     f"ORDER BY embedding <#> %s::{kind} LIMIT {int(count)}")
        try:
            with self.database.connection() as conn:
                rows = conn.execute(statement, (text, text)).fetchall()
        except psycopg.Error as exc:
            raise DatabaseError(f"the nearest chunks could not be read from {self.table} "
                                f"({first_line(exc)}): if the site was loaded twice in a "
                                "moment, the server answers from the new load within a "
                                "second; try again") from exc
        return (np.array([r[0] for r in rows], dtype=np.int64),
                -np.array([r[1] for r in rows], dtype=np.float64))  # <#> is minus the dot


def database_bundle(database: Database, site: PgSite, folder: Path) -> Bundle:
    """Site `site` of the database in `folder`: its manifest and the payloads every query
    reads written now, the shards (`ON_DEMAND`) fetched from the database when a query
    first needs them."""
    with database.connection() as conn:
        row = conn.execute("SELECT manifest, payloads FROM semantic_sites WHERE name = %s",
                           (site.name,)).fetchone()
        if row is None:
            raise DatabaseError(f"site {site.name!r} is no longer loaded: load it again")
        manifest, names = row
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MANIFEST).write_bytes(bytes(manifest))
        eager = [n for n in names if not n.startswith(ON_DEMAND)]
        for name, data in conn.execute("SELECT name, data FROM semantic_payloads WHERE "
                                       "site = %s AND name = ANY(%s)", (site.name, eager)):
            _write(folder / name, bytes(data))

    def fetch(name: str, size: int) -> None:
        with database.connection() as conn:
            found = conn.execute("SELECT data FROM semantic_payloads WHERE site = %s AND "
                                 "name = %s", (site.name, name)).fetchone()
        if found is None:
            raise BundleError(f"payload {name} of site {site.name!r} is not in the database "
                              "(the site was loaded twice in a moment): the server answers "
                              "from the new load within a second; try again")
        _write(folder / name, bytes(found[0]))

    bundle = read_bundle(folder, fetch=fetch)
    return replace(bundle, vectors=PgVectors(bundle.vectors, database, site.vectors))


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def open_database(url: str, *, ef_search: int | None = None) -> Database:
    return Database(url, ef_search or HnswSettings().expansion_search).open()


def scratch_folder() -> Path:
    """A folder for this process's copies of the payloads it reads, removed at exit."""
    folder = Path(tempfile.mkdtemp(prefix="mkdocs-semantic-db-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder

"""The PostgreSQL database `load --db URL` writes and `serve --db URL` reads.

    semantic_schema       one row: the schema's version
    semantic_sites        one row per loaded site: its version (manifest hash), the
                          version before, their payload lists and vector tables
    semantic_payloads     the sites' bundle payloads (content-hashed names), as bytes
    semantic_vectors_<h>  one table per site version: chunk number and vector, with a
                          pgvector HNSW index

Vectors are `halfvec`: the bundle's int8 values are exact in half precision (2 bytes a
dimension where `vector` takes 4), and pgvector sums their products in single
precision, exact for these integers, so a score is the bundle's own. A load of a site is
one transaction; the version before stays, so a server that opened it keeps answering.
"""

from __future__ import annotations

import hashlib
import re
import urllib.parse
from dataclasses import dataclass

from ..bundle.format import BundleError

SCHEMA_VERSION = 1
NO_SITES = ("the database holds no loaded sites: run `mkdocs-semantic load NAME=SOURCE "
            "--db URL` first")
VECTOR_TYPES = {"i8": ("halfvec", "halfvec_ip_ops"), "f16": ("halfvec", "halfvec_ip_ops"),
                "f32": ("vector", "vector_ip_ops")}

SCHEMA = """
CREATE TABLE IF NOT EXISTS semantic_schema (version integer NOT NULL);
CREATE TABLE IF NOT EXISTS semantic_sites (
    name text PRIMARY KEY,
    version text NOT NULL,
    source text NOT NULL,
    base_url text,
    pages integer NOT NULL,
    chunks integer NOT NULL,
    manifest bytea NOT NULL,
    vectors text NOT NULL,
    payloads text[] NOT NULL,
    graph jsonb NOT NULL,
    previous_vectors text,
    previous_payloads text[] NOT NULL DEFAULT '{}',
    loaded_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS semantic_payloads (
    site text NOT NULL,
    name text NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (site, name)
);
"""


class DatabaseError(BundleError):
    """A database that cannot be reached, lacks pgvector, or holds another schema."""


@dataclass(frozen=True)
class PgSite:
    """One loaded site as `semantic_sites` lists it."""

    name: str
    version: str
    base_url: str | None
    chunks: int
    vectors: str
    """The table of its vectors."""
    graph: dict


def shown_url(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[-1]
    user = parts.username or ""
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def require_driver():
    """psycopg, or one line naming the extra that brings it."""
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise DatabaseError("a database needs psycopg: pip install "
                            "'mkdocs-semantic-search[postgres]'") from exc
    return psycopg


def connect(url: str):
    """A connection to `url`, or one line saying why not."""
    psycopg = require_driver()
    try:
        return psycopg.connect(url, connect_timeout=10)
    except psycopg.Error as exc:
        raise DatabaseError(f"cannot connect to {shown_url(url)}: {first_line(exc)}") from exc
    except Exception as exc:  # a malformed URL is the driver's ProgrammingError or ValueError
        raise DatabaseError(f"cannot connect to {shown_url(url)}: {first_line(exc)} (give a "
                            "URL like postgresql://user:password@host:5432/dbname)") from exc


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def create_schema(conn) -> None:
    """pgvector and the tables, made if missing; an error for another schema version."""
    psycopg = require_driver()
    try:
        with conn.transaction():
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error as exc:
        raise DatabaseError(f"the database has no pgvector ({first_line(exc)}): install "
                            "the extension, then CREATE EXTENSION vector") from exc
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('semantic_schema'))")
        conn.execute(SCHEMA)
        row = conn.execute("SELECT version FROM semantic_schema").fetchone()
        if row is None:
            conn.execute("INSERT INTO semantic_schema VALUES (%s)", (SCHEMA_VERSION,))
    check_schema(conn)


def check_schema(conn) -> None:
    """An error unless the database holds this version's schema."""
    exists = conn.execute("SELECT to_regclass('semantic_schema') IS NOT NULL").fetchone()[0]
    if not exists:
        raise DatabaseError(NO_SITES)
    row = conn.execute("SELECT version FROM semantic_schema").fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        raise DatabaseError(
            f"the database was written by another version of mkdocs-semantic (schema "
            f"{row[0] if row else None}, this one reads {SCHEMA_VERSION}): load the sites "
            "into a new database")


def vectors_table(site: str, version: str) -> str:
    """The table name of one site version's vectors (a hash: any site name is safe)."""
    digest = hashlib.sha256(f"{site}\0{version}".encode()).hexdigest()[:16]
    return f"semantic_vectors_{digest}"


TABLE_NAME = re.compile(r"^semantic_vectors_[0-9a-f]{16}$")


def loaded(conn) -> list[PgSite]:
    """The loaded sites, by name."""
    rows = conn.execute("SELECT name, version, base_url, chunks, vectors, graph "
                        "FROM semantic_sites ORDER BY name").fetchall()
    return [PgSite(*row) for row in rows]

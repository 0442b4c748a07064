"""Loading one site's bundle into PostgreSQL (portal/database.py), in one transaction.

A site whose manifest is the one loaded is left as it is: the load reads and writes
nothing else. Otherwise the payloads the database lacks are added, the version's vectors
copied into a table of their own and indexed (HNSW), and the site's row pointed at them;
what neither this version nor the one before names is removed. A load killed at any
point is rolled back by PostgreSQL: the site stays as it was.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from ..bundle.format import MANIFEST
from ..bundle.reader import read_bundle
from .database import TABLE_NAME, VECTOR_TYPES, DatabaseError, first_line, vectors_table
from .hnsw import HnswSettings
from .load import LoadOutcome, manifest_version


def load_site_pg(conn, name: str, bundle_dir: Path, *, source: str,
                 base_url: str | None = None, settings: HnswSettings | None = None,
                 progress: Callable[[str], None] | None = None) -> LoadOutcome:
    """Load the bundle at `bundle_dir` (every payload present) as site `name`, in one
    transaction on `conn` (whose schema `create_schema` made)."""
    import psycopg

    try:
        return _load(conn, name, bundle_dir, source=source, base_url=base_url,
                     settings=settings or HnswSettings(), say=progress or (lambda text: None))
    except psycopg.Error as exc:
        raise DatabaseError(f"loading site {name!r} failed, the database keeps what it had: "
                            f"{first_line(exc)}") from exc


def _load(conn, name: str, bundle_dir: Path, *, source: str, base_url: str | None,
          settings: HnswSettings, say: Callable[[str], None]) -> LoadOutcome:
    from psycopg import sql

    started = time.perf_counter()
    version = manifest_version(bundle_dir)
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"semantic:{name}",))
        row = conn.execute("SELECT version, source, base_url, chunks, vectors, payloads, "
                           "previous_vectors FROM semantic_sites WHERE name = %s FOR UPDATE",
                           (name,)).fetchone()
        if row is not None and tuple(row[:3]) == (version, source, base_url):
            return LoadOutcome(name, "unchanged", row[3])
        bundle = read_bundle(bundle_dir)  # verified before anything is written
        held = {n for (n,) in conn.execute(
            "SELECT name FROM semantic_payloads WHERE site = %s", (name,))}
        wanted = [p for p in bundle.files if p.name not in held]
        say(f"{name}: adding {len(wanted)} of {len(bundle.files)} payloads")
        copied_bytes = 0
        with conn.cursor().copy("COPY semantic_payloads (site, name, data) FROM STDIN") as copy:
            for payload in wanted:
                data = (bundle_dir / payload.name).read_bytes()
                copied_bytes += len(data)
                copy.write_row((name, payload.name, data))
        table = vectors_table(name, version)
        vectors = bundle.vectors
        kind, ops = VECTOR_TYPES[vectors.dtype]
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))
        conn.execute(sql.SQL("CREATE TABLE {} (chunk integer PRIMARY KEY, embedding {}({}) "
                             "NOT NULL)").format(sql.Identifier(table), sql.SQL(kind),
                                                 sql.Literal(vectors.dim)))
        matrix = vectors.matrix()
        say(f"{name}: copying {len(matrix):,} vectors")
        with conn.cursor().copy(sql.SQL("COPY {} (chunk, embedding) FROM STDIN").format(
                sql.Identifier(table))) as copy:
            for chunk, vector in enumerate(matrix):
                copy.write_row((chunk, vector_text(vector)))
        say(f"{name}: building the HNSW index of {len(matrix):,} chunks")
        conn.execute(sql.SQL("CREATE INDEX ON {} USING hnsw (embedding {}) WITH (m = {}, "
                             "ef_construction = {})").format(
            sql.Identifier(table), sql.SQL(ops), sql.Literal(settings.connectivity),
            sql.Literal(settings.expansion_add)))
        conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table)))
        names = [p.name for p in bundle.files]
        manifest = (bundle_dir / MANIFEST).read_bytes()
        previous_payloads = row[5] if row is not None else []
        previous_table = row[4] if row is not None else None
        conn.execute(
            "INSERT INTO semantic_sites (name, version, source, base_url, pages, chunks, "
            "manifest, vectors, payloads, graph, previous_vectors, previous_payloads, "
            "loaded_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
            "COALESCE(%s::text[], '{}'), now()) "
            "ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, "
            "source = EXCLUDED.source, base_url = EXCLUDED.base_url, "
            "pages = EXCLUDED.pages, chunks = EXCLUDED.chunks, "
            "manifest = EXCLUDED.manifest, vectors = EXCLUDED.vectors, "
            "payloads = EXCLUDED.payloads, graph = EXCLUDED.graph, "
            "previous_vectors = EXCLUDED.previous_vectors, "
            "previous_payloads = EXCLUDED.previous_payloads, loaded_at = now()",
            (name, version, source, base_url, bundle.manifest.counts["pages"],
             bundle.manifest.counts["chunks"], manifest, table, names,
             json.dumps(asdict(settings)), previous_table, previous_payloads or None))
        if row is not None and row[6] and row[6] not in (table, previous_table) \
                and TABLE_NAME.match(row[6]):
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(row[6])))
        conn.execute("DELETE FROM semantic_payloads WHERE site = %s AND "
                     "NOT (name = ANY(%s::text[]))",
                     (name, names + list(previous_payloads)))
    return LoadOutcome(name, "new" if row is None else "changed",
                       bundle.manifest.counts["chunks"], payloads_copied=len(wanted),
                       payloads_linked=len(bundle.files) - len(wanted),
                       bytes_copied=copied_bytes,
                       seconds=round(time.perf_counter() - started, 2))


def vector_text(row: np.ndarray) -> str:
    """pgvector's text form of one vector."""
    return "[" + ",".join(map(str, row.tolist())) + "]"


def drop_site_pg(conn, name: str) -> bool:
    """Remove site `name` and everything it holds; False when it was not loaded."""
    from psycopg import sql

    with conn.transaction():
        row = conn.execute("DELETE FROM semantic_sites WHERE name = %s "
                           "RETURNING vectors, previous_vectors", (name,)).fetchone()
        if row is None:
            return False
        for table in row:
            if table and TABLE_NAME.match(table):
                conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))
        conn.execute("DELETE FROM semantic_payloads WHERE site = %s", (name,))
    return True

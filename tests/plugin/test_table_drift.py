"""A small edit keeps the query table, so a deploy uploads none of its rows; a site
whose text moved past REFIT_DRIFT since the fit gets a new one."""

from __future__ import annotations

import logging

import numpy as np

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.indexing.query_table.fit import REFIT_DRIFT

TOPICS = ["caching", "logging", "routing", "testing", "security", "templates", "forms",
          "sessions", "uploads", "streaming", "databases", "migrations", "workers",
          "metrics", "tracing", "deployment", "settings", "plugins", "sockets", "queues"]


def many_pages(project):
    """20 pages of three sections each: a one-sentence edit moves well under 5 %."""
    for topic in TOPICS:
        project.write(f"{topic}.md", f"""
            # {topic.title()}

            How the framework handles {topic} for an application in production.

            ## Configuring {topic}

            Set the {topic} options in the settings file before the server starts.

            ## Troubleshooting {topic}

            When {topic} misbehaves, turn on debug output and read the log lines.
            """)
    return project


def table_files(site) -> set[str]:
    return {p.name for p in (site.bundle / "table").iterdir()}


def test_a_one_sentence_edit_keeps_the_table_and_its_files(project, caplog):
    site = many_pages(project)
    first = site.build().last_build
    assert first.table.refitted
    files = table_files(site)
    table = read_bundle(site.site).table
    page = site.root / "docs" / "routing.md"
    page.write_text(page.read_text().replace("in production.", "in production and tests."))
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        edited = site.build().last_build
    assert not edited.table.refitted and edited.table.drift is not None
    assert 0 < edited.table.drift.share <= REFIT_DRIFT
    assert f"fitted before {edited.table.drift.changed} of {edited.table.drift.texts} " \
           "section texts changed (refit past 5%)" in caplog.text
    assert table_files(site) == files  # a deploy uploads none of the table's rows
    kept = read_bundle(site.site).table
    assert np.array_equal(kept.rows, table.rows)
    again = site.build().last_build  # nothing changed since: still the same drift
    assert not again.table.refitted and again.table.drift == edited.table.drift
    # the drift is counted from the fit, not from the last build: edits add up
    for topic in TOPICS[:6]:
        page = site.root / "docs" / f"{topic}.md"
        page.write_text(page.read_text().replace("before the server", "before the app"))
    refit = site.build().last_build
    assert refit.table.refitted and refit.table.drift is None
    assert table_files(site) != files

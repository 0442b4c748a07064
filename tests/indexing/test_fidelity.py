"""The static table measured against the model on held-out phrases (query_table/fidelity.py)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.bundle.table import TokenTable
from mkdocs_semantic.indexing.query_table import fidelity
from mkdocs_semantic.indexing.query_table.fidelity import Fidelity, measure

from ..plugin.test_plugin import three_pages


def table_of(rows: dict[int, list[int]]) -> TokenTable:
    ids = sorted(rows)
    return TokenTable(token_ids=np.array(ids, dtype=np.uint32),
                      rows=np.array([rows[i] for i in ids], dtype=np.int8), scale=1.0)


def test_a_table_that_gives_the_models_vectors_agrees_fully_and_one_that_does_not_less():
    chunks = np.random.default_rng(0).normal(size=(40, 4)).astype(np.float32)
    table = table_of({1: [10, 0, 0, 0], 2: [0, 10, 0, 0], 3: [0, 0, 10, 1]})
    phrases = [[1], [2], [3, 3], [9]]  # token 9 has no row: left out
    model = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.1], [0, 0, 0, 1]], np.float32)
    same = measure(table, phrases, model, chunks)
    assert same is not None and same.phrases == 3
    assert same.cosine == pytest.approx(1.0, abs=1e-6) and same.agreement == 1.0
    turned = measure(table, phrases, model[[1, 2, 0, 3]], chunks)
    assert turned is not None and turned.cosine < 0.2 and turned.agreement < 1.0
    assert measure(table, [[9]], model[:1], chunks) is None


def test_the_json_form_reads_back_and_a_malformed_one_reads_as_none():
    found = Fidelity(phrases=200, cosine=0.81234567, agreement=0.6)
    assert Fidelity.from_json(found.to_json()) == Fidelity(200, 0.8123, 0.6)
    assert Fidelity.from_json(None) is None and Fidelity.from_json({"phrases": "x"}) is None
    assert "60% of top-10 chunks in common, cosine 0.81" in found.line()


@pytest.fixture
def site(project):
    return three_pages(project)


def test_every_build_measures_the_table_says_so_and_stats_shows_it(site, caplog):
    from click.testing import CliRunner

    from mkdocs_semantic.apps.cli import cli

    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        stats = site.build().last_build
    measured = stats.table.fidelity
    assert measured is not None and measured.phrases > 20
    assert 0 < measured.cosine <= 1 and 0 <= measured.agreement <= 1
    assert f"{measured.agreement:.0%} of top-10 chunks as the model's" in caplog.text
    stored = read_bundle(site.site).catalog["encoders"]["static"]["fidelity"]
    assert Fidelity.from_json(stored) == Fidelity.from_json(measured.to_json())
    shown = CliRunner().invoke(cli, ["stats", str(site.site)])
    assert shown.exit_code == 0 and f"fidelity   {Fidelity.from_json(stored).line()}" \
        in shown.stdout
    again = site.build().last_build.table
    assert again.embedded == 0 and again.fidelity == measured  # cached, the same


def test_low_agreement_warns_and_names_the_transformer(site, caplog, monkeypatch):
    monkeypatch.setattr(fidelity, "LOW_AGREEMENT", 1.01)  # nothing reaches it
    with caplog.at_level(logging.WARNING):
        site.build()
    assert "set query_encoder: transformer" in caplog.text

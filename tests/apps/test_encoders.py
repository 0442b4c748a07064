"""Which query encoder a server answers with: the model where it is at hand."""

from __future__ import annotations

import logging

import pytest

from mkdocs_semantic.apps.encoders import server_encoder, shared_embedder
from mkdocs_semantic.apps.service import bundle_service
from mkdocs_semantic.bundle.format import BundleError
from mkdocs_semantic.bundle.quantize import quantize
from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.bundle.writer import write_bundle
from mkdocs_semantic.model.spec import default_model_spec

from ..bundle.test_reader_writer import catalog_of, sample_chunks, sample_vectors, write_sample
from ..bundle_edits import publish_catalog


def test_a_server_answers_with_the_model_unless_told_static(tmp_path):
    write_sample(tmp_path)  # built with the installed default model, its table beside
    bundle = read_bundle(tmp_path)
    assert bundle.manifest.query_encoder == "static"  # what browsers use
    assert server_encoder(bundle, None) == "transformer"
    assert server_encoder(bundle, "static") == "static"
    assert server_encoder(bundle, "transformer") == "transformer"
    with pytest.raises(ValueError, match="unknown query encoder 'bert'"):
        server_encoder(bundle, "bert")
    service = bundle_service(bundle, warm=False)
    assert service.searcher.encoder == "transformer"
    assert service.health()["query_encoder"] == "transformer"


def test_a_site_whose_model_is_not_at_hand_is_answered_with_its_table(tmp_path, caplog):
    write_sample(tmp_path)
    catalog = catalog_of(tmp_path)
    catalog["model"]["sha256"] = "0" * 64  # another model, which the site does not ship
    publish_catalog(tmp_path, catalog)
    bundle = read_bundle(tmp_path)
    with caplog.at_level(logging.INFO, logger="mkdocs_semantic"):
        assert server_encoder(bundle, None) == "static"
    assert "answering" in caplog.text and "with its static query table" in caplog.text
    with pytest.raises(BundleError, match="does not ship its model"):
        server_encoder(bundle, "transformer")


def test_a_site_without_a_table_cannot_be_answered_static(tmp_path):
    write_bundle(tmp_path, chunks=sample_chunks(6), stored=quantize(sample_vectors(6), "i8"),
                 spec=default_model_spec(), query_encoder="transformer")
    bundle = read_bundle(tmp_path)
    assert bundle.table is None
    with pytest.raises(BundleError, match=r"no static query table .* --query-encoder transformer"):
        server_encoder(bundle, "static")


def test_sites_of_one_model_share_one_loaded_copy(tmp_path):
    write_sample(tmp_path / "a")
    write_sample(tmp_path / "b", n=8)
    first, second = read_bundle(tmp_path / "a"), read_bundle(tmp_path / "b")
    assert shared_embedder(first.model_spec()) is shared_embedder(second.model_spec())
    assert shared_embedder(first.model_spec(), threads=1) is not shared_embedder(
        first.model_spec())

"""Loading sites into a data folder (portal/): what a load writes, what it keeps, what a
failed load leaves, and that a loaded site answers as its bundle does. Real `mkdocs
build`s of the four-page sample site and the parity fixture's bundle."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from mkdocs_semantic.bundle.format import BundleError
from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.portal import load as loading
from mkdocs_semantic.portal.folder import IndexFolder, IndexFolderError
from mkdocs_semantic.portal.hnsw import HnswError
from mkdocs_semantic.portal.load import drop_site, load_site
from mkdocs_semantic.portal.read import graph_bundle, loaded_sites
from mkdocs_semantic.search.searcher import Searcher

from ..conftest import Project
from .conftest import PARITY, edited_builds, sample_project

QUERIES = ["cookies the browser sends", "run code when the app starts",
           "service worker offline cache", "upload big files"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Project:
    return sample_project(tmp_path_factory.mktemp("sample") / "project")


def load(folder: IndexFolder, name: str, bundle_dir: Path, **options):
    with folder.locked():
        return load_site(folder, name, bundle_dir, source=str(bundle_dir), **options)


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root` with its inode and modification time."""
    return {str(p.relative_to(root)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def stored_searcher(root: Path, name: str) -> Searcher:
    site = next(s for s in loaded_sites(root) if s.name == name)
    return Searcher(graph_bundle(site.bundle_dir(root), site.graph_path(root), site=name))


@pytest.mark.parametrize("mode", ["hybrid", "vector", "lexical"])
def test_a_loaded_site_answers_exactly_as_its_bundle(tmp_path, mode):
    folder = IndexFolder(tmp_path / "index")
    outcome = load(folder, "pwa", PARITY)
    assert outcome.state == "new" and outcome.payloads_copied > 0
    stored, own = stored_searcher(folder.root, "pwa"), Searcher.open(PARITY)
    assert stored.bundle.vectors.layout == "hnsw"
    for query in QUERIES:
        got = [(r.chunk_id, r.score, r.vector_score) for r in stored.search(query, mode=mode)]
        want = [(r.chunk_id, r.score, r.vector_score) for r in own.search(query, mode=mode)]
        assert got == want, query


def test_the_graphs_nearest_chunks_carry_the_bundles_exact_scores(tmp_path):
    folder = IndexFolder(tmp_path / "index")
    load(folder, "pwa", PARITY)
    stored, own = stored_searcher(folder.root, "pwa"), Searcher.open(PARITY)
    codes = own.embed("cache pages for offline use")
    exact = own.bundle.vectors.scores(codes, every=True)
    found = stored.bundle.vectors.scores(codes)
    held = ~np.isnan(found)
    assert held.sum() == min(100, len(exact))
    np.testing.assert_array_equal(found[held], exact[held])
    assert stored.bundle.vectors.mean_score(codes) == own.bundle.vectors.mean_score(codes)
    filtered = stored.bundle.vectors.scores(codes, every=True)
    np.testing.assert_array_equal(filtered, exact)


def test_loading_an_unchanged_site_writes_nothing(tmp_path, sample):
    folder = IndexFolder(tmp_path / "index")
    load(folder, "app", sample.bundle)
    before = tree(folder.root)
    again = load(folder, "app", sample.bundle)
    assert again.state == "unchanged" and again.chunks == read_bundle(
        sample.bundle).manifest.counts["chunks"]
    assert tree(folder.root) == before


def test_a_changed_site_keeps_its_unchanged_payloads_and_one_version_before(tmp_path):
    folder = IndexFolder(tmp_path / "index")
    project = sample_project(tmp_path / "project")
    first = load(folder, "app", project.bundle)
    versions = [loaded_sites(folder.root)[0].version]
    for _ in edited_builds(project):
        outcome = load(folder, "app", project.bundle)
        assert outcome.state == "changed"
        assert outcome.payloads_linked > 0
        assert outcome.payloads_copied < first.payloads_copied
        versions.append(loaded_sites(folder.root)[0].version)
    held = {p.name for p in folder.site_dir("app").iterdir()}
    assert held == {versions[1], f"{versions[1]}.usearch", versions[2], f"{versions[2]}.usearch"}
    searcher = stored_searcher(folder.root, "app")
    assert searcher.search("memory grows restart workers", mode="lexical")[0].url == \
        "learn/cookies/"


@pytest.mark.parametrize("stage", ["copying", "verifying", "graph"])
def test_a_load_that_fails_midway_leaves_the_site_as_it_was(tmp_path, sample, monkeypatch,
                                                            stage):
    folder = IndexFolder(tmp_path / "index")
    load(folder, "app", PARITY)
    listed = folder.list_path.read_bytes()
    before = stored_searcher(folder.root, "app").search("offline cache")
    calls = []

    def fail(*args, **kwargs):
        calls.append(args)
        if stage == "copying" and len(calls) < 5:
            return real_place(*args, **kwargs)
        raise OSError(f"no space left on device ({stage})")

    real_place = loading._place
    if stage in ("copying", "verifying"):
        monkeypatch.setattr(loading, "_place", fail if stage == "copying"
                            else lambda *a, **k: "copied")
    else:
        monkeypatch.setattr(loading, "build_hnsw", fail)
    with pytest.raises((OSError, BundleError)):
        load(folder, "app", sample.bundle)
    assert folder.list_path.read_bytes() == listed
    after = stored_searcher(folder.root, "app").search("offline cache")
    assert [r.chunk_id for r in after] == [r.chunk_id for r in before]
    monkeypatch.undo()
    assert load(folder, "app", sample.bundle).state == "changed"
    assert not [p for p in folder.site_dir("app").iterdir() if p.name.startswith(".")]


def test_a_dropped_site_is_gone_and_the_others_stay(tmp_path, sample):
    folder = IndexFolder(tmp_path / "index")
    load(folder, "app", sample.bundle)
    load(folder, "pwa", PARITY)
    with folder.locked():
        assert drop_site(folder, "app") and not drop_site(folder, "app")
    assert [s.name for s in loaded_sites(folder.root)] == ["pwa"]
    assert not folder.site_dir("app").exists()
    assert stored_searcher(folder.root, "pwa").search("offline cache")


def test_a_folder_of_another_kind_or_version_is_named_with_its_fix(tmp_path, sample):
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "notes.txt").write_text("mine")
    with pytest.raises(IndexFolderError, match=r"is not an index folder .* give an empty"):
        IndexFolder(stray).sites()
    folder = IndexFolder(tmp_path / "index")
    load(folder, "app", sample.bundle)
    data = json.loads(folder.list_path.read_text())
    folder.list_path.write_text(json.dumps(data | {"version": 99}))
    with pytest.raises(IndexFolderError, match=r"another version .* into a new folder"):
        loaded_sites(folder.root)
    folder.list_path.write_text("{not json")
    with pytest.raises(IndexFolderError, match="cannot be read"):
        loaded_sites(folder.root)
    with pytest.raises(BundleError, match="holds no loaded sites: run `mkdocs-semantic load"):
        loaded_sites(tmp_path / "empty")


def test_a_damaged_graph_or_a_missing_payload_is_named(tmp_path, sample):
    folder = IndexFolder(tmp_path / "index")
    load(folder, "app", sample.bundle)
    site = loaded_sites(folder.root)[0]
    graph = site.graph_path(folder.root)
    graph.write_bytes(graph.read_bytes()[:100])
    with pytest.raises(HnswError, match="load the site again"):
        stored_searcher(folder.root, "app")
    other = IndexFolder(tmp_path / "other")
    load(other, "pwa", PARITY)
    shutil.copyfile(loaded_sites(other.root)[0].graph_path(other.root), graph)
    with pytest.raises(HnswError, match=r"holds .* vectors .* load the site again"):
        stored_searcher(folder.root, "app")
    with folder.locked():
        folder.commit({})  # forget it, so the next load builds it anew
    load(folder, "app", sample.bundle)
    searcher = stored_searcher(folder.root, "app")
    shard = next(p for p in site.bundle_dir(folder.root).rglob("*")
                 if p.is_file() and p.parent.name == "fragments")
    shard.unlink()
    with pytest.raises(BundleError, match="missing or damaged: load site 'app' again"):
        for query in QUERIES:
            searcher.search(query)


@pytest.mark.parametrize("field, value", [("name", "../../../outside"), ("name", ".hidden"),
                                          ("version", "../../x"), ("version", "ABC")])
def test_a_hand_edited_index_list_cannot_reach_outside_its_folder(tmp_path, field, value):
    folder = IndexFolder(tmp_path / "index")
    load(folder, "pwa", PARITY)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the owner's file")
    data = json.loads(folder.list_path.read_text())
    entry = data["sites"].pop("pwa")
    name = value if field == "name" else "pwa"
    if field == "version":
        entry["version"] = value
    data["sites"][name] = entry
    folder.list_path.write_text(json.dumps(data))
    with pytest.raises(IndexFolderError, match="which are no site name and version this "
                                               "program writes"):
        folder.sites()
    with pytest.raises(IndexFolderError), folder.locked():
        drop_site(folder, name)
    assert (outside / "keep.txt").read_text() == "the owner's file"


def test_building_a_graph_is_reported_about_ten_times_and_not_for_a_small_one():
    said: list[tuple[int, int]] = []
    for total in (27, loading.PROGRESS_FROM - 1, 3 * loading.PROGRESS_FROM):
        report = loading._every_tenth(lambda done, total: said.append((done, total)))
        for done in range(total + 1):
            report(done, total)
    assert {total for _, total in said} == {3 * loading.PROGRESS_FROM}
    assert 9 <= len(said) <= 10

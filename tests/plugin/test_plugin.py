"""Real `mkdocs build` runs of small sites with the plugin and the real model."""

from __future__ import annotations

import json
import logging
import re

import numpy as np
import pytest
from mkdocs.exceptions import MkDocsException

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.constants import FORMAT_VERSION
from mkdocs_semantic.indexing.indexer import human_bytes
from mkdocs_semantic.search.searcher import Searcher

from ..conftest import REPO

LIFESPAN = """
# Lifespan events

You can define logic that runs before the application starts taking requests,
and again after it finishes handling requests.

## Loading models at boot

A common case is loading a machine learning model once, when the server process
comes up, and sharing it between all requests instead of loading it per request.

## Closing resources on shutdown

When the process stops, close database connections and flush buffered logs.
"""

COOKIES = """
# Cookie parameters

Declare cookie parameters the same way as query and path parameters.

## Import Cookie

First import `Cookie` from the framework, then declare the parameter with a default.

```python
from fastapi import Cookie

async def read_items(ads_id: str | None = Cookie(default=None)):
    return {"ads_id": ads_id}
```
"""

DEPLOY = """
# Deployment

Run the application behind a process manager and a reverse proxy that terminates TLS.

## Containers

Build an image with your dependencies and run one process per container.
"""


def three_pages(project):
    """The project with the three pages most plugin tests build."""
    project.write("index.md", LIFESPAN)
    project.write("cookies.md", COOKIES)
    project.write("deploy.md", DEPLOY)
    return project


@pytest.fixture
def site(project):
    return three_pages(project)


def test_build_writes_a_bundle_that_answers_paraphrases(site):
    plugin = site.build()
    manifest = json.loads((site.bundle / "manifest.json").read_text())
    assert manifest["format"] == FORMAT_VERSION and manifest["query_encoder"] == "static"
    assert manifest["counts"]["pages"] == 3
    bundle = read_bundle(site.site)
    assert bundle.catalog["model"]["dim"] == 384
    assert bundle.table is not None and len(bundle.table.token_ids) > 50
    for payload in bundle.files:
        assert (site.bundle / payload.name).stat().st_size == payload.bytes
    assert not any(p.name.startswith("model/model.") for p in bundle.files)
    assert plugin.last_build.embedded == plugin.last_build.chunks > 0
    assert plugin.last_build.model_bytes == 0

    searcher = Searcher.open(site.site)
    top = searcher.search("run code when the server starts up", top_k=3)
    assert top[0].url == ""
    assert any(r.anchor == "loading-models-at-boot" for r in top)
    assert searcher.search("read a value the browser sent in a biscuit")[0].url == "cookies/"


def test_rebuild_with_nothing_changed_embeds_nothing_and_parses_nothing(site):
    first = site.build()
    assert first.indexer.pages_chunked == 3
    chunks_before = read_bundle(site.site).chunks
    again = site.build()
    assert again.last_build.embedded == 0
    assert again.last_build.reused == first.last_build.chunks
    assert again.indexer.pages_chunked == 0
    assert read_bundle(site.site).chunks == chunks_before


def test_build_stats_say_what_the_query_table_cost(site, caplog):
    first = site.build().last_build
    assert first.table is not None and first.table.refitted
    assert first.table.embedded > 0  # headings, sentences and single tokens
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        again = site.build().last_build
    assert again.embedded == 0
    assert again.table is not None and not again.table.refitted
    assert again.table.embedded == 0
    assert re.search(r" 0 embedded, \d+ reused; .*; query table reused \(0 embedded",
                     caplog.text)
    site.plugin_options["query_encoder"] = "transformer"
    assert site.build().last_build.table is None


def test_build_log_gives_the_client_bytes_beside_the_bundle(site, caplog):
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        static = site.build().last_build
    client = [p for p in (site.bundle / "client").rglob("*") if p.is_file()]
    client.append(site.bundle / "semantic.js")
    assert static.client_bytes == sum(p.stat().st_size for p in client) > 10_000
    assert f"; bundle {human_bytes(static.bundle_bytes)} + client " \
           f"{human_bytes(static.client_bytes)}, " in caplog.text
    # the transformer's bundle carries the model (its layers alone are 10.9 MB); the
    # client runs it with its own forward pass, without onnxruntime-web's runtime
    site.plugin_options["query_encoder"] = "transformer"
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        transformer = site.build().last_build
    assert transformer.model_bytes > 10_000_000
    assert f" + model {human_bytes(transformer.model_bytes)} + client " in caplog.text
    forward_pass = next((site.bundle / "client").glob("*/model-embed.js")).stat().st_size
    assert transformer.client_bytes == static.client_bytes + forward_pass
    assert not list((site.bundle / "client").rglob("ort-*"))


# Besides its summary, the kinds of line a build may log at INFO; docs/how-it-works.md
# shows one of each under "The build log line".
OTHER_LOG_LINES = {
    "progress": r"(reading pages|embedding chunks|embedding query-table texts) [\d,]+/[\d,]+ "
                r"\(\d+%\), \d+/s(, about .+ left)?",
    "done": r"(reading pages|embedding chunks|embedding query-table texts) [\d,]+/[\d,]+ "
            r"done in .+",
    "early": r"embedded [\d,]+ chunks while the pages were read; [\d,]+ to go",
    "solve": r"query table: solving for [\d,]+ tokens",
}


def documented_log_lines() -> list[str]:
    doc = (REPO / "docs" / "how-it-works.md").read_text(encoding="utf-8")
    section = doc.split("\n## The build log line\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^INFO +-  semantic: (.*)$", section, re.M)


def test_a_build_logs_its_summary_last_and_only_lines_the_docs_show(site, caplog):
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        plugin = site.build()
    lines = [r.getMessage().removeprefix("semantic: ") for r in caplog.records
             if r.name == "mkdocs.plugins.semantic" and r.levelno == logging.INFO]
    assert lines[-1] == plugin.last_build.summary()
    documented = documented_log_lines()
    for line in lines[:-1]:
        kind = next((kind for kind, form in OTHER_LOG_LINES.items()
                     if re.fullmatch(form, line)), None)
        assert kind, f"the build logs {line!r} at INFO: log it at DEBUG, or add its kind here"
        assert any(re.fullmatch(OTHER_LOG_LINES[kind], shown) for shown in documented), (
            f"the build logs {line!r}, and docs/how-it-works.md (The build log line) shows "
            "no line of that kind")


def test_corrupt_chunk_cache_warns_and_the_build_succeeds(site, caplog):
    site.build()
    (site.root / ".cache" / "plugin" / "semantic" / "chunks.json").write_text("{oops")
    with caplog.at_level(logging.WARNING):
        plugin = site.build()
    assert "unreadable chunk cache" in caplog.text
    assert plugin.indexer.pages_chunked == 3 and plugin.last_build.embedded == 0


def test_editing_one_section_re_embeds_only_that_section(site):
    site.build()
    site.write("cookies.md", COOKIES.replace("then declare the parameter with a default",
                                             "then declare the parameter with None as default"))
    plugin = site.build()
    assert plugin.last_build.embedded == 1 and plugin.indexer.pages_chunked == 1
    bundle = read_bundle(site.site)
    assert any("None as default" in c.text for c in bundle.chunks)


def test_exclusion_by_meta_attribute_and_glob(site):
    site.write("secret.md", "---\nsearch:\n  exclude: true\n---\n# Secret\n\nHidden page text.\n")
    site.write("drafts/wip.md", "# Work in progress\n\nDraft text nobody should find.\n")
    site.write("mixed.md", "# Mixed\n\nVisible words about kittens.\n\n"
               '<div markdown data-search-exclude>\n\nInternal remark about llamas.\n\n</div>\n')
    site.plugin_options = {"exclude": ["drafts/*"]}
    site.build()
    chunks = read_bundle(site.site).chunks
    urls = {c.url for c in chunks}
    assert "secret/" not in urls and "drafts/wip/" not in urls
    text = " ".join(c.text for c in chunks)
    assert "kittens" in text and "llamas" not in text


def test_material_theme_and_nested_navigation(site):
    site.theme = "material"
    site.write("guide/index.md", "# Guide\n\nA section index page about guides.\n")
    site.build(nav=[{"Home": "index.md"}, {"Guide": ["guide/index.md", "cookies.md"]},
                    "deploy.md"])
    chunks = read_bundle(site.site).chunks
    assert {c.section for c in chunks if c.url == "cookies/"} == {"Guide"}
    assert all("¶" not in c.text and "Skip to content" not in c.text for c in chunks)


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_float_dtypes(site, dtype):
    site.plugin_options = {"dtype": dtype}
    site.build()
    bundle = read_bundle(site.site)
    assert (bundle.vectors.dtype, bundle.vectors.scale) == (dtype, 1.0)
    # the static encoder knows only the site's own words: query with them
    top = Searcher(bundle).search("declare a cookie parameter", top_k=1, mode="vector")[0]
    assert top.url == "cookies/"
    # a static query is scaled to unit length, so float scores are cosines as with int8
    assert 0.3 < top.vector_score <= 1.0


def test_corrupt_cache_warns_and_the_build_succeeds(site, caplog):
    site.build()
    cache = site.root / ".cache" / "plugin" / "semantic" / "embeddings.npz"
    assert cache.exists()
    cache.write_bytes(b"garbage")
    with caplog.at_level(logging.WARNING):
        stats = site.build().last_build
    assert "unreadable embedding cache" in caplog.text
    assert stats.embedded == stats.chunks
    assert site.build().last_build.embedded == 0


@pytest.mark.parametrize("damage", ["half", "empty"])
@pytest.mark.parametrize("name", ["layout.npz", "query_table.npz", "embeddings.npz",
                                  "chunks.json"])
def test_every_damaged_cache_file_costs_a_rebuild_never_the_build(site, name, damage):
    site.build()
    cache = site.root / ".cache" / "plugin" / "semantic" / name
    data = cache.read_bytes()
    cache.write_bytes(data[: len(data) // 2] if damage == "half" else b"")
    site.build()
    assert read_bundle(site.site).manifest.counts["pages"] == 3
    assert site.build().last_build.embedded == 0  # and the cache works again


def test_a_damaged_layout_cache_warns_through_mkdocs_logger(site, caplog):
    """The warning goes where MkDocs counts it (`--strict` fails the build on it), with
    the plugin's prefix, as every other cache's does."""
    site.build()
    (site.root / ".cache" / "plugin" / "semantic" / "layout.npz").write_bytes(b"")
    with caplog.at_level(logging.WARNING):
        site.build()
    warned = [r for r in caplog.records if "vector layout cache" in r.getMessage()]
    assert [r.name for r in warned] == ["mkdocs.plugins.semantic"]
    assert warned[0].getMessage().startswith("semantic: ignoring unreadable")


def test_disabled_plugin_writes_nothing(site):
    site.plugin_options = {"enabled": False}
    site.build()
    assert not site.bundle.exists()


def test_empty_page_and_empty_site(project, caplog):
    project.write("index.md", "")
    project.build()
    chunks = read_bundle(project.site).chunks
    assert [(c.kind, c.text) for c in chunks] == [("page", "Home")]
    project.plugin_options = {"exclude": ["*.md"]}
    with caplog.at_level(logging.WARNING):
        project.build()
    assert "no page was indexed (all 1 pages are excluded or have no text)" in caplog.text
    project.plugin_options = {}
    (project.root / "docs" / "index.md").unlink()
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        project.build()
    assert read_bundle(project.site).chunks == []
    assert "no page was indexed (the site has no pages)" in caplog.text


def test_a_title_with_entities_is_indexed_as_readers_see_it(project):
    project.write("index.md", "# Cookies & sessions\n\nHow the browser keeps state.\n")
    project.build()
    assert {c.title for c in read_bundle(project.site).chunks} == {"Cookies & sessions"}


HOOK = """
def on_page_content(html, page, config, files):
    return html + "<p>Added by a hook: the zanzibar marmalade policy.</p>"
"""


def test_html_that_hooks_and_later_plugins_change_is_indexed(site):
    """MkDocs runs `hooks:` after every plugin listed in `plugins:`: what they add to a
    page's HTML is what readers see, so it must be what the index holds."""
    (site.root / "hooks.py").write_text(HOOK, encoding="utf-8")
    site.build(hooks=["hooks.py"])
    chunks = read_bundle(site.site).chunks
    added = {c.url for c in chunks if "zanzibar marmalade" in c.text}
    assert added == {"", "cookies/", "deploy/"}


def build_error(project, caplog) -> str:
    """Build, expecting failure; returns the exception text and the errors logged."""
    with caplog.at_level(logging.ERROR), pytest.raises(MkDocsException) as info:
        project.build()
    return f"{info.value}\n{caplog.text}"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"dtype": "b1"}, r"plugins.*dtype.*Expected one of.*'i8', 'f16', 'f32'"),
        ({"heading_levels": 9}, "option 'heading_levels' is 9; it must be a number from 1 to 6"),
        ({"max_tokens": 4000}, "option 'max_tokens' is 4000; it must be between 16 and"),
        ({"bundle_dir": "../outside"}, "option 'bundle_dir' is '../outside'"),
        ({"model": {"path": "missing.onnx", "tokenizer": "t.json"}},
         "option 'model.path' is 'missing.onnx', but .* does not exist"),
        ({"model": {"tokenizer": "t.json"}}, "'model.tokenizer' is set without 'model.path'"),
        ({"model": {"dim": 768}}, r"option 'model.dim'.*384-dimensional.*model.dim is 768"),
        ({"vector_layout": "partitioned", "dtype": "f16"},
         r"option 'vector_layout' is 'partitioned'; it must be auto or exact with dtype "
         r"'f16' \(the partitioned layout stores i8\)"),
        ({"vector_layout": "ivf"}, r"vector_layout.*Expected one of.*'auto', 'exact'"),
    ],
    ids=["dtype", "heading-levels", "max-tokens", "bundle-dir", "missing-model",
         "tokenizer-alone", "dimension-mismatch", "partitioned-f16", "vector-layout"],
)
def test_wrong_options_fail_with_a_message_naming_the_option(site, caplog, options, message):
    site.plugin_options = options
    assert re.search(message, build_error(site, caplog))
    assert not site.bundle.exists()


def test_unreadable_tokenizer_names_the_option(site, caplog):
    (site.root / "model.onnx").write_bytes(b"not really a model")
    (site.root / "tokenizer.json").write_text("{broken")
    site.plugin_options = {"model": {"path": "model.onnx", "tokenizer": "tokenizer.json"}}
    assert "option 'model.tokenizer': cannot read tokenizer" in build_error(site, caplog)


def test_broken_model_file_names_the_option(site, caplog):
    from mkdocs_semantic.model.spec import default_model_spec

    (site.root / "model.onnx").write_bytes(b"not really a model")
    site.plugin_options = {"model": {"path": "model.onnx",
                                     "tokenizer": str(default_model_spec().tokenizer_path)}}
    assert "option 'model.path': cannot load ONNX model" in build_error(site, caplog)


def test_model_errors_carry_the_option_to_fix(tmp_path):
    """The plugin names the option a ModelError carries instead of guessing it from the
    message, which may mention other options or hold paths with any words in them."""
    from dataclasses import replace

    from mkdocs_semantic.model.onnx import OnnxEmbedder
    from mkdocs_semantic.model.spec import ModelError, default_model_spec

    (tmp_path / "tokenizer.json").write_text("{broken")
    (tmp_path / "model.onnx").write_bytes(b"not really a model")
    spec = default_model_spec()
    with pytest.raises(ModelError) as info:
        OnnxEmbedder(replace(spec, tokenizer_path=tmp_path / "tokenizer.json"))
    assert info.value.option == "model.tokenizer"
    with pytest.raises(ModelError) as info:
        _ = OnnxEmbedder(replace(spec, model_path=tmp_path / "model.onnx")).dim
    assert info.value.option == "model.path"


def test_serve_style_rebuilds_keep_the_model_and_re_embed_only_edits(site):
    """`mkdocs serve` reuses one plugin instance for every rebuild."""
    plugin = site.build()
    indexer = plugin.indexer
    site.write("deploy.md", DEPLOY + "\n## Health checks\n\nExpose a liveness endpoint.\n")
    again = site.build(fresh=False)
    assert again is plugin and again.indexer is indexer
    assert again.last_build.embedded == 1
    (site.root / "docs" / "deploy.md").unlink()
    third = site.build(fresh=False).last_build
    assert third.embedded == 0 and third.pages == 2
    assert "deploy/" not in {c.url for c in read_bundle(site.site).chunks}


def test_serve_previews_keep_the_query_table_instead_of_refitting_per_edit(site, caplog):
    plugin = site.build()
    plugin.on_startup(command="serve", dirty=False)
    table = read_bundle(site.site).table
    site.write("deploy.md", DEPLOY + "\n## Health checks\n\nExpose a liveness endpoint.\n")
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        preview = site.build(fresh=False).last_build
    assert preview.embedded == 1 and preview.table.kept and preview.table.embedded == 0
    assert "query table kept from the build before" in caplog.text
    kept = read_bundle(site.site).table
    assert np.array_equal(kept.token_ids, table.token_ids)
    assert np.array_equal(kept.rows, table.rows)
    # a real build of the same edit fits the table for what the site now says
    published = site.build().last_build
    assert published.table.refitted and not published.table.kept


def chunk_cache_rows(path) -> list[dict]:
    """Every cached chunk (a dict with url and text) in chunks.json, wherever it sits."""
    found: list[dict] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            if "url" in node and "text" in node:
                found.append(node)
            else:
                for value in node.values():
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(path.read_text(encoding="utf-8")))
    return found


def edit_chunk_cache(site, edit) -> None:
    """Apply `edit` to the cached chunks of cookies.md, as a stray hand or a bad disk would."""
    path = site.root / ".cache" / "plugin" / "semantic" / "chunks.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = [row for row in chunk_cache_rows(path) if row["url"] == "cookies/"]
    assert rows
    text = json.dumps(data, ensure_ascii=False)
    for row in rows:
        text = text.replace(json.dumps(row, ensure_ascii=False),
                            json.dumps(edit(dict(row)), ensure_ascii=False))
    path.write_text(text, encoding="utf-8")


def test_a_renamed_key_in_the_chunk_cache_is_rebuilt_not_a_traceback(site, caplog):
    site.build()
    edit_chunk_cache(site, lambda row: {("uri" if k == "url" else k): v
                                        for k, v in row.items()})
    with caplog.at_level(logging.WARNING):
        plugin = site.build()
    assert "dropped 1 of 3 entries of the chunk cache" in caplog.text
    assert plugin.indexer.pages_chunked == 1 and plugin.last_build.embedded == 0
    assert site.build().indexer.pages_chunked == 0  # the rebuilt entry was saved


def test_a_changed_letter_in_the_chunk_cache_is_not_published(site, caplog):
    site.build()
    edit_chunk_cache(site, lambda row: {**row, "text": row["text"].replace("Cookie", "Cookiz")})
    with caplog.at_level(logging.WARNING):
        plugin = site.build()
    assert "dropped 1 of 3 entries of the chunk cache" in caplog.text
    assert plugin.indexer.pages_chunked == 1
    texts = " ".join(c.text for c in read_bundle(site.site).chunks)
    assert "Cookie" in texts and "Cookiz" not in texts


# Run as `python -c`: a real `mkdocs build`, except that the embedding cache is saved
# after every batch and the process stops itself after the first such checkpoint, so
# that the test kills it at a known point (no timing race).
STOPPING_BUILD = """
import os, signal, sys
from mkdocs_semantic.indexing import cache, indexer
indexer.CHECKPOINT_SECONDS = 0.0
save = cache.EmbeddingCache.save
def save_then_stop(self, *, prune=True):
    save(self, prune=prune)
    if not prune:
        os.kill(os.getpid(), signal.SIGSTOP)
cache.EmbeddingCache.save = save_then_stop
from mkdocs.__main__ import cli
cli(["build", "-q", "-f", sys.argv[1]])
"""


def test_a_killed_build_keeps_the_vectors_it_had_checkpointed(project):
    import subprocess
    import sys
    import time

    import numpy as np

    words = ("cache proxy header token request browser origin server response stale "
             "fresh validator etag revalidate expire").split()
    for page in range(10):
        sections = [f"## Topic {page}.{s}\n\n" + " ".join(
            words[(page * 7 + s * 3 + i) % len(words)] for i in range(40)) + ".\n"
            for s in range(8)]
        project.write(f"page{page}.md", f"# Page {page}\n\n" + "\n".join(sections))
    # One thread: nothing is embedded while the pages are read (see indexing/early.py), so the
    # first checkpoint holds exactly the embedding step's first batch.
    project.plugin_options = {"batch_size": 8, "threads": 1}
    config_file = project.write_config()
    cache = project.root / ".cache" / "plugin" / "semantic" / "embeddings.npz"
    log = project.root / "build.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", STOPPING_BUILD, str(config_file)],
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300  # a hang guard only
        while not cache.exists():
            assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "no checkpoint was written"
            time.sleep(0.05)
    finally:
        proc.kill()  # SIGKILL
        proc.wait()
    with np.load(cache) as data:
        checkpointed = len(data["keys"])
    assert checkpointed == 8  # the first batch
    stats = project.build().last_build
    assert stats.chunks >= 80
    assert stats.reused == checkpointed and stats.embedded == stats.chunks - checkpointed


def test_model_max_tokens_above_the_models_limit_fails_the_build(site, caplog):
    site.plugin_options = {"model": {"max_tokens": 1024}}
    error = build_error(site, caplog)
    assert "option 'model.max_tokens': model.max_tokens is 1024" in error
    assert "reads at most 512 tokens: set model.max_tokens to 512 or less" in error
    assert not site.bundle.exists()


def test_model_max_tokens_at_the_models_limit_builds(site):
    site.plugin_options = {"model": {"max_tokens": 512}}
    site.build()
    assert read_bundle(site.site).catalog["model"]["max_tokens"] == 512


@pytest.mark.parametrize("threads", [100_000, -1])
def test_threads_out_of_range_fail_with_a_message_naming_the_option(site, caplog, threads):
    site.plugin_options = {"threads": threads}
    assert (f"option 'threads' is {threads}; it must be from 0 (one per core) to 64"
            in build_error(site, caplog))


@pytest.mark.parametrize("min_score", [0, 1, 0.25])
def test_min_score_takes_whole_numbers(site, min_score):
    site.plugin_options = {"min_score": min_score}
    site.build()
    stored = read_bundle(site.site).manifest.search["min_score"]
    assert stored == min_score and isinstance(stored, float)


@pytest.mark.parametrize("min_score, message", [
    (2, "option 'min_score' is 2.0; it must be a relevance between 0 and 1"),
    (True, "option 'min_score': Expected a number but received: True"),
    ("high", "option 'min_score': Expected a number but received: 'high'"),
])
def test_min_score_out_of_range_or_not_a_number_fails(site, caplog, min_score, message):
    site.plugin_options = {"min_score": min_score}
    assert message in build_error(site, caplog)


def test_the_build_log_says_the_bundles_files_and_what_a_deploy_uploads(site, caplog):
    first = site.build().last_build
    on_disk = [p for p in site.bundle.rglob("*") if p.is_file()]
    assert first.footprint.files == len(on_disk)
    assert first.footprint.bytes == sum(p.stat().st_size for p in on_disk)
    assert first.footprint.changed_files is None  # nothing to compare with
    assert f"client {human_bytes(first.client_bytes)}, {len(on_disk):,} files; query" \
        in first.summary()
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.semantic"):
        again = site.build().last_build  # `mkdocs build` empties the site folder first
    assert again.footprint.changed_files == 0
    assert "; 0 to upload since the last build (0 B); query table" in caplog.text
    site.write("deploy.md", DEPLOY.replace("reverse proxy", "zanzibar marmalade proxy"))
    edited = site.build().last_build
    before = {p.relative_to(site.bundle) for p in on_disk}
    now = {p.relative_to(site.bundle) for p in site.bundle.rglob("*") if p.is_file()}
    assert 0 < edited.footprint.changed_files >= len(now - before)

"""The browser's own forward pass against onnxruntime: the weights read out of the ONNX
graph (model/bert_weights.py), the numpy forward pass the build checks them with
(model/bert_forward.py), the files it writes (bundle/browser_model.py) and the client's
forward pass over them (js/src/engine/bert.js, run by Node.js, with its WebAssembly SIMD
kernel and in plain JavaScript)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from mkdocs_semantic.bundle.browser_model import MAGIC, WORD_BLOCK_IDS, browser_model
from mkdocs_semantic.model.bert_forward import checked_weights, sentence_vector
from mkdocs_semantic.model.bert_weights import NotBert, read_bert
from mkdocs_semantic.model.onnx import OnnxEmbedder
from mkdocs_semantic.model.spec import default_model_spec

from ..conftest import REPO

TEXTS = ["how do I run code on startup",
         "Lifespan Events. You can define logic (code) that should be executed before the "
         "application starts up.",
         "dependency injection with yield", "x"]


def kept_only(ids: list[int], kept: np.ndarray) -> list[int]:
    held = set(kept.tolist())
    return [i for i in ids if i in held]

NODE_RUN = """
import { readFileSync } from "node:fs";
import { createBert, parseLayers, parseWordBlock } from "%s";
import { l2normalize, pool } from "%s";
const { layers, blocks, sequences } = JSON.parse(readFileSync(0, "utf8"));
const read = (p) => {
  const b = readFileSync(p);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
};
const parsed = parseLayers(read(layers), layers);
const hidden = parsed.config.hidden;
const words = blocks.map((p) => parseWordBlock(read(p), hidden, p));
const run = (bert) => sequences.map((ids) => {
  const { states, ids: ran } = bert.hiddenStates(ids);
  const mean = pool(states, ran.length, hidden, ran.map(() => 1), "mean");
  return { ran, vector: Array.from(l2normalize(mean)) };
});
const simd = createBert(parsed, words);
const plain = createBert(parsed, words, { simd: false });
process.stdout.write(JSON.stringify({ simd: simd.simd, plain: plain.simd,
  answers: { simd: run(simd), plain: run(plain) } }));
"""


@pytest.fixture(scope="module")
def spec():
    return default_model_spec()


@pytest.fixture(scope="module")
def model(spec):
    embedder = OnnxEmbedder(spec)
    ids = [embedder.tokenizer.encode(t).ids for t in TEXTS]
    return ids, embedder.embed_queries(TEXTS)


def test_the_numpy_forward_pass_gives_onnxruntimes_vectors(spec, model):
    weights, heads = checked_weights(spec)
    assert (weights.layers, weights.hidden, heads) == (6, 384, 12)
    ids, vectors = model
    ours = np.stack([sentence_vector(weights, i, heads=heads, pooling="mean", normalize=True)
                     for i in ids])
    assert np.abs(ours - vectors).max() < 1e-5


def test_a_graph_that_is_not_bert_is_refused_in_one_line(tmp_path):
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not a protobuf at all")
    with pytest.raises(NotBert, match=r"model\.onnx"):
        read_bert(broken)


def test_the_layers_file_and_word_blocks_hold_what_they_say(spec):
    weights, heads = checked_weights(spec)
    kept = np.array([0, 101, 102, 5000, 9000, 30000], dtype=np.int32)
    written = browser_model(weights, kept, heads=heads, max_tokens=spec.max_tokens)
    assert written.layers[:4] == MAGIC
    (length,) = struct.unpack("<I", written.layers[4:8])
    header = json.loads(written.layers[8:8 + length])
    assert header["heads"] == 12 and header["vocab"] == 30522
    assert "embeddings.word_embeddings.weight" not in header["tensors"]
    assert [first for first, _ in written.word_blocks] == \
        sorted({int(i) // WORD_BLOCK_IDS * WORD_BLOCK_IDS for i in kept})
    for first, block in written.word_blocks:
        ids = kept[(kept >= first) & (kept < first + WORD_BLOCK_IDS)]
        (count,) = struct.unpack("<I", block[:4])
        assert count == len(ids) and len(block) == 4 + count * (8 + 384)
        assert np.frombuffer(block[4:4 + 4 * count], "<u4").tolist() == ids.tolist()
        rows = np.frombuffer(block[4 + 8 * count:], np.int8).reshape(count, 384)
        words = weights["embeddings.word_embeddings.weight"]
        assert (rows == words.values[ids]).all()


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_clients_forward_pass_gives_onnxruntimes_vectors(spec, model, tmp_path):
    weights, heads = checked_weights(spec)
    ids, vectors = model
    every = browser_model(weights, heads=heads, max_tokens=spec.max_tokens)
    assert len(every.word_blocks) == -(-30522 // WORD_BLOCK_IDS)  # every id, as builds write
    # and a model whose blocks hold only some ids: the texts' and the first 2,000
    kept = np.union1d(np.arange(2000), np.concatenate([np.asarray(i) for i in ids]))
    some = browser_model(weights, kept, heads=heads, max_tokens=spec.max_tokens)
    outside = OnnxEmbedder(spec).tokenizer.encode("how do zeppelins start").ids
    assert kept_only(outside, kept) != outside  # a token the blocks lack

    def written(model, folder: Path) -> dict:
        folder.mkdir()
        (folder / "layers.bin").write_bytes(model.layers)
        for first, data in model.word_blocks:
            (folder / f"words{first}.bin").write_bytes(data)
        return {"layers": str(folder / "layers.bin"),
                "blocks": [str(folder / f"words{first}.bin") for first, _ in model.word_blocks]}

    engine = REPO / "js" / "src" / "engine"
    script = NODE_RUN % ((engine / "bert.js").as_uri(), (engine / "pooling.js").as_uri())

    def run(model, folder: Path) -> dict:
        request = {**written(model, folder), "sequences": [*ids, outside]}
        done = subprocess.run(["node", "--input-type=module", "-e", script],
                              input=json.dumps(request), capture_output=True, text=True,
                              check=True, timeout=300)
        return json.loads(done.stdout)

    full = run(every, tmp_path / "every")
    assert (full["simd"], full["plain"]) == (True, False)  # Node.js runs WebAssembly SIMD
    for answers in full["answers"].values():  # the SIMD kernel's, then JavaScript's
        ours = np.array([a["vector"] for a in answers[:len(ids)]], dtype=np.float32)
        assert np.abs(ours - vectors).max() < 1e-4
        assert answers[-1]["ran"] == outside
    # a token without a row is dropped, as the static encoder drops one
    reference = sentence_vector(weights, kept_only(outside, kept), heads=heads,
                                pooling="mean", normalize=True)
    for answers in run(some, tmp_path / "some")["answers"].values():
        assert answers[-1]["ran"] == kept_only(outside, kept)
        assert np.abs(np.array(answers[-1]["vector"]) - reference).max() < 1e-4

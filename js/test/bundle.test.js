import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { BundleError, Chunks, checkManifest, fileUrl, halfToFloat, parseMatrix } from "../src/bundle.js";

const FROZEN = new URL("../../tests/fixtures/bundles/v1/", import.meta.url);
const read = (name) => readFileSync(new URL(name, FROZEN));
const manifest = JSON.parse(read("manifest.json"));

function arrayBuffer(bytes) {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

test("the frozen bundle's usearch matrix holds unit vectors once divided by the scale", () => {
  const { rows, dim, data } = parseMatrix(arrayBuffer(read(manifest.files.index.name)), {
    dtype: "i8", dim: manifest.model.dim, count: manifest.counts.chunks,
  });
  assert.equal(rows, 7);
  assert.equal(dim, 384);
  const scale = manifest.quantization.scale;
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += (data[r * dim + d] / scale) ** 2;
    assert.ok(Math.abs(Math.sqrt(sum) - 1) < 0.01, `row ${r} has length ${Math.sqrt(sum)}`);
  }
});

test("chunks resolve to their page's url, title and section", () => {
  const chunks = new Chunks(JSON.parse(read(manifest.files.chunks.name)));
  assert.equal(chunks.length, 7);
  const first = chunks.get(0);
  assert.deepEqual(Object.keys(first).sort(),
    ["anchor", "excerpt", "id", "kind", "path", "section", "title", "url"]);
  assert.ok(["page", "section"].includes(first.kind));
});

test("payload URLs are relative to the manifest", () => {
  const url = fileUrl(manifest, "index", "https://example.org/project/semantic/manifest.json");
  assert.equal(url, `https://example.org/project/semantic/${manifest.files.index.name}`);
});

test("an unknown format is refused naming both versions", () => {
  assert.throws(() => checkManifest({ ...manifest, format: 2 }, "m.json"),
    (error) => error instanceof BundleError && /format 2.*reads format 1/.test(error.message));
});

test("f16 and f32 matrices are read little-endian; a short file is refused", () => {
  const values = [1, -0.5, 0.25, 2];
  const f32 = new DataView(new ArrayBuffer(8 + 16));
  f32.setUint32(0, 2, true);
  f32.setUint32(4, 8, true);
  values.forEach((v, i) => f32.setFloat32(8 + 4 * i, v, true));
  assert.deepEqual(Array.from(parseMatrix(f32.buffer, { dtype: "f32", dim: 2, count: 2 }).data), values);
  const f16 = new DataView(new ArrayBuffer(8 + 8));
  f16.setUint32(0, 2, true);
  f16.setUint32(4, 4, true);
  [0x3c00, 0xb800, 0x3400, 0x4000].forEach((bits, i) => f16.setUint16(8 + 2 * i, bits, true));
  assert.deepEqual(Array.from(parseMatrix(f16.buffer, { dtype: "f16", dim: 2, count: 2 }).data), values);
  assert.throws(() => parseMatrix(f32.buffer.slice(0, 20), { dtype: "f32", dim: 2, count: 2 }), /truncated/);
  assert.throws(() => parseMatrix(f32.buffer, { dtype: "f32", dim: 2, count: 3 }), /manifest says 3/);
  assert.equal(halfToFloat(0x7c00), Infinity);
});

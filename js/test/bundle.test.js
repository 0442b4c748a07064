// Reading format 2: refusals (other formats, tampered payloads, names that leave the
// bundle folder) and what each kind of query downloads.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  BundleError, checkManifest, compareKeys, halfToFloat, parsePartition, parseTableShard, parseVectorPart, payloadUrl, shardOf,
} from "../src/bundle.js";
import { Engine } from "../src/engine.js";
import { serve } from "./serve.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const PARTITIONED = fileURLToPath(new URL("../../tests/fixtures/parity/bundle-partitioned/", import.meta.url));
const FROZEN_V1 = fileURLToPath(new URL("../../tests/fixtures/bundles/v1/", import.meta.url));
const servers = [];
const temporary = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the parity bundle, changed by `edit(dir, manifest, catalog)`, served. */
async function servedCopy(edit = () => {}, source = BUNDLE) {
  const dir = mkdtempSync(join(tmpdir(), "semantic-bundle-"));
  temporary.push(dir);
  cpSync(source, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const catalog = JSON.parse(readFileSync(join(dir, manifest.catalog.name), "utf8"));
  if (edit(dir, manifest, catalog) === "catalog") {
    // re-sign the edited catalog, as a writer would: only its contents are wrong
    unlinkSync(join(dir, manifest.catalog.name));
    const data = Buffer.from(JSON.stringify(catalog));
    const sha256 = createHash("sha256").update(data).digest("hex");
    manifest.catalog = { name: `catalog.${sha256.slice(0, 16)}.json`, bytes: data.length, sha256 };
    writeFileSync(join(dir, manifest.catalog.name), data);
  }
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
  const server = await serve(dir);
  servers.push(server);
  return { server, dir, catalog, engine: new Engine({ manifestUrl: `${server.url}manifest.json` }) };
}

test("a format-1 manifest is refused, naming both versions", async () => {
  const v1 = JSON.parse(readFileSync(join(FROZEN_V1, "manifest.json"), "utf8"));
  assert.throws(() => checkManifest(v1, "manifest.json"),
    (error) => error instanceof BundleError && /format 1, but this search client reads format 2/.test(error.message));
  const { engine } = await servedCopy((dir, manifest) => {
    for (const key of Object.keys(manifest)) delete manifest[key];
    Object.assign(manifest, v1);
  });
  await assert.rejects(engine.search("cache"), /format 1.*reads format 2/);
});

test("a manifest that is not JSON, or absurdly large, is refused", async () => {
  const { engine } = await servedCopy((dir, manifest) => {
    manifest.generator = "x".repeat(1 << 20);
  });
  await assert.rejects(engine.open(), /manifest\.json is larger than 1 MB/);
  const broken = await servedCopy();
  writeFileSync(join(temporary.at(-1), "manifest.json"), "{\"format\": 2,");
  await assert.rejects(broken.engine.open(), /manifest\.json is not valid JSON/);
});

test("a tampered payload is refused; the same size, other bytes", async () => {
  let changed;
  const { engine } = await servedCopy((dir, manifest, catalog) => {
    changed = catalog.lexical.shards[0][1];
    const bytes = readFileSync(join(dir, changed));
    bytes[bytes.length - 2] ^= 1;
    writeFileSync(join(dir, changed), bytes);
  });
  const term = (await engine.open(), engine.catalog.lexical.shards[0].first);
  await assert.rejects(engine.search(term, { mode: "lexical" }),
    (error) => error instanceof BundleError && error.message.includes(`${changed} does not match its hash`));
});

test("a truncated payload and a changed catalog are refused", async () => {
  const { engine } = await servedCopy((dir, manifest) => {
    const path = join(dir, manifest.catalog.name);
    writeFileSync(path, readFileSync(path, "utf8").replace('"Guide"', '"Guidf"'));
  });
  await assert.rejects(engine.open(), /catalog\.[0-9a-f]{16}\.json does not match its hash/);
  const short = await servedCopy((dir, manifest, catalog) => {
    const name = catalog.encoders.static.tokenizer[0];
    writeFileSync(join(dir, name), readFileSync(join(dir, name)).subarray(0, 1000));
  });
  await assert.rejects(short.engine.embed("cache"), /tokenizer\.[0-9a-f]{16}\.json is 1000 bytes, the bundle says \d+/);
});

test("a catalog naming a file outside the bundle folder is refused", async () => {
  const { engine } = await servedCopy((dir, manifest, catalog) => {
    catalog.fragments[0][1] = `../${catalog.fragments[0][1]}`;
    return "catalog";
  });
  await assert.rejects(engine.open(), (error) => error instanceof BundleError &&
    /fragments lists "\.\.\/fragments\/frag\.[0-9a-f]{16}\.json", which is not a payload name/.test(error.message));
  for (const name of ["../x/frag.0123456789abcdef.json", "/etc/frag.0123456789abcdef.json",
    "https://evil.example/frag.0123456789abcdef.json", "frag.0123456789abcdef.json?x", "a/b/c.0123456789abcdef.json"]) {
    assert.throws(() => payloadUrl(name, "https://site.example/docs/semantic/manifest.json"), BundleError, name);
  }
  assert.equal(payloadUrl("table/tab.0123456789abcdef.bin", "https://site.example/docs/semantic/manifest.json?v=1"),
    "https://site.example/docs/semantic/table/tab.0123456789abcdef.bin");
});

test("bad catalog fields are refused with the field's name", async () => {
  const cases = [
    [(c) => { c.pages.starts[2] = c.pages.starts[1]; }, /pages\.starts must rise/],
    [(c) => { c.vectors[0].dtype = "i4"; }, /vectors\[0\]\.dtype must be one of i8, f16, f32/],
    [(c) => { c.encoders.static.shards.reverse(); }, /encoders\.static\.shards is not in ascending order/],
    [(c) => { c.lexical.version = 1; }, /lexical\.version is not 2/],
    [(c) => { c.facets.tags.cache = [99]; }, /facets\.tags must map values to lists of page numbers/],
    [(c) => { c.vectors[0].parts[0][2] += 1; }, /should hold \d+ vectors of 384 i8/],
  ];
  for (const [edit, message] of cases) {
    const { engine } = await servedCopy((dir, manifest, catalog) => {
      edit(catalog);
      return "catalog";
    });
    await assert.rejects(engine.open(), message);
  }
});

test("keyword results fetch only the catalog, their terms' shards and their fragments", async () => {
  const { server, catalog, engine } = await servedCopy();
  const results = await engine.search("purge edge servers", { mode: "lexical" });
  assert.ok(results.length);
  const fetched = server.requests.map((path) => path.slice(1));
  assert.equal(fetched[0], "manifest.json");
  assert.equal(fetched[1], engine.manifest.catalog.name);
  const rest = fetched.slice(2);
  assert.ok(rest.every((name) => /^(lexical|fragments)\//.test(name)), rest.join(" "));
  assert.ok(rest.filter((n) => n.startsWith("lexical/")).length < catalog.lexical.shards.length);
  assert.equal(new Set(fetched).size, fetched.length, "each file is fetched once");
});

test("the static encoder's first semantic result loads no model; concurrent queries share fetches", async () => {
  const { server, engine } = await servedCopy();
  const queries = ["service worker offline", "service worker cache first", "offline service worker"];
  const answers = await Promise.all(queries.flatMap((q) => [engine.search(q), engine.search(q, { mode: "lexical" })]));
  assert.ok(answers.every((results) => results.length));
  const fetched = server.requests.map((path) => path.slice(1));
  assert.ok(!fetched.some((name) => /\.(onnx|wasm)$|^model\/model\./.test(name)), fetched.join(" "));
  assert.ok(fetched.some((name) => name.startsWith("table/")));
  assert.ok(!fetched.some((name) => name.startsWith("text/")), "text shards are for Python readers");
  assert.equal(new Set(fetched).size, fetched.length, `each file once: ${fetched.join(" ")}`);
});

test("asking for the transformer on a site without the model says how to get it", async () => {
  const { server } = await servedCopy();
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json`, encoder: "transformer" });
  await assert.rejects(engine.open(), /no transformer query encoder.*query_encoder: transformer/);
});

test("shard lookup: last shard whose first key is not above the key, strings by code point", () => {
  const shards = [{ first: "b" }, { first: "m" }, { first: "\uffef" }];
  assert.equal(shardOf(shards, "a"), -1);
  assert.equal(shardOf(shards, "b"), 0);
  assert.equal(shardOf(shards, "lzz"), 0);
  assert.equal(shardOf(shards, "m"), 1);
  assert.equal(shardOf(shards, "🚀"), 2, "U+1F680 sorts after U+FFEF, as Python sorts");
  assert.ok(compareKeys("\uffef", "🚀") < 0);
  assert.equal(shardOf([{ first: 0 }, { first: 100 }], 99), 0);
});

test("binary payloads: table shards and f16/f32 vector parts, little-endian", () => {
  const table = new DataView(new ArrayBuffer(4 + 8 + 4));
  table.setUint32(0, 2, true);
  table.setUint32(4, 7, true);
  table.setUint32(8, 9, true);
  [1, -2, 3, -4].forEach((v, i) => table.setInt8(12 + i, v));
  const { ids, rows } = parseTableShard(table.buffer, 2, "t");
  assert.deepEqual([...ids], [7, 9]);
  assert.deepEqual([...rows], [1, -2, 3, -4]);
  assert.throws(() => parseTableShard(table.buffer, 3, "t"), /not a token table shard of 3 dims/);
  const values = [1, -0.5, 0.25, 2];
  const f32 = new DataView(new ArrayBuffer(16));
  values.forEach((v, i) => f32.setFloat32(4 * i, v, true));
  assert.deepEqual([...parseVectorPart(f32.buffer, { dtype: "f32", dim: 2, rows: 2 })], values);
  const f16 = new DataView(new ArrayBuffer(8));
  [0x3c00, 0xb800, 0x3400, 0x4000].forEach((bits, i) => f16.setUint16(2 * i, bits, true));
  assert.deepEqual([...parseVectorPart(f16.buffer, { dtype: "f16", dim: 2, rows: 2 })], values);
  assert.equal(halfToFloat(0x7c00), Infinity);
});

test("partitioned vectors: a query fetches the centroids and the partitions it probes; a filtered one all", async () => {
  const { server, catalog, engine } = await servedCopy(() => {}, PARTITIONED);
  const set = catalog.vectors[0];
  assert.ok(set.probe < set.partitions.length);
  assert.ok((await engine.search("service worker offline", { mode: "vector" })).length);
  const vectorFiles = () => server.requests.map((path) => path.slice(1)).filter((n) => n.startsWith("vectors/"));
  const probed = vectorFiles().filter((n) => n.startsWith("vectors/ivf.")).length;
  assert.ok(probed >= set.probe && probed <= set.probe_max && probed < set.partitions.length, `${probed} probed`);
  assert.ok(vectorFiles().includes(set.centroids[0]));
  await engine.search("service worker offline", { mode: "vector", filters: { section: ["Guide"] } });
  assert.equal(new Set(vectorFiles()).size, set.partitions.length + 1, "every partition once, and the centroids");
  assert.equal(new Set(vectorFiles()).size, vectorFiles().length, "each file fetched once");
});

test("a partitioned catalog with a bad field is refused by name", async () => {
  const cases = [
    [(v) => { v.layout = "hnsw"; }, /vectors\[0\]\.layout "hnsw" is not exact or partitioned/],
    [(v) => { v.dtype = "f16"; }, /vectors\[0\]\.dtype must be i8 in the partitioned layout/],
    [(v) => { v.probe = v.partitions.length + 1; }, /vectors\[0\]\.probe is \d+, not a whole number from 1 to \d+/],
    [(v) => { v.probe = 0; }, /vectors\[0\]\.probe is 0/],
    [(v) => { delete v.probe; }, /vectors\[0\]\.probe is missing/],
    [(v) => { v.probe_max = v.probe - 1; }, /vectors\[0\]\.probe_max is \d+, not a whole number from \d+/],
    [(v) => { delete v.probe_max; }, /vectors\[0\]\.probe_max is missing/],
    [(v) => { v.partitions[0][2] += 1; }, /vectors\[0\]\.partitions has a malformed entry/],
    [(v) => { v.partitions.pop(); }, /vectors\[0\]\.partitions hold \d+ rows for 58 chunks/],
    [(v) => { v.partitions[0][1] = "../x.0123456789abcdef.bin"; }, /vectors\[0\]\.partitions lists .* not a payload name/],
    [(v) => { v.centroids[1] -= 1; }, /vectors\[0\]\.centroids must be \[name, bytes\], one row of 384 int8 per partition/],
    [(v) => { delete v.centroids; }, /vectors\[0\]\.centroids is missing/],
  ];
  for (const [edit, message] of cases) {
    const { engine } = await servedCopy((dir, manifest, catalog) => {
      edit(catalog.vectors[0]);
      return "catalog";
    }, PARTITIONED);
    await assert.rejects(engine.open(), message);
  }
});

test("a partition names chunks by page and position, rising, each on its page", () => {
  // pages of 3, 4 and 3 chunks: chunk ids 0-2, 3-6, 7-9
  const starts = Int32Array.from([0, 3, 7, 10]);
  const partition = (pairs) => {
    const buffer = new ArrayBuffer(4 + pairs.length * (8 + 2));
    const view = new DataView(buffer);
    view.setUint32(0, pairs.length, true);
    pairs.forEach(([page, local], i) => {
      view.setUint32(4 + 4 * i, page, true);
      view.setUint32(4 + 4 * (pairs.length + i), local, true);
    });
    return buffer;
  };
  const options = { dim: 2, rows: 2, starts, name: "vectors/ivf.0123456789abcdef.bin" };
  assert.deepEqual(Array.from(parsePartition(partition([[1, 0], [2, 0]]), options).ids), [3, 7]);
  const wrong = /not a partition of 2 chunks ascending/;
  assert.throws(() => parsePartition(partition([[2, 0], [1, 0]]), options), wrong);
  assert.throws(() => parsePartition(partition([[1, 0], [1, 4]]), options), wrong); // past its page
  assert.throws(() => parsePartition(partition([[1, 0], [3, 0]]), options), wrong); // no such page
  assert.throws(() => parsePartition(partition([[1, 0]]), options), /not a partition of 2 vectors of 2 dims/);
});

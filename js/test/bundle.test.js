// Reading format 6: refusals (other formats, tampered payloads, names that leave the
// bundle folder) and what each kind of query downloads.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { deflateSync, inflateSync } from "node:zlib";
import { readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { halfToFloat, parsePageTable, parsePartitionBits, parseRow, parseVectorPart } from "../src/bundle/binary.js";
import { FORMAT_VERSION, bucketOf, checkCatalog, checkDirectory, checkManifest, compareKeys, jsonBody, payloadUrl, rowFile, shardOf, verifyPayload } from "../src/bundle/bundle.js";
import { ShardList } from "../src/bundle/shard-list.js";
import { BundleError } from "../src/bundle/error.js";
import { Engine } from "../src/engine/engine.js";
import { analyze } from "../src/engine/lexical.js";
import { editedCopy } from "./bundle-copy.js";
import { serve } from "./serve.js";
import constants from "../../mkdocs_semantic/constants.json" with { type: "json" };

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const PARTITIONED = fileURLToPath(new URL("../../tests/fixtures/parity/bundle-partitioned/", import.meta.url));
const { ROW_CHECK_BYTES } = constants;
const FROZEN = (version) => fileURLToPath(new URL(`../../tests/fixtures/bundles/v${version}/`, import.meta.url));
const servers = [];
const temporary = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

/** A copy of the parity bundle, changed by `edit(dir, manifest, catalog)`, served. */
async function servedCopy(edit = () => {}, source = BUNDLE) {
  const { dir, catalog } = editedCopy(source, edit);
  temporary.push(dir);
  const server = await serve(dir);
  servers.push(server);
  return { server, dir, catalog, engine: new Engine({ manifestUrl: `${server.url}manifest.json` }) };
}

test("a format-1 to -10, -12 or -13 manifest is refused, naming both versions", async () => {
  for (const version of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13]) {
    const old = JSON.parse(readFileSync(join(FROZEN(version), "manifest.json"), "utf8"));
    assert.throws(() => checkManifest(old, "manifest.json"), (error) => error instanceof BundleError &&
      new RegExp(`format ${version}, but this search client reads format ${FORMAT_VERSION}`).test(error.message));
    const { engine } = await servedCopy((dir, manifest) => {
      for (const key of Object.keys(manifest)) delete manifest[key];
      Object.assign(manifest, old);
    });
    await assert.rejects(engine.search("cache"), new RegExp(`format ${version}.*reads format ${FORMAT_VERSION}`));
  }
});

test("a manifest that is not JSON, or absurdly large, is refused", async () => {
  const { engine } = await servedCopy((dir, manifest) => {
    manifest.generator = "x".repeat(1 << 20);
  });
  await assert.rejects(engine.open(), /manifest\.json is larger than 1 MB/);
  const broken = await servedCopy();
  writeFileSync(join(temporary.at(-1), "manifest.json"), "{\"format\": 3,");
  await assert.rejects(broken.engine.open(), /manifest\.json is not valid JSON/);
});

test("a tampered payload is refused; the same size, other bytes", async () => {
  let changed;
  let term;
  const { engine } = await servedCopy((dir, manifest, catalog) => {
    changed = `lexical/lex0.${catalog.lexical.shards.hashes.slice(0, 8)}.json`;
    const bytes = readFileSync(join(dir, changed));
    const { terms } = JSON.parse(inflateSync(bytes.subarray(0, bytes.length - 4)).toString("utf8"));
    term = terms.find((t) => /^[a-z]+$/.test(t) && analyze(t, new Set()).join() === t);
    bytes[bytes.length - 2] ^= 1;
    writeFileSync(join(dir, changed), bytes);
  });
  assert.ok(term, "the keyed shard holds a plain word");
  await assert.rejects(engine.search(term, { mode: "lexical" }),
    (error) => error instanceof BundleError && error.message.includes(`${changed} does not match its hash`));
});

test("a table row served under another token's name is refused", async () => {
  // the pack's first two records swapped: each fails its check under its own row's name
  let rows;
  const { engine } = await servedCopy((dir, manifest, catalog) => {
    rows = catalog.encoders.static.rows;
    const size = catalog.encoders.static.dim + 4;
    const path = join(dir, rows.pack[0]);
    const pack = readFileSync(path);
    const swapped = Buffer.concat([pack.subarray(size, 2 * size), pack.subarray(0, size), pack.subarray(2 * size)]);
    writeFileSync(path, swapped);
  });
  await engine.open();
  const { dim, rows: checked } = engine.catalog.encoders.static;
  const file = rowFile(rows.ids[0], checked, dim);
  await assert.rejects(engine.store.get(file),
    (error) => error instanceof BundleError && error.message.includes(`${file.name} does not match its hash`));
});

test("table rows are read by byte range, or from the whole pack where a server sends it all", async () => {
  for (const ranges of [true, false]) {
    const server = await serve(BUNDLE, { ranges });
    servers.push(server);
    const engine = new Engine({ manifestUrl: `${server.url}manifest.json` });
    await engine.open();
    const { dim, rows } = engine.catalog.encoders.static;
    const tokens = [rows.ids[0], rows.ids[5], rows.ids[rows.ids.length - 1]];
    const read = await Promise.all(tokens.map((token) => engine.store.get(rowFile(token, rows, dim))));
    const pack = readFileSync(join(BUNDLE, rows.pack.name));
    tokens.forEach((token, i) => {
      const at = rows.ids.indexOf(token) * (dim + 4);
      assert.deepEqual(new Uint8Array(read[i]), new Uint8Array(pack.subarray(at, at + dim + 4)));
    });
    const packRequests = server.requests.filter((path) => path === `/${rows.pack.name}`).length;
    if (ranges) {
      assert.equal(packRequests, 3, "one range request a row");
      assert.deepEqual(server.ranges.map((r) => r.end - r.start + 1), [dim + 4, dim + 4, dim + 4]);
    } else {
      // the first answer brought the whole pack: the rows asked later are read from it
      const again = await engine.store.get(rowFile(rows.ids[7], rows, dim));
      assert.equal(again.byteLength, dim + 4);
      assert.ok(packRequests <= 3 && server.requests.filter((p) => p === `/${rows.pack.name}`).length === packRequests);
    }
  }
});

test("a whole pack that does not match its hash is refused", async () => {
  const { dir } = editedCopy(BUNDLE, (dir, manifest, catalog) => {
    const path = join(dir, catalog.encoders.static.rows.pack[0]);
    const pack = readFileSync(path);
    pack[pack.length - 1] ^= 1;
    writeFileSync(path, pack);
  });
  temporary.push(dir);
  const server = await serve(dir, { ranges: false });
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json` });
  await engine.open();
  const { dim, rows } = engine.catalog.encoders.static;
  await assert.rejects(engine.store.get(rowFile(rows.ids[0], rows, dim)),
    (error) => error instanceof BundleError && error.message.includes(`${rows.pack.name} does not match its hash`));
});

test("a partition's row block served under another block's name is refused", async () => {
  // two blocks of one partition's pack (one hash in their names) of the same size: the
  // first holds the second's bytes (the pack's own check made again), and only the
  // block's own check tells them apart
  let swapped;
  const { engine } = await servedCopy((dir, manifest) => {
    const catalog = JSON.parse(readFileSync(join(dir, manifest.catalog.name), "utf8"));
    const dim = catalog.vectors[0].dim;
    for (const name of readdirSync(join(dir, "vectors")).filter((n) => n.startsWith("bin."))) {
      const bits = readFileSync(join(dir, "vectors", name));
      const [rows, blocks] = [bits.readUInt32LE(4), bits.readUInt32LE(8)];
      if (rows >= 255) continue; // block row counts of one byte each, as here
      const hash = bits.subarray(12, 20).toString("hex");
      const counts = [...bits.subarray(20, 20 + blocks)];
      const offsets = counts.map((_, j) => counts.slice(0, j).reduce((a, b) => a + b, 0) * dim + j * ROW_CHECK_BYTES);
      const j = counts.findIndex((count, i) => counts.indexOf(count) !== i);
      if (j < 0) continue;
      const first = counts.indexOf(counts[j]);
      const pack = join(dir, "vectors", `rows.${hash}.i8`);
      const data = readFileSync(pack);
      const size = counts[j] * dim + ROW_CHECK_BYTES;
      data.copy(data, offsets[first], offsets[j], offsets[j] + size);
      const packName = `vectors/rows.${hash}.i8`;
      const body = data.subarray(0, data.length - ROW_CHECK_BYTES);
      createHash("sha256").update(packName).update(body).digest().copy(data, body.length, 0, ROW_CHECK_BYTES);
      writeFileSync(pack, data);
      swapped = { name: `vectors/row${first}.${hash}.i8`, bytes: size, pack: { name: packName, bytes: data.length }, offset: offsets[first] };
      return;
    }
  }, PARTITIONED);
  assert.ok(swapped, "a partition with two blocks of one size");
  await engine.open();
  await assert.rejects(engine.store.get(swapped),
    (error) => error instanceof BundleError && error.message.includes(`${swapped.name} does not match its hash`));
});

test("a truncated payload and a changed catalog are refused", async () => {
  const { engine } = await servedCopy((dir, manifest) => {
    for (const path of [join(dir, manifest.catalog.name), join(dir, "catalog.json")]) {
      writeFileSync(path, readFileSync(path, "utf8").replace('"boosts"', '"boostz"'));
    }
  });
  await assert.rejects(engine.open(), /catalog\.[0-9a-f]{16}\.json does not match its hash/);
  const short = await servedCopy((dir) => {
    for (const name of readdirSync(join(dir, "pieces"))) {
      const path = join(dir, "pieces", name);
      writeFileSync(path, readFileSync(path).subarray(0, 1000));
    }
  });
  // words the site lacks, which its word pieces split
  await assert.rejects(short.engine.embed("쿼카"), /piece\d+\.[0-9a-f]{8}\.json is 1000 bytes, the bundle says \d+/);
  // a keyed word piece file, whose size no catalog lists, fails its own check
  await assert.rejects(short.engine.embed("quokkas"), /pieces\/(s[0-9a-z]+|c[0-9a-z]|p)\.[0-9a-f]{16}\.json does not match its hash/);
});

test("a catalog naming a file outside the bundle folder is refused", async () => {
  const { engine } = await servedCopy((dir, manifest, catalog) => {
    catalog.fragments.stem = `../${catalog.fragments.stem}`;
    return "catalog";
  });
  await assert.rejects(engine.open(), (error) => error instanceof BundleError &&
    /fragments has the stem "\.\.\/fragments\/frag", not "fragments\/frag"/.test(error.message));
  const { engine: other } = await servedCopy((dir, manifest, catalog) => {
    catalog.lexical.shards.hashes = "../../../etc/x";
    return "catalog";
  });
  await assert.rejects(other.open(), (error) => error instanceof BundleError &&
    /lexical\.shards must list the hashes of its \d+ shards, 8 hex digits each/.test(error.message));
  for (const name of ["../x/frag.0123456789abcdef.json", "/etc/frag.0123456789abcdef.json",
    "https://evil.example/frag.0123456789abcdef.json", "frag.0123456789abcdef.json?x", "a/b/c.0123456789abcdef.json"]) {
    assert.throws(() => payloadUrl(name, "https://site.example/docs/semantic/manifest.json"), BundleError, name);
  }
  assert.equal(payloadUrl("table/tab.0123456789abcdef.bin", "https://site.example/docs/semantic/manifest.json?v=1"),
    "https://site.example/docs/semantic/table/tab.0123456789abcdef.bin");
  assert.equal(payloadUrl("table/row1012.0123456789abcdef.bin", "https://site.example/docs/semantic/manifest.json"),
    "https://site.example/docs/semantic/table/row1012.0123456789abcdef.bin");
  for (const name of ["table/row012.0123456789abcdef.bin", "lexical/row1.0123456789abcdef.bin", "table/row1.0123456789abcdef.json"]) {
    assert.throws(() => payloadUrl(name, "https://site.example/docs/semantic/manifest.json"), BundleError, name);
  }
});

test("bad catalog fields are refused with the field's name", async () => {
  const cases = [
    [(c) => { c.fragments.stem = "text/text"; }, /fragments has the stem "text\/text", not "fragments\/frag"/],
    [(c) => { c.lexical.shards.hashes = Number.parseInt("1234567890123456", 10); }, /lexical\.shards must list the hashes of its \d+ shards/],
    [(c) => { c.lexical.shards.hashes = c.lexical.shards.hashes.toUpperCase(); }, /lexical\.shards must list the hashes of its \d+ shards/],
    [(c) => { c.fragments.first = [0]; }, /fragments must be a keyed list \{stem, count, hashes, sizes\}/],
    [(c) => { c.fragments.count += 1; }, /fragments must list the hashes of its \d+ shards/],
    [(c) => { c.fragments.count += 1; c.fragments.hashes += "01234567"; }, /fragments must list the sizes of its \d+ shards, which make its file/],
    [(c) => { c.fragments.bytes[0] = 0; }, /fragments must list the sizes of its \d+ shards/],
    [(c) => { c.fragments.pack[0] = `fragments/other.${"0".repeat(16)}.bin`; }, /fragments\.pack must be fragments\/frags\.<hash>\.bin/],
    [(c) => { c.lexical.shards.sizes[0] = `fragments/sizes.${"0".repeat(16)}.json`; }, /lexical\.shards\.sizes must be lexical\/sizes\.<hash>\.json/],
    [(c) => { c.vocabulary.shards.dirs.bytes[0] = "x"; }, /vocabulary\.shards has a size "x" that is not a count of bytes/],
    [(c) => { delete c.vocabulary.spelling; }, /vocabulary\.spelling/],
    [(c) => { c.vocabulary.spelling.stem = "vocabulary/words"; }, /vocabulary\.spelling has the stem "vocabulary\/words"/],
    [(c) => { c.lexical.shards.count = 0; }, /lexical\.shards\.count is 0, not a whole number from 1/],
    [(c) => { c.lexical.shards.sizes = "lexical/sizes.json"; }, /lexical\.shards\.sizes must be a list/],
    [(c) => { c.lexical.shards = c.vocabulary.shards; }, /lexical\.shards must be a keyed list \{stem, count, hashes, sizes\}/],
    [(c) => { c.pages.count += 1; }, /pages\.count is not the manifest's page count/],
    [(c) => { c.pages.table[1] += 1; }, /pages\.table must be \[name, bytes\] of \d+ bytes/],
    [(c) => { c.vectors[0].dtype = "i4"; }, /vectors\[0\]\.dtype must be one of i8, f16, f32/],
    [(c) => { c.encoders.static.rows.ids[1] = 0; }, /encoders\.static\.rows\.ids must list ascending token ids as gaps/],
    [(c) => { c.encoders.static.rows.ids[0] = -1; }, /encoders\.static\.rows\.ids must list ascending token ids as gaps/],
    [(c) => { c.encoders.static.rows.ids = "1,2"; }, /encoders\.static\.rows\.ids must be a list/],
    [(c) => { c.encoders.static.rows.table = "../x"; }, /encoders\.static\.rows\.table must be 16 hex digits/],
    [(c) => { c.lexical.version = 3; }, /lexical\.version is not 4/],
    [(c) => { c.lexical.head = 0; }, /lexical\.head is 0/],
    [(c) => { c.facets = "facets.json"; }, /facets must be a list/],
    [(c) => { c.fragment_parts.chunks = 0; }, /fragment_parts\.chunks is 0, not a whole number from 1/],
    [(c) => { c.fragment_parts.parts.stem = "fragments/frag"; }, /fragment_parts\.parts has the stem "fragments\/frag", not "parts\/part"/],
    [(c) => { c.fragment_parts.chunks += 1; }, /fragment_parts lists \d+ parts, but the pages of more than \d+ chunks make \d+: rebuild the site/],
  ];
  for (const [edit, message] of cases) {
    const { engine } = await servedCopy((dir, manifest, catalog) => {
      edit(catalog);
      return "catalog";
    });
    await assert.rejects(engine.open(), message);
  }
  // checked once the page table is in: the parts' sizes
  const { engine } = await servedCopy((dir, manifest, catalog) => {
    catalog.vectors[0].parts[0][2] += 1;
    return "catalog";
  });
  await assert.rejects(engine.search("cache", { mode: "vector" }), /should hold \d+ vectors of 384 i8/);
});

test("a page table that does not fit the manifest, or starts a page mid-section, is refused", () => {
  // two pages of 2 and 1 chunks; chunk 1 continues chunk 0's section
  const table = (counts, bits, chunks = 3) => {
    const buffer = new ArrayBuffer(8 + 2 * counts.length + Math.ceil(chunks / 8));
    const view = new DataView(buffer);
    view.setUint32(0, counts.length, true);
    view.setUint32(4, chunks, true);
    counts.forEach((n, i) => view.setUint16(8 + 2 * i, n, true));
    view.setUint8(8 + 2 * counts.length, bits);
    return buffer;
  };
  const options = { pages: 2, chunks: 3, name: "pages/pages.0123456789abcdef.bin" };
  const parsed = parsePageTable(table([2, 1], 0b010), options);
  assert.deepEqual([...parsed.starts], [0, 2, 3]);
  assert.deepEqual([...parsed.pageOfChunk], [0, 0, 1]);
  assert.deepEqual([...parsed.sections], [0, 0, 2]);
  assert.throws(() => parsePageTable(table([2, 1], 0b100), options), /first chunk continues/);
  assert.throws(() => parsePageTable(table([1, 1], 0), options), /counts that do not add up/);
  assert.throws(() => parsePageTable(table([3, 0], 0), options), /page without chunks/);
  assert.throws(() => parsePageTable(table([2, 1], 0), { ...options, chunks: 4 }), /does not hold 2 pages and 4 chunks/);
  assert.throws(() => parsePageTable(table([2, 1], 0), { ...options, pages: 3 }), /not a page table of 3 pages and 3 chunks/);
});

test("keyword results fetch the catalog, then the page table beside their terms' shards, then their fragments", async () => {
  const { server, engine } = await servedCopy();
  const results = await engine.search("purge edge servers", { mode: "lexical" });
  assert.ok(results.length);
  const fetched = server.requests.map((path) => path.slice(1));
  assert.deepEqual(new Set(fetched.slice(0, 2)), new Set(["manifest.json", "catalog.json"]), "the catalog beside the manifest");
  assert.ok(!fetched.includes(engine.manifest.catalog.name), "its copy was the current catalog");
  const rest = fetched.slice(2).filter((name) => name !== engine.catalog.pageTable.name);
  // the keyword shards are named from the terms: no directory, no list of their sizes
  assert.ok(rest.every((name) => /^(lexical\/lex\d|fragments\/|parts\/part\d|index\/frag\d)/.test(name)), rest.join(" "));
  const shards = (await engine.lexical.shards.all()).length;
  assert.ok(rest.filter((n) => n.startsWith("lexical/")).length < shards);
  assert.equal(new Set(fetched).size, fetched.length, "each file is fetched once");
});

test("a query asks for its terms' files without waiting for the page table", { timeout: 60_000 }, async () => {
  let termAsked;
  const asked = new Promise((resolve) => {
    termAsked = resolve;
  });
  // The page table answers only once a keyword file was asked for: an engine that
  // waited for it first would never answer (and the test would fail at its timeout).
  const server = await serve(BUNDLE, {
    hold: (path) => {
      if (/^\/(lexical|index)\/lex\d/.test(path)) termAsked();
      return path.startsWith("/pages/") ? asked : null;
    },
  });
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json` });
  assert.ok((await engine.search("purge edge servers", { mode: "lexical" })).length);
});

test("a catalog copy that is not the manifest's catalog, or none, costs the hashed catalog's fetch", async () => {
  for (const edit of [(dir) => writeFileSync(join(dir, "catalog.json"), '{"model":{"id":"an older build"}}'),
    (dir) => unlinkSync(join(dir, "catalog.json"))]) {
    const { server, engine } = await servedCopy(edit);
    assert.ok((await engine.search("purge edge servers", { mode: "lexical" })).length);
    assert.ok(server.requests.includes(`/${engine.manifest.catalog.name}`));
  }
});

test("a filtered keyword query reads the tails of its common terms; an unfiltered one does not", async () => {
  const { server, engine } = await servedCopy();
  const query = "cache response";
  await engine.search(query, { mode: "lexical" });
  const tails = () => server.requests.filter((path) => path.startsWith("/lexical/tail."));
  assert.equal(tails().length, 0);
  await engine.search(query, { mode: "lexical", filters: { section: ["Guide", "Operations"] } });
  assert.ok(tails().length > 0);
  assert.ok(server.requests.some((path) => path.startsWith("/facets/")));
});

test("the static encoder's first semantic result loads no model; concurrent queries share fetches", async () => {
  const { server, engine } = await servedCopy();
  const queries = ["service worker offline", "service worker cache first", "offline service worker"];
  const answers = await Promise.all(queries.flatMap((q) => [engine.search(q), engine.search(q, { mode: "lexical" })]));
  assert.ok(answers.every((results) => results.length));
  // a record of a pack (a page's excerpts, a token's row) counts as a file of its own
  const fetched = server.asked.map(({ path, start }) => path.slice(1) + (start === null ? "" : `@${start}`));
  assert.ok(!fetched.some((name) => /\.(onnx|wasm)$|^model\/model\./.test(name)), fetched.join(" "));
  assert.ok(fetched.some((name) => name.startsWith("words/")), "the rows of the queries' words");
  assert.ok(!fetched.some((name) => name.startsWith("text/")), "text shards are for Python readers");
  assert.equal(new Set(fetched).size, fetched.length, `each file once: ${fetched.join(" ")}`);
});

test("asking for the transformer on a site without the model says how to get it", async () => {
  const { server } = await servedCopy();
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json`, encoder: "transformer" });
  await assert.rejects(engine.open(), /no transformer query encoder.*query_encoder: transformer/);
});

test("a transformer's files for the client's own forward pass are checked: version, layers, word blocks in order", () => {
  const manifest = JSON.parse(readFileSync(join(BUNDLE, "manifest.json"), "utf8"));
  const catalog = JSON.parse(readFileSync(join(BUNDLE, manifest.catalog.name), "utf8"));
  const file = (n) => [`model/words.${String(n).repeat(16)}.bin`, 400];
  const weights = {
    version: constants.BROWSER_MODEL_VERSION, layers: ["model/layers.0123456789abcdef.bin", 1000],
    words: [[0, file(1)], [4096, file(2)]],
  };
  const withTransformer = (transformer) => checkCatalog(
    { ...catalog, encoders: { ...catalog.encoders, transformer } }, manifest, "catalog.json");
  const tokenizer = catalog.encoders.static.tokenizer;
  const checked = withTransformer({ vectors: 0, tokenizer, weights }).encoders.transformer;
  assert.equal(checked.model, undefined);
  assert.deepEqual(checked.weights.words.map((f) => f.name), [file(1)[0], file(2)[0]]);
  assert.equal(checked.weights.layers.bytes, 1000);
  const refused = [
    [{ ...weights, version: 99 }, /weights\.version is not/],
    [{ ...weights, words: [[4096, file(2)], [0, file(1)]] }, /weights\.words is not a list of \[first id, file\] in order/],
    [{ ...weights, words: [] }, /weights\.words is empty/],
    [{ ...weights, layers: ["../layers.bin", 3] }, /not a payload name/],
  ];
  for (const [bad, message] of refused) {
    assert.throws(() => withTransformer({ vectors: 0, tokenizer, weights: bad }), message);
  }
  // neither the forward pass's files nor the ONNX file: nothing to run the model with
  assert.throws(() => withTransformer({ vectors: 0, tokenizer }), /encoders\.transformer\.model/);
});

test("an idle encoder the catalog lacks, or the query encoder again, is refused by name", async () => {
  const manifest = JSON.parse(readFileSync(join(BUNDLE, "manifest.json"), "utf8"));
  for (const idle of ["static", "bert", 3]) {
    assert.throws(() => checkManifest({ ...manifest, idle_encoder: idle }, "manifest.json"),
      /idle_encoder .* is not an encoder other than the query_encoder/);
  }
  assert.equal(checkManifest(manifest, "manifest.json").idle_encoder, null);
  const { engine } = await servedCopy((dir, copy) => { copy.idle_encoder = "transformer"; });
  await assert.rejects(engine.search("cache"), /the manifest's idle_encoder "transformer" is not in the catalog/);
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

test("binary payloads: table rows and f16/f32 vector parts, little-endian", () => {
  const row = new Int8Array([1, -2, 3, 0, 0, 0, 0]);
  assert.deepEqual([...parseRow(row.buffer, 3, "t")], [1, -2, 3]);
  assert.throws(() => parseRow(row.buffer, 4, "t"), /t is not a token table row of 4 dims/);
  const values = [1, -0.5, 0.25, 2];
  const f32 = new DataView(new ArrayBuffer(16));
  values.forEach((v, i) => f32.setFloat32(4 * i, v, true));
  assert.deepEqual([...parseVectorPart(f32.buffer, { dtype: "f32", dim: 2, rows: 2 })], values);
  const f16 = new DataView(new ArrayBuffer(8));
  [0x3c00, 0xb800, 0x3400, 0x4000].forEach((bits, i) => f16.setUint16(2 * i, bits, true));
  assert.deepEqual([...parseVectorPart(f16.buffer, { dtype: "f16", dim: 2, rows: 2 })], values);
  assert.equal(halfToFloat(0x7c00), Infinity);
});

test("partitioned vectors: a query fetches the index, the bits it probes and the row blocks of its candidates", async () => {
  const { server, catalog, engine } = await servedCopy(() => {}, PARTITIONED);
  const set = catalog.vectors[0];
  assert.ok((await engine.search("service worker offline", { mode: "vector" })).length);
  const vectorFiles = () => server.requests.map((path) => path.slice(1)).filter((n) => n.startsWith("vectors/"));
  const bits = vectorFiles().filter((n) => n.startsWith("vectors/bin.")).length;
  // row blocks: records of their partition's pack, each asked for by a range request
  const blocks = () => server.asked.filter(({ path }) => path.startsWith("/vectors/rows."));
  const packs = new Set(blocks().map((range) => range.path)).size;
  assert.ok(blocks().length >= 1 && blocks().every(({ start }) => start !== null));
  assert.ok(bits > 1 && bits < set.partitions, `${bits} of ${set.partitions} probed`);
  const allPacks = readdirSync(join(PARTITIONED, "vectors")).filter((n) => n.startsWith("rows.")).length;
  assert.ok(packs >= 1 && packs < allPacks, `${packs} of ${allPacks} packs of rows`);
  assert.ok(vectorFiles().includes(set.index[0]));
  assert.ok(!vectorFiles().includes(set.centroids[0]), "the centroids' codes are for the next build");
  // a filtered query: the partitions holding an eligible chunk, bits and rows
  await engine.search("service worker offline", { mode: "vector", filters: { section: ["Guide"] } });
  const facets = JSON.parse(readFileSync(join(PARTITIONED, catalog.facets[0]), "utf8"));
  const guide = new Set([...facets.partitions.section.Guide]);
  assert.ok(guide.size < set.partitions);
  assert.ok(new Set(blocks().map((range) => range.path)).size >= guide.size);
  const asked = [...vectorFiles().filter((n) => !n.startsWith("vectors/rows.")),
    ...blocks().map((range) => `${range.path}@${range.start}`)];
  assert.equal(new Set(asked).size, asked.length, "each file and block fetched once");
});

test("a partitioned catalog with a bad field is refused by name", async () => {
  const cases = [
    [(v) => { v.layout = "hnsw"; }, /vectors\[0\]\.layout "hnsw" is not exact or partitioned/],
    [(v) => { v.dtype = "f16"; }, /vectors\[0\]\.dtype must be i8 in the partitioned layout/],
    [(v) => { v.probe_rows = 0; }, /vectors\[0\]\.probe_rows is 0, not a whole number from 1/],
    [(v) => { delete v.probe_rows; }, /vectors\[0\]\.probe_rows is missing/],
    [(v) => { v.candidates = 5000; }, /vectors\[0\]\.candidates is 5000/],
    [(v) => { v.id_bytes = 3; }, /vectors\[0\]\.id_bytes must be 1, 2 or 4/],
    [(v) => { delete v.id_bytes; }, /vectors\[0\]\.id_bytes is missing/],
    [(v) => { v.partitions = 0; }, /vectors\[0\]\.partitions is 0, not a whole number from 1/],
    [(v) => { v.index[1] += 1; }, /vectors\[0\]\.index must be \[name, \d+\] for \d+ partitions of 384 dims/],
    [(v) => { v.index[0] = "../x.0123456789abcdef.bin"; }, /vectors\[0\]\.index lists .* not a payload name/],
    [(v) => { v.centroids[1] -= 1; }, /vectors\[0\]\.centroids must be \[name, \d+\]/],
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

test("a partition names chunks by page and position, rising, each on its page; copies share rows; rows in blocks", () => {
  // pages of 3, 4 and 3 chunks: chunk ids 0-2, 3-6, 7-9
  const starts = Int32Array.from([0, 3, 7, 10]);
  // page numbers and positions in `idBytes` each, row numbers and block row counts in 1
  // byte (rows <= 255)
  const partition = (pairs, rowOf = null, rows = pairs.length, blocks = [rows], idBytes = 1) => {
    const map = rowOf ? pairs.length : 0;
    const head = 12 + 8 + blocks.length;
    const buffer = new ArrayBuffer(head + pairs.length * 2 * idBytes + map + rows);
    const view = new DataView(buffer);
    const put = (at, value) => (idBytes === 1 ? view.setUint8(at, value)
      : idBytes === 2 ? view.setUint16(at, value, true) : view.setUint32(at, value, true));
    view.setUint32(0, pairs.length, true);
    view.setUint32(4, rows, true);
    view.setUint32(8, blocks.length, true);
    new Uint8Array(buffer, 12, 8).set([0xab, 0xcd, 0, 1, 2, 3, 4, 5]);
    blocks.forEach((count, j) => view.setUint8(20 + j, count));
    pairs.forEach(([page, local], i) => {
      put(head + idBytes * i, page);
      put(head + idBytes * (pairs.length + i), local);
      if (rowOf) view.setUint8(head + 2 * idBytes * pairs.length + i, rowOf[i]);
    });
    return buffer;
  };
  const options = { dim: 2, chunks: 2, rows: 2, blocks: 1, idBytes: 1, starts, name: "vectors/bin.0123456789abcdef.bin" };
  const parsed = parsePartitionBits(partition([[1, 0], [2, 0]]), options);
  assert.deepEqual(Array.from(parsed.ids), [3, 7]);
  for (const idBytes of [2, 4]) {
    const wide = parsePartitionBits(partition([[1, 0], [2, 0]], null, 2, [2], idBytes), { ...options, idBytes });
    assert.deepEqual(Array.from(wide.ids), [3, 7]);
    assert.throws(() => parsePartitionBits(partition([[1, 0], [2, 0]], null, 2, [2], idBytes), options), /not a partition/);
  }
  assert.equal(parsed.rowOf, null);
  assert.deepEqual(Array.from(parsed.firsts), [3, 7]);
  assert.deepEqual(parsed.blocks, [{ name: "vectors/row0.abcd000102030405.i8", bytes: 4 + 4, start: 0, rows: 2,
    pack: { name: "vectors/rows.abcd000102030405.i8", bytes: 4 + 4 + 4 }, offset: 0 }]);
  const wrong = /not a partition of 2 distinct chunks ascending sharing 2 rows in 1 blocks/;
  assert.throws(() => parsePartitionBits(partition([[2, 0], [1, 0]]), options), wrong);
  assert.throws(() => parsePartitionBits(partition([[1, 0], [1, 4]]), options), wrong); // past its page
  assert.throws(() => parsePartitionBits(partition([[1, 0], [3, 0]]), options), wrong); // no such page
  assert.throws(() => parsePartitionBits(partition([[1, 0]]), options), wrong); // too short
  // three chunks, two rows: chunk 3 and 7 share row 0
  const shared = { ...options, chunks: 3, rows: 2 };
  const copies = parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [0, 1, 0], 2), shared);
  assert.deepEqual(Array.from(copies.rowOf), [0, 1, 0]);
  assert.deepEqual(Array.from(copies.firsts), [3, 4]);
  assert.equal(copies.bits.length, 2);
  assert.equal(copies.blocks[0].bytes, 4 + 4); // two rows of two dims, then the check
  const unordered = /sharing 2 rows/; // rows numbered by their first chunk, every one used
  assert.throws(() => parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [1, 0, 0], 2), shared), unordered);
  assert.throws(() => parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [0, 0, 0], 2), shared), unordered);
  assert.throws(() => parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [0, 2, 1], 2), shared), unordered);
  // three distinct rows in two blocks, {chunk 4} then {chunk 3, chunk 7}: each block's rows
  // in the order of their first chunk, a map even though no row is shared
  const blocked = { ...options, chunks: 3, rows: 3, blocks: 2 };
  const inBlocks = parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [1, 0, 2], 3, [1, 2]), blocked);
  assert.deepEqual(Array.from(inBlocks.firsts), [4, 3, 7]);
  assert.deepEqual(inBlocks.blocks.map(({ start, rows, bytes, offset }) => [start, rows, bytes, offset]), [[0, 1, 6, 0], [1, 2, 8, 6]]);
  assert.deepEqual(inBlocks.blocks[1].pack, { name: "vectors/rows.abcd000102030405.i8", bytes: 6 + 8 + 4 });
  assert.deepEqual(inBlocks.blocks.map((b) => b.name), ["vectors/row0.abcd000102030405.i8", "vectors/row1.abcd000102030405.i8"]);
  const badBlocks = /sharing 3 rows in 2 blocks/;
  assert.throws(() => parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [2, 0, 1], 3, [1, 2]), blocked), badBlocks);
  assert.throws(() => parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [1, 0, 2], 3, [2, 2]), blocked), badBlocks);
  assert.throws(() => parsePartitionBits(partition([[1, 0], [1, 1], [2, 0]], [1, 0, 2], 3, [3, 0]), blocked), badBlocks);
});

test("a search aborted while its query is embedded asks for no partition file", async () => {
  // The index is held until the search is aborted (on its first word rows shard). Once the
  // query's rows and the index are in, the aborted search's vector step needs only
  // microtasks to ask the store for partition files; setImmediate runs after they all
  // have, so the store then shows whether it asked.
  const controller = new AbortController();
  let release;
  const index = new Promise((resolve) => { release = resolve; });
  const server = await serve(PARTITIONED, {
    hold: (path) => {
      if (path.startsWith("/words/")) controller.abort(new Error("typed on"));
      return path.startsWith("/vectors/ivf.") ? index : null;
    },
  });
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json` });
  await assert.rejects(engine.search("service worker offline", { mode: "vector", signal: controller.signal }), /typed on/);
  release();
  await Promise.all([engine.load(), engine.embed("service worker offline")]);
  await new Promise((resolve) => { setImmediate(resolve); });
  const asked = [...engine.store.loads.keys()];
  assert.ok(asked.some((name) => name.startsWith("vectors/ivf.")));
  assert.ok(!asked.some((name) => /^vectors\/(bin|row)\./.test(name)), asked.join(" "));
});

test("a shard list directory names its shards from its number on; a bad one is refused by name", () => {
  const [a, b] = ["0123abcd", "4567cdef"];
  assert.deepEqual(checkDirectory({ at: 32, first: ["alpha", "beta"], bytes: [10, 20], hashes: a + b }, `index/lex1.${b}.json`), [
    { first: "alpha", name: `lexical/lex32.${a}.json`, bytes: 10 },
    { first: "beta", name: `lexical/lex33.${b}.json`, bytes: 20 },
  ]);
  assert.deepEqual(checkDirectory({ at: 0, first: [0], bytes: [5], hashes: a }, `index/frag0.${b}.json`),
    [{ first: 0, name: `fragments/frag0.${a}.json`, bytes: 5 }]);
  for (const [data, name, message] of [
    [[], `index/frag0.${a}.json`, /not a shard list directory/],
    [{ at: -1, first: [0], bytes: [1], hashes: a }, `index/frag0.${a}.json`, /not a shard list directory/],
    [{ at: 0, first: [5, 2], bytes: [1, 1], hashes: a + b }, `index/frag0.${a}.json`, /not in ascending order/],
    [{ at: 0, first: [0, 1], bytes: [1], hashes: a }, `index/frag0.${a}.json`, /of one length/],
    [{ at: 0, first: [0], bytes: [1] }, `index/frag0.${a}.json`, /must list the hashes of its 1 shards/],
    [{ at: 0, first: [0], bytes: [1], hashes: a }, `fragments/frag0.${a}.json`, /not a directory's name/],
  ]) {
    assert.throws(() => checkDirectory(data, name), (error) => error instanceof BundleError && message.test(error.message), name);
  }
});

test("a shard served under another shard's number fails its check", async () => {
  const catalog = JSON.parse(readFileSync(join(BUNDLE, "catalog.json"), "utf8"));
  const { hashes, pack, bytes: sizes } = catalog.fragments;
  const packed = readFileSync(join(BUNDLE, pack[0]));
  const record = (n) => {
    const at = sizes.slice(0, n).reduce((a, b) => a + b, 0);
    return new Uint8Array(packed.subarray(at, at + sizes[n])).buffer;
  };
  // a packed keyed list's records: each checked by its own end, under its own name
  const [one, two] = [0, 1].map((n) => ({ name: `fragments/frag${n}.${hashes.slice(0, 8)}.json` }));
  await verifyPayload(record(0), one);
  await assert.rejects(verifyPayload(record(0), two), /frag1\.[0-9a-f]{8}\.json does not match its hash/);
});

test("a keyed list names a key's shard without a lookup; an empty site's pages have none", async () => {
  const hashes = "000000aa000000bb000000cc000000dd000000ee000000ff000001aa000001bb000001cc000001dd000001ee000001ff000002aa";
  const pages = new ShardList({ keyed: { stem: "fragments/frag", hashes, count: 3, by: "page" } }, { loadJson: () => { throw new Error("no lookup"); } });
  assert.deepEqual(await pages.find(2), { first: 2, name: "fragments/frag2.000000cc.json" });
  assert.equal(await pages.find(3), null);
  assert.equal(await pages.find(-1), null);
  // a packed one: a page's shard is a record of one file, read by range
  const pack = { name: "fragments/frags.0123456789abcdef.bin", bytes: 30 };
  const packed = new ShardList({ keyed: { stem: "fragments/frag", hashes: hashes.slice(0, 16), count: 2, by: "page", pack, sizes: [10, 20], offsets: [0, 10] } },
    { loadJson: () => { throw new Error("no lookup"); } });
  assert.deepEqual(await packed.find(1), { first: 1, name: "fragments/frag1.000000bb.json", bytes: 20, pack, offset: 10 });
  const empty = new ShardList({ keyed: { stem: "fragments/frag", hashes: "", count: 0, by: "page" } }, { loadJson: () => null });
  assert.equal(await empty.find(0), null);
  const terms = new ShardList({ keyed: { stem: "lexical/lex", hashes, count: 13, by: "hash" } }, { loadJson: () => null });
  const bucket = await bucketOf("cooki", 13);
  assert.deepEqual(await terms.find("cooki"), { first: bucket, name: `lexical/lex${bucket}.${hashes.slice(8 * bucket, 8 * bucket + 8)}.json` });
  await assert.rejects(terms.between("a", "b"), /keeps no key order/);
});

test("a manifest declaring a catalog past the bound is refused before the catalog is asked for", async () => {
  const { engine, server } = await servedCopy((dir, manifest) => {
    manifest.catalog.bytes = 8 * 2 ** 30;
  });
  await assert.rejects(engine.open(), (error) => error instanceof BundleError &&
    /catalog\.bytes is 8589934592, not a whole number from 0 to 16777216/.test(error.message));
  assert.ok(!server.requests.some((path) => /\/catalog\.[0-9a-f]{16}\.json$/.test(path)));
});

test("a query longer than the Python readers take is refused, as they refuse it", async () => {
  const { engine } = await servedCopy();
  await assert.rejects(engine.answer("cache ".repeat(400)),
    /the query is 2400 characters long; at most 2000 are accepted/);
  const fine = await engine.answer(`${"😀".repeat(1000)} cache`); // 1,006 code points
  assert.ok(Array.isArray(fine.results));
});

test("a self-checked JSON payload is inflated, within the bound any such file has", async () => {
  const check = Buffer.alloc(ROW_CHECK_BYTES);
  const name = "lexical/lex0.01234567.json";
  const stored = (bytes) => new Uint8Array(Buffer.concat([bytes, check])).buffer;
  const json = Buffer.from('{"terms":["cache"]}');
  assert.deepEqual(Buffer.from(await jsonBody(stored(deflateSync(json)), name)), json);
  // a payload named by its own hash is read as it is
  assert.deepEqual(Buffer.from(await jsonBody(new Uint8Array(json).buffer, "facets/facets.0123456789abcdef.json")), json);
  await assert.rejects(jsonBody(stored(json), name), (error) => error instanceof BundleError &&
    error.message === `${name} is not deflated JSON: rebuild the site`);
  // a deflate bomb (some 64 kB that inflate past 64 MB) stops at the bound
  const bomb = deflateSync(Buffer.alloc(constants.MAX_KEYED_SHARD_BYTES + 2, 32), { level: 9 });
  assert.ok(bomb.length < 200_000);
  await assert.rejects(jsonBody(stored(bomb), name), (error) => error instanceof BundleError &&
    error.message.includes(`${name} inflates to more than the ${constants.MAX_KEYED_SHARD_BYTES} bytes`));
});

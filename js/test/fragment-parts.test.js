// Long pages' excerpts in parts (engine/fragment-parts.js): which file describes a chunk,
// and that a query reads a long page's part, never its whole file.

import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { BundleError } from "../src/bundle/error.js";
import { ShardList } from "../src/bundle/shard-list.js";
import { Engine } from "../src/engine/engine.js";
import { ExcerptFiles, firstParts } from "../src/engine/fragment-parts.js";
import { editedCopy } from "./bundle-copy.js";
import { serve } from "./serve.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const HASHES = "01234567".repeat(64);
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

function list(stem, count) {
  return new ShardList({ keyed: { stem, hashes: HASHES.slice(0, 8 * count), count, by: "page" } }, { loadJson: () => null });
}

test("only pages longer than a part have parts, numbered in page order", () => {
  // pages of 1, 3, 4, 7 and 9 chunks, parts of 3
  const starts = [0, 1, 4, 8, 15, 24];
  assert.deepEqual([...firstParts(starts, 3)], [0, 0, 0, 2, 5, 8]);
  assert.deepEqual([...firstParts([0], 3)], [0]);
});

test("a chunk of a long page is described by its part, any other by its page's file", async () => {
  const starts = [0, 1, 4, 8, 15, 24];
  const files = new ExcerptFiles({
    fragments: list("fragments/frag", 5), starts, name: "catalog.json",
    parts: { chunks: 3, list: list("parts/part", 8) },
  });
  assert.deepEqual(pick(files.of(2, 1)), { stem: "fragments/frag", key: 1, from: 1, count: 3 });
  assert.deepEqual(pick(files.of(8, 3)), { stem: "parts/part", key: 2, from: 8, count: 3 });
  assert.deepEqual(pick(files.of(14, 3)), { stem: "parts/part", key: 4, from: 14, count: 1 });
  assert.deepEqual(pick(files.of(22, 4)), { stem: "parts/part", key: 7, from: 21, count: 3 });
  assert.equal((await files.entry(files.of(14, 3))).name, `parts/part4.01234567.json`);
  assert.deepEqual(files.locations(4).map((at) => at.key), [5, 6, 7]);
  assert.deepEqual(files.locations(1).map((at) => [at.key, at.count]), [[1, 3]]);
  const whole = new ExcerptFiles({ fragments: list("fragments/frag", 5), starts, name: "catalog.json", parts: null });
  assert.deepEqual(pick(whole.of(22, 4)), { stem: "fragments/frag", key: 4, from: 15, count: 9 });
  assert.throws(() => new ExcerptFiles({
    fragments: list("fragments/frag", 5), starts, name: "catalog.json",
    parts: { chunks: 3, list: list("parts/part", 7) },
  }), (error) => error instanceof BundleError && /fragment_parts lists 7 parts, but the pages of more than 3 chunks make 8: rebuild the site/.test(error.message));
});

function pick({ list: shards, key, from, count }) {
  return { stem: shards.keyed.stem, key, from, count };
}

/** A query on `root`'s bundle, served, once every file it asked for has come. */
async function searched(root, query) {
  const server = await serve(root);
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json` });
  const results = await engine.search(query, { mode: "hybrid" });
  // the guesses' files too, which a search does not wait for
  await Promise.allSettled([...engine.store.loads.values()]);
  return { engine, results, fetched: server.requests.map((path) => path.slice(1)) };
}

const QUERY = "purge edge servers";

test("a query reads the parts of the long pages it shows, never their whole files", async () => {
  const { engine, results, fetched } = await searched(BUNDLE, QUERY);
  assert.ok(results.length);
  const { starts, pageOfChunk } = engine;
  const chunks = engine.catalog.fragmentParts.chunks;
  const long = results.filter((r) => starts[pageOfChunk[r.id] + 1] - starts[pageOfChunk[r.id]] > chunks);
  assert.ok(long.length, "the fixture's parts are small enough for a result to be on a long page");
  for (const r of long) {
    const page = pageOfChunk[r.id];
    assert.ok(!fetched.includes((await engine.fragments.find(page)).name), `page ${page}'s whole file`);
    assert.ok(fetched.includes((await engine.excerpts.entry(engine.excerpts.of(r.id, page))).name), `chunk ${r.id}'s part`);
  }
});

test("a bundle without parts is read page by page, with the same results", async () => {
  const { dir } = editedCopy(BUNDLE, (_, manifest, catalog) => {
    delete catalog.fragment_parts;
    return "catalog";
  });
  try {
    const [withParts, without] = [await searched(BUNDLE, QUERY), await searched(dir, QUERY)];
    assert.deepEqual(without.results, withParts.results);
    assert.ok(!without.fetched.some((name) => name.startsWith("parts/")));
    assert.ok(without.fetched.some((name) => name.startsWith("fragments/frag")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Idle-time prefetch of word-piece shards: within its budget, stopped by a new query,
// never under Save-Data, and a later query's new words then wait for no shard.

import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { PREFETCH_BYTES, mayPrefetch, prefetch, prefetchOrder } from "../src/engine/prefetch.js";
import { serve } from "./serve.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function served(options = {}) {
  const server = await serve(BUNDLE, options);
  servers.push(server);
  return { server, engine: new Engine({ manifestUrl: `${server.url}manifest.json` }) };
}

const pieceRequests = (requests) => requests.filter((path) => path.startsWith("/pieces/"));
const entry = (name, bytes) => ({ name, bytes });

test("prefetch takes the entries that fit its budget, in batches", async () => {
  const batches = [];
  const asked = await prefetch([entry("a", 4), entry("b", 4), entry("c", 4), entry("d", 9)], {
    read: async (batch) => batches.push(batch.map((e) => e.name)), busy: () => false, budget: 12, batch: 2,
  });
  assert.deepEqual(batches, [["a", "b"], ["c"]]);
  assert.equal(asked, 12);
});

test("prefetch stops before its next batch once a query runs", async () => {
  const batches = [];
  const asked = await prefetch([entry("a", 1), entry("b", 1), entry("c", 1)], {
    read: async (batch) => batches.push(batch.map((e) => e.name)), busy: () => batches.length > 0, budget: 10, batch: 1,
  });
  assert.deepEqual(batches, [["a"]]);
  assert.equal(asked, 1);
});

test("no prefetch under Save-Data or on a 2G-class connection", () => {
  assert.equal(mayPrefetch(undefined), true);
  assert.equal(mayPrefetch({}), true);
  assert.equal(mayPrefetch({ connection: { saveData: false, effectiveType: "4g" } }), true);
  assert.equal(mayPrefetch({ connection: { saveData: true, effectiveType: "4g" } }), false);
  assert.equal(mayPrefetch({ connection: { effectiveType: "2g" } }), false);
  assert.equal(mayPrefetch({ connection: { effectiveType: "slow-2g" } }), false);
});

test("after a query the engine reads every piece shard, and a later query asks for no piece", async () => {
  const { server, engine } = await served();
  engine.prefetchBudget = Infinity; // every shard, whatever the fixture's size
  const first = await engine.search("why service worker offline cache"); // "why": no word of the site's
  const keyed = pieceRequests(server.requests);
  assert.ok(keyed.length > 0 && keyed.every((path) => /^\/pieces\/(s[0-9a-z]+|c[0-9a-z]|p)\./.test(path)), keyed.join());
  await engine.prefetching;
  const shards = readdirSync(join(BUNDLE, "pieces")).filter((name) => /^piece\d+\./.test(name)).length;
  const asked = pieceRequests(server.requests).slice(keyed.length);
  assert.equal(new Set(asked).size, shards);
  assert.equal(new Set(pieceRequests(server.requests)).size, pieceRequests(server.requests).length, "a file was asked for twice");
  const before = server.requests.length;
  const later = await engine.search("zebra quilting kayak yodel");
  assert.deepEqual(pieceRequests(server.requests.slice(before)), []);

  // the results are those of an engine that prefetched nothing
  const { engine: plain } = await served();
  plain.prefetchBudget = 0;
  assert.deepEqual((await plain.search("why service worker offline cache")).map((r) => r.id), first.map((r) => r.id));
  assert.deepEqual((await plain.search("zebra quilting kayak yodel")).map((r) => r.id), later.map((r) => r.id));
});

test("stored deflated, every shard fits the budget whether or not the host compresses JSON", async () => {
  for (const gzip of [true, false]) {
    const { server, engine } = await served({ gzip });
    await engine.search("service worker offline cache");
    await engine.prefetching;
    const before = server.requests.length;
    await engine.search("zebra quilting kayak yodel run startup");
    // the fixture's shards are about 385 kB as JSON, some 140 kB as stored
    assert.deepEqual(pieceRequests(server.requests.slice(before)), [], `gzip ${gzip}`);
  }
});

test("the engine prefetches within its budget", async () => {
  const { server, engine } = await served();
  await engine.search("service worker offline cache");
  const asked = new Set(pieceRequests(server.requests));
  await engine.prefetching;
  const prefetched = pieceRequests(server.requests).filter((path) => !asked.has(path));
  assert.ok(prefetched.length > 0);
  assert.ok(prefetched.reduce((n, path) => n + statSync(join(BUNDLE, path)).size, 0) <= PREFETCH_BYTES);
});

test("no prefetch under Save-Data", async () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", { value: { connection: { saveData: true } }, configurable: true });
  try {
    const { server, engine } = await served();
    await engine.search("service worker offline cache");
    const asked = pieceRequests(server.requests).length;
    await engine.prefetching;
    assert.equal(pieceRequests(server.requests).length, asked);
  } finally {
    if (saved) Object.defineProperty(globalThis, "navigator", saved);
    else delete globalThis.navigator;
  }
});

const PARTITIONED = fileURLToPath(new URL("../../tests/fixtures/parity/bundle-partitioned/", import.meta.url));
const bitsRequests = (requests) => requests.filter((path) => path.startsWith("/vectors/bin."));
const FIRST = "service worker offline cache";

/** An engine on the partitioned fixture, its prefetch budget `budget`. */
async function partitioned(budget = PREFETCH_BYTES) {
  const server = await serve(PARTITIONED);
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json` });
  engine.prefetchBudget = budget;
  return { server, engine };
}

test("after a query the engine reads the bits no query has read, and a later query probes without asking", async () => {
  const { server, engine } = await partitioned(Infinity);
  await engine.search(FIRST, { mode: "vector" });
  const probed = bitsRequests(server.requests);
  const files = readdirSync(join(PARTITIONED, "vectors")).filter((name) => name.startsWith("bin.")).length;
  assert.ok(probed.length > 0 && probed.length < files, "the fixture's query probes some partitions, not all");
  await engine.prefetching;
  assert.equal(new Set(bitsRequests(server.requests)).size, files);
  assert.equal(bitsRequests(server.requests).length, files, "a bits file was asked for twice");
  const before = server.requests.length;
  const later = await engine.search("zebra quilting kayak yodel", { mode: "vector" });
  assert.deepEqual(bitsRequests(server.requests.slice(before)), []);

  // the results are those of an engine that prefetched nothing
  const { engine: plain } = await partitioned(0);
  await plain.search(FIRST, { mode: "vector" });
  assert.deepEqual((await plain.search("zebra quilting kayak yodel", { mode: "vector" })).map((r) => r.id),
    later.map((r) => r.id));
});

test("the bits go first when every one fits the budget, after the word pieces otherwise", () => {
  const kind = (entries) => ({ entries, cost: (entry) => entry.bytes });
  const bits = kind([entry("b1", 4), entry("b2", 4)]);
  const pieces = kind([entry("p1", 3)]);
  assert.deepEqual(prefetchOrder(bits, pieces, 8), [bits, pieces]);
  assert.deepEqual(prefetchOrder(bits, pieces, 7), [pieces, bits]);
  const none = kind([]);
  assert.deepEqual(prefetchOrder(none, pieces, 0), [none, pieces]);
});

test("the engine's bits go first when every unread one fits its budget, and stay within it otherwise", async () => {
  // what the first query leaves unread, from an engine that prefetches nothing
  const { server: probe, engine: once } = await partitioned(0);
  await once.search(FIRST, { mode: "vector" });
  const read = new Set(bitsRequests(probe.requests));
  const unread = readdirSync(join(PARTITIONED, "vectors")).filter((name) => name.startsWith("bin."))
    .filter((name) => !read.has(`/vectors/${name}`))
    .reduce((n, name) => n + statSync(join(PARTITIONED, "vectors", name)).size, 0);
  const kind = (path) => (path.startsWith("/vectors/bin.") ? "bits" : /\/piece/.test(path) ? "pieces" : path);
  for (const budget of [unread, unread - 1]) {
    const { server, engine } = await partitioned(budget);
    await engine.search(FIRST, { mode: "vector" });
    const before = server.requests.length;
    await engine.prefetching;
    // the files prefetched, not the shard lists' directory files read to name them
    const prefetched = server.requests.slice(before).filter((path) => !path.startsWith("/index/"));
    const bits = bitsRequests(prefetched);
    const bytes = bits.reduce((n, path) => n + statSync(join(PARTITIONED, path)).size, 0);
    if (budget === unread) {
      assert.equal(kind(prefetched[0]), "bits", prefetched.slice(0, 3).join());
      assert.equal(bytes, unread);
    } else {
      assert.ok(bytes > 0 && bytes <= budget, `${bytes} bytes of bits within ${budget}`);
    }
  }
});

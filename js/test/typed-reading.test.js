// A query is scored as typed while it is read (engine.js #rank): a word the site does not
// use may be corrected, so what the typed vector picks (its candidates' row blocks and
// their pages' fragments) waits for the reading. Its bits are asked for at once, except
// on a set of more than two probes' worth of chunks (the fixture: 59 chunks, 16 rows a
// probe) when the bits a probe lacks cost more than a round trip (`roundTripBytes`; the
// fixture's few bits files cost less than the 100 kB of a reader's network, so the tests
// that want them to wait say a round trip costs nothing). There too the fragments of the
// pages its keyword ranking as typed puts first wait for the reading.

import assert from "node:assert/strict";
import { test } from "node:test";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { probingRows } from "./bundle-copy.js";
import { serve } from "./serve.js";

const PARITY = fileURLToPath(new URL("../../tests/fixtures/parity/", import.meta.url));
const PARTITIONED = `${PARITY}bundle-partitioned/`;
const BITS = /\/vectors\/bin/;

/**
 * The files matching `kinds` that a first query asks for, on a server of its own (so no
 * late request of another query is counted), and its answer. `root`: the bundle's
 * folder; `roundTripBytes`: what the engine takes a round trip to cost; `guessedPages`:
 * how many pages' fragments each signal's guess asks for.
 */
async function asked(query, kinds, options = {}, { root = PARTITIONED, roundTripBytes, guessedPages } = {}) {
  const server = await serve(root);
  try {
    const engine = new Engine({ manifestUrl: `${server.url}manifest.json` });
    engine.prefetchBudget = 0;
    engine.roundTripBytes = roundTripBytes ?? engine.roundTripBytes;
    engine.guessedPages = guessedPages ?? engine.guessedPages;
    const answer = await engine.answer(query, options);
    // a record asked for by range (a row block in its partition's pack) counts as a file
    const files = server.asked.map(({ path, start }) => (start === null ? path : `${path}@${start}`));
    return { files: new Set(files.filter((path) => kinds.test(path))), answer };
  } finally {
    await server.close();
  }
}

/**
 * A slipped `query` read (with `options`), beside its words as typed and the corrected
 * query, each searched as typed (`how`: `asked`'s settings, and `search`, options of all
 * three searches): the files of each, and `typedOnly`, those the words as typed ask for
 * and the corrected query does not. Asserts that the query is corrected, that `typedOnly`
 * is not empty (so a test of it cannot pass for want of such files) and that the results
 * are the corrected query's.
 */
async function readings(query, kinds, options = {}, how = {}) {
  const search = how.search ?? {};
  const slipped = await asked(query, kinds, { ...search, ...options }, how);
  const meant = slipped.answer.reading.text;
  assert.notEqual(meant, query, `${query} is corrected`);
  const typed = await asked(query, kinds, { ...search, asTyped: true }, how);
  const corrected = await asked(meant, kinds, { ...search, asTyped: true }, how);
  const typedOnly = [...typed.files].filter((file) => !corrected.files.has(file));
  assert.ok(typedOnly.length > 0, `${query}: its words as typed read files the corrected query does not`);
  assert.deepEqual(slipped.answer.results.map((r) => [r.id, r.score]),
    corrected.answer.results.map((r) => [r.id, r.score]), query);
  return { slipped: slipped.files, typed: typed.files, corrected: corrected.files, typedOnly };
}

test("a corrected query asks for none of the row blocks and fragments its vector as typed picks", async () => {
  const blocksAndFragments = /\/(vectors\/row|fragments\/frag|parts\/part)/;
  // one word the site does not use: nothing but the vector as typed picks pages
  for (const query of ["sevice", "ofline", "instll"]) {
    for (const typing of [false, true]) {
      const { slipped, typedOnly } = await readings(query, blocksAndFragments, { typing });
      assert.deepEqual(typedOnly.filter((file) => slipped.has(file)), [], `${query}, typing ${typing}`);
    }
  }
});

test("past two probes' worth of chunks, a corrected query lacking bits worth a round trip asks for no bits file the corrected query does not", async () => {
  // one word: the typed vector's probe; with words the site uses: the probe ahead's too
  for (const query of ["sevice", "instll", "stale copies from every edge sevrer", "keep avatars cahced"]) {
    const { slipped, corrected } = await readings(query, BITS, {}, { roundTripBytes: 0 });
    assert.deepEqual([...slipped].filter((file) => !corrected.has(file)), [], query);
  }
});

/** Whether "sevice", corrected, still asks for every bits file its words as typed probe. */
async function typedBitsAsked(how) {
  const { slipped, typed } = await readings("sevice", BITS, {}, how);
  return [...typed].every((file) => slipped.has(file));
}

test("where a probe covers most of the set, a corrected query still asks for the bits its words as typed probe", async () => {
  const root = probingRows(PARTITIONED, 40); // 59 chunks: under two probes' worth
  try {
    assert.ok(await typedBitsAsked({ root, roundTripBytes: 0 }));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("on a larger set, so it does when the bits it lacks cost less than a round trip", async () => {
  assert.ok(await typedBitsAsked({}));
  assert.ok(!(await typedBitsAsked({ roundTripBytes: 0 })));
});

test("a corrected query with words the site uses asks for no row block the corrected query does not", async () => {
  // the probe ahead sums the words the site uses; its candidates' blocks would serve the
  // query as typed, and a corrected query picks its own
  const blocks = /\/vectors\/row/;
  for (const query of ["stale copies from every edge sevrer", "keep avatars cahced",
    "service worker stratgies for images", "how long may a cache reuse a respnse without asking the sevrer"]) {
    const { slipped, corrected } = await readings(query, blocks);
    assert.deepEqual([...slipped].filter((file) => !corrected.has(file)), [], query);
  }
});

test("a slipped query whose other words' bits are in hand asks for their candidates' blocks before it is read", { timeout: 20_000 }, async () => {
  // the idle prefetch has read every partition's bits; the spelling shards (the reading)
  // are held until a row block is asked for: only the probe ahead can ask for one then
  let seen;
  const blockAsked = new Promise((resolve) => { seen = resolve; });
  let holding = false;
  const server = await serve(PARITY, {
    hold: (path) => {
      if (holding && path.includes("/vectors/row")) seen();
      return holding && path.includes("/vocabulary/spell") ? blockAsked : null;
    },
  });
  try {
    const engine = new Engine({ manifestUrl: `${server.url}bundle-partitioned/manifest.json` });
    engine.prefetchBudget = 1e9;
    await engine.answer("nginx location blocks drop my headers");
    await engine.prefetching;
    holding = true;
    const query = "stale copies from every edge sevrer";
    const before = server.requests.length;
    const answer = await engine.answer(query);
    assert.equal(answer.reading.text, "stale copies from every edge server");
    assert.ok(!server.requests.slice(before).some((path) => /\/vectors\/bin/.test(path)), "every bits file was in hand");
    const corrected = await asked(answer.reading.text, /\/vectors\/row/, { asTyped: true });
    assert.deepEqual(answer.results.map((r) => [r.id, r.score]), corrected.answer.results.map((r) => [r.id, r.score]));
  } finally {
    await server.close();
  }
});

/**
 * Whether a slipped query, read, asks for fragments that only its words as typed ask for.
 * It is searched by keywords alone, so only the keyword ranking guesses; its first page
 * and the one page a guess may read are few enough on the fixture's 11 pages that its
 * words as typed and the corrected query guess different pages.
 */
async function typedKeywordPagesAsked(root = PARTITIONED) {
  const query = "what happens when the origin is down but a stlae copy exists";
  const { slipped, typedOnly } = await readings(query, /\/(fragments\/frag|parts\/part)/, {},
    { root, guessedPages: 1, search: { mode: "lexical", topK: 1 } });
  return typedOnly.some((file) => slipped.has(file));
}

test("past two probes' worth of chunks, a corrected query asks for no fragments its keyword ranking as typed guesses", async () => {
  assert.ok(!(await typedKeywordPagesAsked()));
});

test("where a probe covers most of the set, a corrected query asks for the fragments its keyword ranking as typed guesses", async () => {
  // there they are on their way before the reading, which mostly keeps their words
  const root = probingRows(PARTITIONED, 40);
  try {
    assert.ok(await typedKeywordPagesAsked(root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

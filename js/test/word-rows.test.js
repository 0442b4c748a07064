// The word rows (engine/word-rows.js, mkdocs_semantic/bundle/word_rows.py): a query made of
// the site's words is encoded from its words' rows alone, to the codes the Python searcher
// computes from its tokens; other queries read the word pieces and token rows they need;
// the page names a first query's word rows and the vector index beside the catalog.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { fetchOpening } from "../src/engine/opening.js";
import { guessWords, guessedWordFiles } from "../src/engine/guessed-words.js";
import { FRAME, wordEntry } from "../src/engine/word-rows.js";
import { WordPieces } from "../src/engine/wordpieces.js";
import { guessedPieceFiles } from "../src/bundle/piece-names.js";
import { BundleError } from "../src/bundle/error.js";
import { serve } from "./serve.js";
import { inflateSync } from "node:zlib";

const PARITY = fileURLToPath(new URL("../../tests/fixtures/parity/", import.meta.url));
const expected = JSON.parse(readFileSync(`${PARITY}expected.json`, "utf8"));
const analyzer = JSON.parse(readFileSync(`${PARITY}analyzer.json`, "utf8"));
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function served(folder = "bundle") {
  const server = await serve(PARITY);
  servers.push(server);
  const url = `${server.url}${folder}/manifest.json`;
  const catalog = JSON.parse(readFileSync(`${PARITY}${folder}/catalog.json`, "utf8"));
  return { server, url, catalog };
}

const kinds = (paths) => ({
  words: paths.filter((p) => p.includes("/words/word")).length,
  pieces: paths.filter((p) => p.includes("/pieces/")).length,
  rows: paths.filter((p) => p.includes("/table/row")).length,
});
const codesOf = (query) => expected.queries.find((q) => q.query === query).codes;
const SITE_WORDS = "stale-while-revalidate service worker strategy"; // every word of it is the site's

/**
 * An engine on the parity bundle with its catalog open, and `embed(query)`, which
 * requires Python's codes for the query and returns what the embedding read (`kinds`).
 */
async function embedder() {
  const { server, url } = await served();
  const engine = new Engine({ manifestUrl: url });
  await engine.open();
  return async (query) => {
    const before = server.requests.length;
    assert.deepEqual(Array.from(await engine.embed(query)), codesOf(query), query.slice(0, 40));
    return kinds(server.requests.slice(before));
  };
}

test("a query of the site's words is encoded from its words' rows alone: no token row, and the word pieces asked beside them never waited for", { timeout: 20_000 }, async () => {
  let release;
  const never = new Promise((resolve) => { release = resolve; });
  let seen;
  const piecesAsked = new Promise((resolve) => { seen = resolve; });
  const server = await serve(PARITY, {
    hold: (path) => {
      if (!path.includes("/pieces/")) return null;
      seen();
      return never; // the word pieces never come
    },
  });
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}bundle/manifest.json` });
  await engine.open();
  const before = server.requests.length;
  const query = "Cache-Control max-age";
  assert.deepEqual(Array.from(await engine.embed(query)), codesOf(query));
  await piecesAsked; // asked for beside the rows, should the site have lacked a word
  release();
  const read = kinds(server.requests.slice(before));
  assert.ok(read.words > 0, "word rows read");
  assert.equal(read.rows, 0);
});

test("words the site lacks are split by the word pieces (their tokens have no rows here)", async () => {
  const read = await (await embedder())("quokka zyzzyvas cache");
  assert.ok(read.words > 0 && read.pieces > 0, JSON.stringify(read));
});

test("a text holding an added token's text, or too many tokens, is encoded token by token", async () => {
  const embed = await embedder();
  for (const query of ["[SEP] cache [mask]", expected.queries.find((q) => q.query.length > 1000).query]) {
    const read = await embed(query);
    assert.equal(read.words, 0, "no word rows read for a text the words cannot give");
  }
});

test("the engine cuts text into the words the model's tokenizer cuts", () => {
  const catalog = JSON.parse(readFileSync(`${PARITY}bundle/catalog.json`, "utf8"));
  const { config } = catalog.encoders.static.pieces;
  const pieces = new WordPieces({ config, keyed: "", shards: null, load: null, maxTokens: 128 });
  for (const [text, words] of analyzer.words) assert.deepEqual(pieces.words(text), words, text);
});

test("a malformed entry is refused, naming its shard", () => {
  const row = Buffer.from(new Int16Array([1, -2, 3, -4]).buffer).toString("base64");
  assert.deepEqual(wordEntry({ a: [2, row] }, "a", 4, "w"), { tokens: 2, row: Int16Array.from([1, -2, 3, -4]) });
  assert.deepEqual(wordEntry({ a: [3] }, "a", 4, "w"), { tokens: 3, row: null });
  assert.equal(wordEntry({ a: [3] }, "b", 4, "w"), null);
  for (const [data, word] of [[[], "a"], [{ a: [] }, "a"], [{ a: ["1"] }, "a"], [{ a: [1, "AAAA"] }, "a"],
    [{ a: [1, 5] }, "a"], [{ a: [-1] }, "a"], [{ a: [1, `${row.slice(0, -1)}!`] }, "a"], [null, "a"]]) {
    assert.throws(() => wordEntry(data, word, 4, "words/word0"), (e) => e instanceof BundleError && /words\/word0/.test(e.message));
  }
});

test("the page cuts text into the words the model's tokenizer cuts", () => {
  for (const [text, words] of analyzer.words) assert.deepEqual(guessWords(text), words, text);
});

test("given the words and index hints, the opening brings the word rows and the vector index, and the engine asks for neither again", async () => {
  const { server, url, catalog } = await served("bundle-partitioned");
  const { hashes, count } = catalog.encoders.static.words;
  const index = /^vectors\/ivf\.([0-9a-f]{16})\.bin$/.exec(catalog.vectors[0].index[0])[1];
  const query = SITE_WORDS;
  const hints = { words: `${count}:${hashes}`, index };
  const guessed = await guessedWordFiles(query, hints.words);
  assert.ok(guessed.length >= 2); // the query's words and the special tokens' shard
  const opening = fetchOpening(url, { query, ...hints });
  const { guessed: brought } = await opening;
  assert.deepEqual(brought.map((f) => f.name).sort(), [catalog.vectors[0].index[0], ...guessed].sort());
  const after = server.requests.length;
  const engine = new Engine({ manifestUrl: url, opening, openingQuery: query, words: hints.words });
  await engine.search(query);
  const again = server.requests.slice(after);
  for (const name of brought.map((f) => `/bundle-partitioned/${f.name}`)) assert.ok(!again.includes(name), name);
  assert.equal(kinds(again).rows, 0);
});

test("given the words and pieces hints, the opening brings the query's word pieces beside its word rows: a word the site lacks waits for no piece file", async () => {
  const { server, url, catalog } = await served("bundle-partitioned");
  const { hashes, count } = catalog.encoders.static.words;
  const hints = { words: `${count}:${hashes}`, pieces: catalog.encoders.static.pieces.keyed.hash };
  const query = "quokka zyzzyvas cache"; // the site lacks the first two words
  const opening = fetchOpening(url, { query, ...hints });
  const brought = (await opening).guessed.map((f) => f.name);
  const pieces = guessedPieceFiles(query, hints.pieces);
  assert.ok(pieces.length > 0 && pieces.every((name) => brought.includes(name)), "every guessed piece file came");
  const after = server.requests.length;
  const engine = new Engine({ manifestUrl: url, opening, openingQuery: query, ...hints });
  const results = await engine.search(query);
  const again = server.requests.slice(after);
  assert.equal(kinds(again).words, 0);
  assert.deepEqual(again.filter((p) => p.includes("/pieces/")), [], "no piece file asked after the opening");
  const { url: other } = await served("bundle-partitioned");
  assert.deepEqual(results.map((r) => r.id), (await new Engine({ manifestUrl: other }).search(query)).map((r) => r.id));
});

test("a later query asks for its new words' pieces beside their rows, should the site lack them", { timeout: 20_000 }, async () => {
  let holding = false;
  let seen;
  const piecesAsked = new Promise((resolve) => { seen = resolve; });
  const server = await serve(PARITY, {
    hold: (path) => {
      if (!holding) return null;
      // a continuation piece's file: the reading's spelling check asks only for a word's first
      if (path.includes("/pieces/c")) seen();
      return path.includes("/words/") ? piecesAsked : null; // its rows wait until one is asked
    },
  });
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}bundle-partitioned/manifest.json` });
  engine.prefetchBudget = 0; // no idle prefetch: every piece file is asked by the query
  await engine.search(SITE_WORDS, { mode: "vector" });
  holding = true;
  const before = server.requests.length;
  const query = "quokka zyzzyvas cache";
  const results = await engine.search(query, { mode: "vector" });
  const read = kinds(server.requests.slice(before));
  assert.ok(read.words > 0 && read.pieces > 0, JSON.stringify(read));
  const want = JSON.parse(readFileSync(`${PARITY}expected-partitioned.json`, "utf8")).queries.find((q) => q.query === query);
  assert.deepEqual(results.map((r) => [r.id, r.score, r.vectorScore, r.lexicalScore, r.sectionScore]), want.vector);
});

test("a reader who saves data gets no word piece before the rows say the site lacks the word", async () => {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", { value: { connection: { saveData: true } }, configurable: true });
  try {
    const { server, url, catalog } = await served("bundle-partitioned");
    const { hashes, count } = catalog.encoders.static.words;
    const hints = { words: `${count}:${hashes}`, pieces: catalog.encoders.static.pieces.keyed.hash };
    const opening = fetchOpening(url, { query: SITE_WORDS, ...hints });
    assert.deepEqual((await opening).guessed.filter((f) => f.name.startsWith("pieces/")), []);
    const engine = new Engine({ manifestUrl: url, opening, openingQuery: SITE_WORDS, ...hints });
    // another query than the opening's first: the engine's own early ask, then a later query
    await engine.search("Cache-Control max-age", { mode: "vector" });
    await engine.search(SITE_WORDS, { mode: "vector" });
    assert.equal(kinds(server.requests).pieces, 0);
  } finally {
    if (saved) Object.defineProperty(globalThis, "navigator", saved);
    else delete globalThis.navigator;
  }
});

test("the special tokens' row is in the shard the page always names", async () => {
  const { catalog } = await served();
  const { hashes, count } = catalog.encoders.static.words;
  const frame = await guessedWordFiles("", `${count}:${hashes}`);
  assert.equal(frame.length, 1);
  const data = JSON.parse(inflateSync(readFileSync(`${PARITY}bundle/${frame[0]}`).subarray(0, -4)));
  assert.ok(wordEntry(data, FRAME, catalog.model.dim, frame[0]).tokens >= 1);
});

/**
 * A vector search for `query`, whose words the site lacks, on a server that holds the word
 * pieces until a file whose path holds `until` is asked for: only the probe ahead can ask
 * for one, so without it the search never ends. Checks the results against a search
 * nothing holds.
 */
async function piecesHeldUntil(query, until) {
  let seen;
  const asked = new Promise((resolve) => { seen = resolve; });
  const server = await serve(PARITY, {
    hold: (path) => {
      if (path.includes(until)) seen();
      return path.includes("/pieces/") ? asked : null;
    },
  });
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}bundle-partitioned/manifest.json` });
  await engine.open();
  const results = await engine.search(query, { mode: "vector" });
  const plain = await serve(PARITY);
  servers.push(plain);
  const want = await new Engine({ manifestUrl: `${plain.url}bundle-partitioned/manifest.json` }).search(query, { mode: "vector" });
  assert.ok(want.length > 0);
  assert.deepEqual(results.map((r) => [r.id, r.score]), want.map((r) => [r.id, r.score]));
}

test("while a word the site lacks waits for its word pieces, the bits its other words probe are asked for", { timeout: 20_000 }, async () => {
  await piecesHeldUntil("quokka zyzzyvas cache", "/vectors/bin.");
});

test("and then, once the reading keeps the query, the row blocks of their candidates", { timeout: 20_000 }, async () => {
  // words too short to be corrected: the reading keeps the query without their pieces
  // (a word it may correct holds the blocks until it is read: typed-reading.test.js)
  await piecesHeldUntil("quok zyzz cache", "/vectors/row");
});

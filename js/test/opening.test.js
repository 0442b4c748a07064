// What a page fetches for the engine before the engine is made (engine/opening.js): the
// engine reads the catalog and the guessed files (word pieces, keyword shards, page
// table) from it, asking for none of them again, and asks itself when the page's fetch
// failed or a file does not hold.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { fetchOpening } from "../src/engine/opening.js";
import { guessedPieceFiles } from "../src/bundle/piece-names.js";
import { bucketOf } from "../src/bundle/bundle.js";
import { analyze, stem } from "../src/engine/lexical.js";
import { casedWords } from "../src/text/cased-words.js";
import { guessStem, guessedKeywordFiles, keywordsHint } from "../src/engine/guessed-keywords.js";
import { serve } from "./serve.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const QUERY = "service worker offline cache";
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function served() {
  const server = await serve(BUNDLE);
  servers.push(server);
  return { server, url: `${server.url}manifest.json` };
}

const opens = (paths) => paths.filter((p) => p === "/manifest.json" || p.startsWith("/catalog"));
const ids = (results) => results.map((r) => r.id);

test("an engine given the page's opening asks for neither the manifest nor the catalog", async () => {
  const { server, url } = await served();
  const opening = fetchOpening(url);
  await opening;
  assert.deepEqual(opens(server.requests).sort(), ["/catalog.json", "/manifest.json"]);
  const engine = new Engine({ manifestUrl: url, opening });
  const [loaded, results] = await Promise.all([engine.load(), engine.search(QUERY)]);
  assert.ok(loaded.chunks > 0);
  assert.deepEqual(opens(server.requests).sort(), ["/catalog.json", "/manifest.json"]);
  const { url: other } = await served();
  assert.deepEqual(ids(results), ids(await new Engine({ manifestUrl: other }).search(QUERY)));
});

test("when the page's fetch failed the engine asks itself", async () => {
  const { server, url } = await served();
  const opening = Promise.reject(new Error("offline"));
  const engine = new Engine({ manifestUrl: url, opening });
  assert.ok((await engine.search(QUERY)).length > 0);
  assert.deepEqual(opens(server.requests).sort(), ["/catalog.json", "/manifest.json"]);
});

test("given the query and the page's hash, the opening brings its words' piece files, and the engine reads them from it", async () => {
  const { server, url } = await served();
  const catalog = JSON.parse(readFileSync(join(BUNDLE, "catalog.json"), "utf8"));
  const hash = catalog.encoders.static.pieces.keyed.hash;
  const opening = fetchOpening(url, { query: QUERY, pieces: hash });
  const { guessed: pieces } = await opening;
  assert.deepEqual(pieces.map((file) => file.name).sort(), guessedPieceFiles(QUERY, hash).sort());
  assert.ok(pieces.length > 0 && pieces.every((file) => file.buffer.byteLength > 4));
  const asked = server.requests.length;
  const results = await new Engine({ manifestUrl: url, opening }).search(QUERY);
  const again = server.requests.slice(asked).filter((path) => pieces.some((file) => `/${file.name}` === path));
  assert.deepEqual(again, [], "a piece file the opening brought was asked for again");
  const { url: other } = await served();
  assert.deepEqual(ids(results), ids(await new Engine({ manifestUrl: other }).search(QUERY)));
});

test("a piece file the opening brought that does not hold is fetched again, and a stale hash costs nothing else", async () => {
  const { server, url } = await served();
  const catalog = JSON.parse(readFileSync(join(BUNDLE, "catalog.json"), "utf8"));
  const hash = catalog.encoders.static.pieces.keyed.hash;
  const QUERY = "why service worker cache"; // "why" is no word of the site's: its pieces are read
  const opening = fetchOpening(url, { query: QUERY, pieces: hash }).then((open) => ({
    ...open, guessed: open.guessed.map((file) => ({ name: file.name, buffer: new ArrayBuffer(8) })),
  }));
  const results = await new Engine({ manifestUrl: url, opening }).search(QUERY);
  const twice = (await opening).guessed.filter((file) => server.requests.filter((p) => p === `/${file.name}`).length === 2);
  assert.ok(twice.length > 0, "the damaged files were fetched again");
  const { url: other } = await served();
  assert.deepEqual(ids(results), ids(await new Engine({ manifestUrl: other }).search(QUERY)));
  const stale = await fetchOpening(other, { query: QUERY, pieces: "0123456789abcdef" }); // 404s
  assert.deepEqual(stale.guessed, []);
  assert.deepEqual(ids(await new Engine({ manifestUrl: other, opening: Promise.resolve(stale) }).search(QUERY)), ids(results));
});

test("an engine told the hash asks for a query's piece files before its catalog has come", { timeout: 20_000 }, async () => {
  let release;
  const manifestHeld = new Promise((resolve) => { release = resolve; });
  let sawPieces;
  const piecesAsked = new Promise((resolve) => { sawPieces = resolve; });
  const server = await serve(BUNDLE, {
    hold: (path) => {
      if (path.startsWith("/pieces/")) sawPieces();
      return path === "/manifest.json" ? manifestHeld : null;
    },
  });
  servers.push(server);
  const catalog = JSON.parse(readFileSync(join(BUNDLE, "catalog.json"), "utf8"));
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json`, pieces: catalog.encoders.static.pieces.keyed.hash });
  const answer = engine.search(QUERY);
  await piecesAsked; // would never resolve if the engine waited for the manifest
  assert.equal(server.requests.filter((p) => p.startsWith("/catalog")).length <= 1, true);
  release();
  assert.ok((await answer).length > 0);
});

test("while the page's opening is on its way, the engine asks for none of the piece files it brings, only for those of other words", { timeout: 20_000 }, async () => {
  let release;
  const manifestHeld = new Promise((resolve) => { release = resolve; });
  const catalog = JSON.parse(readFileSync(join(BUNDLE, "catalog.json"), "utf8"));
  const hash = catalog.encoders.static.pieces.keyed.hash;
  const brought = new Set(guessedPieceFiles(QUERY, hash).map((name) => `/${name}`));
  const query = `${QUERY} zebra`;
  const others = guessedPieceFiles(query, hash).map((name) => `/${name}`).filter((path) => !brought.has(path));
  assert.ok(others.length > 0);
  let sawOthers;
  const othersAsked = new Promise((resolve) => { sawOthers = resolve; });
  const server = await serve(BUNDLE, {
    hold: (path) => {
      if (path === others.at(-1)) sawOthers();
      return path === "/manifest.json" ? manifestHeld : null;
    },
  });
  servers.push(server);
  const url = `${server.url}manifest.json`;
  const opening = fetchOpening(url, { query: QUERY, pieces: hash });
  const engine = new Engine({ manifestUrl: url, opening, openingQuery: QUERY, pieces: hash });
  const answer = engine.search(query);
  await othersAsked; // asked before the catalog could name them
  release();
  assert.ok((await answer).length > 0);
  const twice = [...brought].filter((path) => server.requests.filter((p) => p === path).length > 1);
  assert.deepEqual(twice, [], "a piece file the opening was bringing was asked for again");
});

/** The page's hints for the parity bundle, as the plugin writes them into its pages. */
function hints() {
  const catalog = JSON.parse(readFileSync(join(BUNDLE, "catalog.json"), "utf8"));
  const { hashes, count } = catalog.lexical.shards;
  const pages = /^pages\/pages\.([0-9a-f]{16})\.bin$/.exec(catalog.pages.table[0])[1];
  return { catalog, pieces: catalog.encoders.static.pieces.keyed.hash, keywords: `${count}:${hashes}`, pages };
}

test("given the page's hints, the opening brings the page table and the query's keyword shards, and the engine asks for none of them again", async () => {
  const { server, url } = await served();
  const { catalog, ...given } = hints();
  const opening = fetchOpening(url, { query: QUERY, ...given });
  const { guessed } = await opening;
  const names = guessed.map((file) => file.name);
  assert.ok(names.includes(catalog.pages.table[0]), "the page table came");
  const { hashes, count } = catalog.lexical.shards;
  const terms = [...new Set(analyze(QUERY, new Set(catalog.lexical.stopwords)))];
  const shards = [...new Set(await Promise.all(terms.map((term) => bucketOf(term, count))))]
    .map((n) => `lexical/lex${n}.${hashes.slice(8 * n, 8 * n + 8)}.json`);
  assert.deepEqual(names.filter((name) => name.startsWith("lexical/")).sort(), shards.sort());
  const asked = server.requests.length;
  // told the hints too, the engine asks early for none of what the opening brings
  const results = await new Engine({ manifestUrl: url, opening, openingQuery: QUERY, pieces: given.pieces,
    keywords: given.keywords }).search(QUERY);
  const again = server.requests.slice(asked).filter((path) => names.includes(path.slice(1)));
  assert.deepEqual(again, [], "a file the opening brought was asked for again");
  const { url: other } = await served();
  assert.deepEqual(ids(results), ids(await new Engine({ manifestUrl: other }).search(QUERY)));
});

test("hints that are malformed name nothing, and stale ones cost only their requests", async () => {
  const { url } = await served();
  for (const bad of [null, "", "0123456789abcdef", "0123456789abcdef:0", "0123456789abcdef:2", "0:", "2:0123456789abcdef00",
    "2:0123456789ABCDEF", "x:3", 7]) {
    assert.equal(keywordsHint(bad), null);
    assert.deepEqual(await guessedKeywordFiles(QUERY, bad), []);
  }
  const stale = await fetchOpening(url, { query: QUERY, keywords: "2:0123456789abcdef", pages: "0123456789abcdef" }); // 404s
  assert.deepEqual(stale.guessed, []);
  const { url: other } = await served();
  const results = await new Engine({ manifestUrl: url, opening: Promise.resolve(stale) }).search(QUERY);
  assert.deepEqual(ids(results), ids(await new Engine({ manifestUrl: other }).search(QUERY)));
});

test("the opening's stemmer names the engine's shards for the analyzer's parity texts", async () => {
  const { texts, stopwords } = JSON.parse(readFileSync(fileURLToPath(new URL("../../tests/fixtures/parity/analyzer.json", import.meta.url)), "utf8"));
  const hashes = "0123abcd".repeat(4096);
  const hint = `4096:${hashes}`;
  // the engine reads the shards of the query's terms and of its words typed with capitals
  for (const text of [...texts.map(([text]) => text), "RETURNING *", "Depends"]) {
    const terms = [...new Set([...analyze(text, new Set(stopwords)), ...casedWords(text)])];
    const engine = [...new Set(await Promise.all(terms.map((term) => bucketOf(term, 4096))))]
      .map((n) => `lexical/lex${n}.0123abcd.json`);
    assert.deepEqual((await guessedKeywordFiles(text, hint)).sort(), engine.sort(), JSON.stringify(text));
  }
});

test("the opening's stemmer stems nearly every word of the project's docs as Snowball's Porter does", () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const words = new Set();
  for (const file of ["README.md", ...readdirSync(join(root, "docs")).filter((n) => n.endsWith(".md")).map((n) => join("docs", n))]) {
    for (const [word] of readFileSync(join(root, file), "utf8").matchAll(/[\p{L}\p{N}_]+/gu)) words.add(word.toLowerCase());
  }
  const differ = [...words].filter((word) => guessStem(word) !== stem(word));
  assert.ok(words.size > 2000);
  assert.ok(differ.length <= words.size / 500, `${differ.length} of ${words.size} words stem otherwise: ${differ.join(", ")}`);
});

test("an engine told the keyword hint asks for a query's keyword shards before its catalog has come", { timeout: 20_000 }, async () => {
  let release;
  const manifestHeld = new Promise((resolve) => { release = resolve; });
  const { catalog, keywords } = hints();
  const shards = (await guessedKeywordFiles(QUERY, keywords)).map((name) => `/${name}`);
  assert.ok(shards.length > 0);
  let sawShards;
  const shardsAsked = new Promise((resolve) => { sawShards = resolve; });
  const server = await serve(BUNDLE, {
    hold: (path) => {
      if (shards.every((shard) => server.requests.includes(shard))) sawShards();
      return path === "/manifest.json" ? manifestHeld : null;
    },
  });
  servers.push(server);
  const engine = new Engine({ manifestUrl: `${server.url}manifest.json`, keywords });
  const answer = engine.search(QUERY);
  await shardsAsked; // would never resolve if the engine waited for the manifest
  release();
  const results = await answer;
  assert.ok(results.length > 0);
  const twice = shards.filter((path) => server.requests.filter((p) => p === path).length > 1);
  assert.deepEqual(twice, [], "a keyword shard was asked for twice");
  assert.ok(catalog.lexical.shards.count > 1);
});

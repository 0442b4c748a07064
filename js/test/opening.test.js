// What a page fetches for the engine before the engine is made (engine/opening.js): the
// engine reads the catalog and the guessed word piece files from it, asking for none of
// them again, and asks itself when the page's fetch failed or a file does not hold.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { fetchOpening } from "../src/engine/opening.js";
import { guessedPieceFiles } from "../src/bundle/piece-names.js";
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
  const { pieces } = await opening;
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
  const opening = fetchOpening(url, { query: QUERY, pieces: hash }).then((open) => ({
    ...open, pieces: open.pieces.map((file) => ({ name: file.name, buffer: new ArrayBuffer(8) })),
  }));
  const results = await new Engine({ manifestUrl: url, opening }).search(QUERY);
  const twice = (await opening).pieces.filter((file) => server.requests.filter((p) => p === `/${file.name}`).length === 2);
  assert.ok(twice.length > 0, "the damaged files were fetched again");
  const { url: other } = await served();
  assert.deepEqual(ids(results), ids(await new Engine({ manifestUrl: other }).search(QUERY)));
  const stale = await fetchOpening(other, { query: QUERY, pieces: "0123456789abcdef" }); // 404s
  assert.deepEqual(stale.pieces, []);
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

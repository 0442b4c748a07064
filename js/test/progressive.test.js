// Progressive search: keyword results while the query encoder loads, then the final
// ranking; aborted searches report nothing. The vector parts are held back by the
// server until the test releases them, so no step depends on timing.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { serve } from "./serve.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const QUERY = "service worker offline cache";
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

/** The parity bundle served with its vector parts held until `release()`. */
async function heldVectors() {
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  const server = await serve(BUNDLE, { hold: (path) => (path.startsWith("/vectors/") ? released : null) });
  servers.push(server);
  return { release, engine: new Engine({ manifestUrl: `${server.url}manifest.json` }) };
}

async function reference(query, options) {
  const server = await serve(BUNDLE);
  servers.push(server);
  return new Engine({ manifestUrl: `${server.url}manifest.json` }).search(query, options);
}

const ids = (results) => results.map((r) => r.id);

const HANG_GUARD = { timeout: 60_000 };

test("keyword results come first while the vectors load, then the final ranking", HANG_GUARD, async () => {
  const { release, engine } = await heldVectors();
  const partials = [];
  let settled = false;
  let firstPartial;
  const partial = new Promise((resolve) => { firstPartial = resolve; });
  const final = engine.search(QUERY, {
    onPartial: (results, info) => {
      partials.push({ results, info });
      firstPartial();
    },
  });
  final.then(() => { settled = true; }, () => {});
  await partial; // the keyword results need no vectors: they come while the search waits
  assert.equal(settled, false);
  assert.equal(partials[0].info.ranking, "keyword");
  assert.deepEqual(ids(partials[0].results), ids(await reference(QUERY, { mode: "lexical" })));
  release();
  assert.deepEqual(ids(await final), ids(await reference(QUERY)));
  assert.equal(partials.length, 1);
  // the encoder is ready now: the next query reports its final ranking only
  const later = [];
  const results = await engine.search("offline support", { onPartial: (r) => later.push(r) });
  assert.ok(results.length);
  assert.deepEqual(later, []);
});

test("an aborted search rejects with the signal's reason and reports nothing", HANG_GUARD, async () => {
  const { release, engine } = await heldVectors();
  const controller = new AbortController();
  const partials = [];
  const stopped = engine.search(QUERY, { signal: controller.signal, onPartial: (r) => partials.push(r) });
  controller.abort(new Error("a newer key"));
  await assert.rejects(stopped, /a newer key/);
  // the keyword search it started has finished by the time a new one has
  await engine.search(QUERY, { mode: "lexical" });
  assert.deepEqual(partials, []);
  release();
  assert.deepEqual(ids(await engine.search(QUERY)), ids(await reference(QUERY)));
});

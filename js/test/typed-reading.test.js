// A query is scored as typed while it is read (engine.js #rank): a word the site does not
// use may be corrected, so what the typed vector picks (its candidates' row blocks and
// their pages' fragments) waits for the reading, while its bits are asked for at once.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { serve } from "./serve.js";

const PARITY = fileURLToPath(new URL("../../tests/fixtures/parity/", import.meta.url));
const servers = [];
after(() => Promise.all(servers.map((server) => server.close())));

/** The files of `kinds` (path patterns) a first query asks for, and its answer. */
async function asked(server, query, kinds, options = {}) {
  const before = server.requests.length;
  const engine = new Engine({ manifestUrl: `${server.url}bundle-partitioned/manifest.json` });
  engine.prefetchBudget = 0;
  const answer = await engine.answer(query, options);
  const files = new Set(server.requests.slice(before).filter((path) => kinds.test(path)));
  return { files, answer };
}

test("a corrected query asks for none of the row blocks and fragments its vector as typed picks", async () => {
  const server = await serve(PARITY);
  servers.push(server);
  const blocksAndFragments = /\/(vectors\/row|fragments\/frag)/;
  // one word the site does not use: nothing but the vector as typed picks pages
  for (const query of ["sevice", "ofline", "instll"]) {
    const slipped = await asked(server, query, blocksAndFragments);
    const meant = slipped.answer.reading.text;
    assert.notEqual(meant, query, `${query} is corrected`);
    const typed = await asked(server, query, blocksAndFragments, { asTyped: true });
    const corrected = await asked(server, meant, blocksAndFragments);
    const typedOnly = [...typed.files].filter((file) => !corrected.files.has(file));
    assert.ok(typedOnly.length > 0, `${query}: its words as typed read files the corrected query does not`);
    assert.deepEqual(typedOnly.filter((file) => slipped.files.has(file)), [], query);
    assert.deepEqual(slipped.answer.results.map((r) => [r.id, r.score]),
      corrected.answer.results.map((r) => [r.id, r.score]), query);
  }
});

test("a corrected query still asks for the bits its words as typed probe", async () => {
  const server = await serve(PARITY);
  servers.push(server);
  const bits = /\/vectors\/bin/;
  const slipped = await asked(server, "sevice", bits);
  const typed = await asked(server, "sevice", bits, { asTyped: true });
  assert.ok(typed.files.size > 0);
  for (const file of typed.files) assert.ok(slipped.files.has(file), file);
});

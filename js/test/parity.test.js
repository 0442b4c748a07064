// The JS engine against the Python reference searcher on the same real bundle
// (tests/fixtures/parity, written by tests/fixtures/make_parity.py): identical query
// codes and identical top 10 (chunks and scores) in every mode.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine.js";
import { queryCodes } from "../src/scan.js";
import { serve } from "./serve.js";

const PARITY = fileURLToPath(new URL("../../tests/fixtures/parity/", import.meta.url));
const expected = JSON.parse(readFileSync(`${PARITY}expected.json`, "utf8"));
let server;
let engine;

before(async () => {
  server = await serve(PARITY);
  engine = new Engine({ manifestUrl: `${server.url}bundle/manifest.json` });
});
after(() => server.close());

const rows = (results) => results.map((r) => [r.id, r.score, r.vectorScore, r.lexicalScore]);

for (const [i, q] of expected.queries.entries()) {
  test(`query ${i} (${q.query.slice(0, 40)}): same codes and top ${expected.top_k}`, async () => {
    const codes = await engine.embed(q.query);
    assert.deepEqual(codes === null ? null : Array.from(codes), q.codes);
    const plain = await engine.searchVector(q.query, { topK: expected.top_k });
    assert.deepEqual(plain.map((r) => [r.id, r.score]), q.plain);
    for (const mode of ["vector", "lexical", "hybrid"]) {
      const results = await engine.search(q.query, { mode, topK: expected.top_k });
      assert.deepEqual(rows(results), q[mode], mode);
    }
  });
}

test("a filtered query ranks as the Python searcher does", async () => {
  const { query, filters, mode, results } = expected.filtered;
  assert.deepEqual(rows(await engine.search(query, { mode, filters, topK: expected.top_k })), results);
});

test("results carry the page and section fields the UI shows", async () => {
  const [hit] = await engine.search("ETag", { topK: 1 });
  assert.deepEqual(Object.keys(hit).sort(), ["anchor", "excerpt", "id", "kind", "lexicalScore", "path",
    "score", "section", "sectionScore", "title", "url", "vectorScore"]);
  assert.equal(hit.url, "reference/");
  assert.equal(hit.section, "Reference");
});

test("query codes round halves up, as query_codes does", () => {
  for (const [vector, codes] of expected.synthetic_codes) {
    assert.deepEqual(Array.from(queryCodes(Int32Array.from(vector))), codes);
  }
});

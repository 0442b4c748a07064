// The JS engine against the Python reference searcher on the same real bundle
// (tests/fixtures/parity, written by tests/fixtures/parity/make.py), with no browser:
// payloads come over HTTP from 127.0.0.1 through the engine's own fetches. Identical
// query codes and identical top 10 (chunks and scores) in every mode, identical results
// for the ranking edge cases, the same refusals, and the analyzer's terms.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { excerptParts, excerptWindow } from "../src/text/excerpt.js";
import { queryTerms } from "../src/text/highlight.js";
import { analyze } from "../src/engine/lexical.js";
import { queryCodes } from "../src/engine/scan.js";
import { headingName, namesAThing, writesName } from "../src/engine/ranking.js";
import { casedWords } from "../src/text/cased-words.js";
import { serve } from "./serve.js";
import { bucketOf } from "../src/bundle/bundle.js";

const PARITY = fileURLToPath(new URL("../../tests/fixtures/parity/", import.meta.url));
const expected = JSON.parse(readFileSync(`${PARITY}expected.json`, "utf8"));
const analyzer = JSON.parse(readFileSync(`${PARITY}analyzer.json`, "utf8"));
const excerpts = JSON.parse(readFileSync(`${PARITY}excerpts.json`, "utf8"));
// The same site in both vector layouts (make.py): every answer must match Python's.
const LAYOUTS = {
  exact: { folder: "bundle", expected },
  partitioned: { folder: "bundle-partitioned", expected: JSON.parse(readFileSync(`${PARITY}expected-partitioned.json`, "utf8")) },
};
let server;
let engine;
const engines = {};

before(async () => {
  server = await serve(PARITY);
  for (const [layout, { folder }] of Object.entries(LAYOUTS)) {
    engines[layout] = new Engine({ manifestUrl: `${server.url}${folder}/manifest.json` });
  }
  engine = engines.exact;
});
after(() => server.close());

const rows = (results) => results.map((r) => [r.id, r.score, r.vectorScore, r.lexicalScore, r.sectionScore]);

/** The Python searcher's search options, as the engine names them. */
function engineOptions({ mode, top_k: topK, filters, min_score: minScore }) {
  return { mode, topK, filters, minScore };
}

for (const [layout, { expected: want }] of Object.entries(LAYOUTS)) {
  for (const [i, q] of want.queries.entries()) {
    test(`${layout}: query ${i} (${q.query.slice(0, 40)}): same codes and top ${want.top_k}`, async () => {
      const codes = await engines[layout].embed(q.query);
      assert.deepEqual(codes === null ? null : Array.from(codes), q.codes);
      const plain = await engines[layout].searchVector(q.query, { topK: want.top_k });
      assert.deepEqual(plain.map((r) => [r.id, r.score]), q.plain);
      for (const mode of ["vector", "lexical", "hybrid"]) {
        const results = await engines[layout].search(q.query, { mode, topK: want.top_k });
        assert.deepEqual(rows(results), q[mode], mode);
      }
    });
  }

  test(`${layout}: a filtered query ranks as the Python searcher does`, async () => {
    const { query, filters, mode, results } = want.filtered;
    assert.deepEqual(rows(await engines[layout].search(query, { mode, filters, topK: want.top_k })), results);
  });

  for (const { query, typing, text, changes, results } of want.spelling) {
    test(`${layout}: reading ${JSON.stringify(query)}${typing ? " while typing" : ""}`, async () => {
      const answer = await engines[layout].answer(query, { typing, topK: want.top_k });
      assert.equal(answer.reading.text, text);
      assert.deepEqual(answer.reading.changes.map((c) => [c.typed, c.used, c.kind]), changes);
      assert.deepEqual(rows(answer.results), results);
    });
  }

  for (const { name, query, options, results } of want.cases) {
    test(`${layout}: ranking case: ${name}`, async () => {
      assert.deepEqual(rows(await engines[layout].search(query, engineOptions(options))), results);
    });
  }
}

for (const { name, query, options } of expected.refused) {
  test(`refused like the Python searcher: ${name}`, async () => {
    await assert.rejects(engine.search(query, engineOptions(options)),
      /^Error: (unknown filter|unknown mode|topK must be between 1 and 1000)/);
  });
}

test("the analyzer makes Python's terms", async () => {
  await engine.open();
  assert.deepEqual(engine.catalog.lexical.stopwords, analyzer.stopwords);
  const stopwords = new Set(analyzer.stopwords);
  for (const [text, terms] of analyzer.texts) assert.deepEqual(analyze(text, stopwords), terms, text);
});

test("a term's shard in a keyed list is Python's", async () => {
  assert.ok(analyzer.buckets.length > 400);
  for (const [term, count, bucket] of analyzer.buckets) {
    assert.equal(await bucketOf(term, count), bucket, `${term} among ${count}`);
  }
});

test("a lone surrogate's shard is the replacement character's, as Python has it", async () => {
  assert.equal(await bucketOf("a\ud800b", 4096), await bucketOf("a\ufffdb", 4096));
});

test("excerpt windows are Python's: the query's terms and the window shown", () => {
  assert.ok(excerpts.cases.length > 20);
  for (const { stored, query, terms, window } of excerpts.cases) {
    assert.deepEqual(queryTerms(query), terms, query);
    const shown = excerptWindow(excerptParts(stored), terms).map((part) => [part.text, part.code]);
    assert.deepEqual(shown, window, `${query}: ${JSON.stringify(stored).slice(0, 80)}`);
  }
});

test("results carry the page and section fields the UI shows", async () => {
  const [hit] = await engine.search("ETag", { topK: 1 });
  assert.deepEqual(Object.keys(hit).sort(), ["anchor", "excerpt", "excerptParts", "id", "kind", "lexicalScore", "path",
    "score", "section", "sectionScore", "title", "url", "vectorScore"]);
  assert.equal(hit.url, "reference/");
  assert.equal(hit.section, "Reference");
});

test("query codes round halves up, as query_codes does", () => {
  for (const [vector, codes] of expected.synthetic_codes) {
    assert.deepEqual(Array.from(queryCodes(Int32Array.from(vector))), codes);
  }
});

test("an aborted search stops with the signal's reason; the next one answers", async () => {
  const fresh = new Engine({ manifestUrl: `${server.url}bundle/manifest.json` });
  const { query, hybrid } = expected.queries[0];
  const before = new AbortController();
  before.abort();
  await assert.rejects(fresh.search(query, { signal: before.signal }), { name: "AbortError" });
  // Aborted while its shards download: it stops before ranking and the excerpts.
  const during = new AbortController();
  const stopped = fresh.search(query, { signal: during.signal });
  during.abort();
  await assert.rejects(stopped, { name: "AbortError" });
  assert.deepEqual(rows(await fresh.search(query, { topK: expected.top_k })), hybrid);
});

test("a query's words typed with capitals are those the Python searcher finds", () => {
  assert.ok(expected.cased.some(([, words]) => words.length > 1));
  assert.deepEqual(expected.cased.map(([query]) => [query, casedWords(query)]), expected.cased);
});

test("keyword scores keep a word typed with capitals whole where Python does", async () => {
  await engine.open();
  for (const [query, typed, want] of expected.cased_scores) {
    const { scores } = await engine.lexical.scores(query, { typed });
    const got = [...scores.entries()].filter(([, score]) => score).map(([chunk, score]) => [chunk, score]);
    assert.deepEqual(got, want, `${query} typed ${typed}`);
  }
  // the rule changes scores, and a reading's capitals the reader did not type do not count
  const [plain, read] = expected.cased_scores.slice(0, 2).map(([, , want]) => JSON.stringify(want));
  assert.notEqual(plain, read);
});

test("a query names something exactly where the Python searcher says so", () => {
  assert.deepEqual(expected.names.map(([query]) => [query, namesAThing(query)]), expected.names);
});

test("the name looked for in headings, and the headings that write it, are Python's", () => {
  assert.ok(expected.heading_names.some(([, name]) => name === null));
  assert.ok(expected.writes_name.some(([, , writes]) => writes));
  assert.ok(expected.writes_name.some(([, , writes]) => !writes));
  assert.deepEqual(expected.heading_names.map(([query]) => [query, headingName(query)]),
    expected.heading_names);
  assert.deepEqual(expected.writes_name.map(([heading, name]) => [heading, name, writesName(heading, name)]),
    expected.writes_name);
});

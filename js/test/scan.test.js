import assert from "node:assert/strict";
import { test } from "node:test";
import { makeFilter } from "../src/engine.js";
import { scoreAll, topK } from "../src/scan.js";
import { Chunks } from "../src/bundle.js";

test("scores are dot products divided by the scale", () => {
  const matrix = { rows: 3, dim: 2, data: Int8Array.from([10, 0, 0, 10, 5, 5]) };
  assert.deepEqual(Array.from(scoreAll(matrix, [1, 0.5], 10)), [1, 0.5, 0.75]);
});

test("top k is highest first, ties by chunk number, filters respected", () => {
  const scores = [0.5, 0.9, 0.5, 0.1, 0.9, 0.7];
  assert.deepEqual(topK(scores, 4), [1, 4, 5, 0]);
  assert.deepEqual(topK(scores, 10), [1, 4, 5, 0, 2, 3]);
  assert.deepEqual(topK(scores, 2, (id) => id % 2 === 0), [4, 0]);
});

test("filters follow the manifest's keys: section, tags and facets, any value per key", () => {
  const chunks = new Chunks({
    pages: [["a/", "A", "Guide", { tags: ["x"] }, 1], ["b/", "B", "API", {}, 1]],
    chunks: [[0, "", [], "", "p"], [1, "h", ["H"], "", "s"]],
  });
  const keys = ["section", "tags"];
  assert.equal(makeFilter({}, chunks, keys), undefined);
  const guide = makeFilter({ section: ["Guide", "Other"] }, chunks, keys);
  assert.deepEqual([0, 1].filter(guide), [0]);
  const tagged = makeFilter({ tags: ["x"], section: ["API"] }, chunks, keys);
  assert.deepEqual([0, 1].filter(tagged), []);
  assert.throws(() => makeFilter({ version: ["1"] }, chunks, keys), /unknown filter "version".*section, tags/);
});

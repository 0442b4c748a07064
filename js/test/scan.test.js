import assert from "node:assert/strict";
import { test } from "node:test";
import { makeFilter } from "../src/engine.js";
import { codesNorm, queryCodes, scoreAll, topK } from "../src/scan.js";

test("int8 scores are integer dot products divided once by scale * |codes|", () => {
  const set = { dtype: "i8", dim: 2, scale: 10, parts: [
    { rows: 2, data: Int8Array.from([10, 0, 0, 10]) },
    { rows: 1, data: Int8Array.from([5, 5]) },
  ] };
  const codes = Int8Array.from([4, 3]);
  assert.equal(codesNorm(codes), 5);
  assert.deepEqual(Array.from(scoreAll(set, codes)), [40 / 50, 30 / 50, 35 / 50]);
  const floats = { dtype: "f32", dim: 2, scale: 1, parts: [{ rows: 1, data: Float32Array.from([0.5, 0.25]) }] };
  assert.deepEqual(Array.from(scoreAll(floats, [1, 2])), [1]);
  assert.equal(queryCodes([0, 0]), null);
});

test("top k is highest first, ties by chunk number, filters respected", () => {
  const scores = [0.5, 0.9, 0.5, 0.1, 0.9, 0.7];
  assert.deepEqual(topK(scores, 4), [1, 4, 5, 0]);
  assert.deepEqual(topK(scores, 10), [1, 4, 5, 0, 2, 3]);
  assert.deepEqual(topK(scores, 2, (id) => id % 2 === 0), [4, 0]);
});

test("filters follow the catalog's facets: section, tags and facets, any value per key", () => {
  const facets = { section: { Guide: [0], API: [1] }, tags: { x: [0] } };
  const context = { facets, pageOfChunk: [0, 1], allowed: ["section", "tags"] };
  assert.equal(makeFilter({}, context), undefined);
  const guide = makeFilter({ section: ["Guide", "Other"] }, context);
  assert.deepEqual([0, 1].filter(guide), [0]);
  const tagged = makeFilter({ tags: ["x"], section: ["API"] }, context);
  assert.deepEqual([0, 1].filter(tagged), []);
  assert.deepEqual([0, 1].filter(makeFilter({ section: ["constructor", "__proto__"] }, context)), []);
  assert.throws(() => makeFilter({ version: ["1"] }, context), /unknown filter "version".*section, tags/);
});

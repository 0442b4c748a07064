import assert from "node:assert/strict";
import { test } from "node:test";
import { makeFilter } from "../src/engine/engine.js";
import {
  blocksHolding, candidateIds, chunksOfRows, codesNorm, meanScore, probedPartitions, queryCodes, scoreAll,
  scorePartitions, signScores, signTables, topK, unitLength,
} from "../src/engine/scan.js";

/** Sign bits of int8 rows, least significant bit first (partitions.sign_bits). */
function signBits(rows, dim) {
  const width = Math.ceil(dim / 8);
  const bits = new Uint8Array(rows.length * width);
  rows.forEach((row, r) => row.forEach((x, d) => {
    if (x >= 0) bits[r * width + (d >> 3)] |= 1 << (d & 7);
  }));
  return bits;
}

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

test("a static query against float vectors is scaled to unit length", () => {
  assert.deepEqual(Array.from(unitLength(Int32Array.from([3, -4]))), [0.6, -0.8]);
  assert.deepEqual(Array.from(unitLength([0, 0])), [0, 0]);
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

test("sign scores add the codes where the bit is set and subtract the rest (partitions.sign_scores)", () => {
  const rows = [[1, -2, 0, 5], [-1, -1, -1, -1], [3, 3, 3, 3]];
  const bits = signBits(rows, 4);
  assert.deepEqual(Array.from(bits), [0b1101, 0, 0b1111]);
  const tables = signTables(Int8Array.from([1, 2, 3, 4]));
  assert.deepEqual(Array.from(signScores(bits, 3, tables)), [1 - 2 + 3 + 4, -10, 10]);
  // more than 8 dimensions: bit d of byte d >> 3; the padding bits count nothing
  const wide = [Array.from({ length: 11 }, (_, d) => (d === 9 ? 4 : -1))];
  assert.deepEqual(Array.from(signBits(wide, 11)), [0, 0b10]);
  const codes = Int8Array.from({ length: 11 }, (_, d) => d + 1);
  const sum = Array.from(codes).reduce((a, b) => a + b, 0);
  assert.deepEqual(Array.from(signScores(Uint8Array.from([0, 0b10]), 1, signTables(codes))), [2 * 10 - sum]);
});

test("the probe takes partitions by sign score until they hold enough rows; candidates by score, then chunk", () => {
  const centroids = signBits([[1, 1], [-1, -1], [1, -1], [-1, 1]], 2);
  const sizes = Uint32Array.from([5, 5, 5, 5]);
  const tables = signTables(Int8Array.from([3, 1])); // scores 4, -4, 2, -2
  assert.deepEqual(probedPartitions(centroids, sizes, tables, 1), [0]);
  assert.deepEqual(probedPartitions(centroids, sizes, tables, 5), [0]);
  assert.deepEqual(probedPartitions(centroids, sizes, tables, 6), [0, 2]);
  assert.deepEqual(probedPartitions(centroids, sizes, tables, 100), [0, 2, 3, 1]);
  assert.deepEqual(probedPartitions(centroids, sizes, signTables(Int8Array.from([1, 1])), 20), [0, 2, 3, 1]);
  const parts = [
    { firsts: Uint32Array.from([3, 7]), bits: signBits([[1, 1], [1, -1]], 2) }, // scores 4, 2
    { firsts: Uint32Array.from([4, 9]), bits: signBits([[1, 1], [-1, -1]], 2) }, // scores 4, -4
  ];
  assert.deepEqual(candidateIds(parts, tables, 3), [3, 4, 7]); // rows, by their first chunk
});

test("candidates' exact scores, NaN elsewhere; the mean score from the column sums", () => {
  const set = { dim: 2, scale: 10, chunks: 5 };
  const codes = Int8Array.from([4, 3]);
  const one = [{ start: 0, rows: 2 }];
  const parts = [{ ids: Uint32Array.from([1, 3]), rowOf: null, firsts: Uint32Array.from([1, 3]),
    blocks: one, blockRows: [Int8Array.from([10, 0, 0, 10])], wanted: new Set([3]) }];
  const scores = Array.from(scorePartitions(set, parts, codes));
  assert.deepEqual(scores.map(Number.isNaN), [true, true, true, false, true]);
  assert.equal(scores[3], 30 / 50);
  // chunks 0 and 4 share row 0, chunk 2 has row 1: a scored row scores all its chunks
  const shared = [{ ids: Uint32Array.from([0, 2, 4]), rowOf: Uint32Array.from([0, 1, 0]),
    firsts: Uint32Array.from([0, 2]), blocks: one, blockRows: [Int8Array.from([10, 0, 0, 10])], wanted: new Set([0]) }];
  const copies = Array.from(scorePartitions(set, shared, codes));
  assert.deepEqual(copies.map(Number.isNaN), [false, true, true, true, false]);
  assert.equal(copies[0], 40 / 50);
  assert.equal(copies[4], 40 / 50);
  // rows in two blocks, only the second read: its row is scored, the unread block's is not
  const blocks = [{ start: 0, rows: 1 }, { start: 1, rows: 1 }];
  const blocked = { ids: Uint32Array.from([1, 3]), rowOf: Uint32Array.from([1, 0]), firsts: Uint32Array.from([3, 1]),
    blocks, blockRows: [null, Int8Array.from([10, 0])] };
  assert.deepEqual(blocksHolding(blocked, new Set([1])), [blocks[1]]);
  const fromBlock = Array.from(scorePartitions(set, [{ ...blocked, wanted: new Set([1]) }], codes));
  assert.deepEqual(fromBlock.map(Number.isNaN), [true, false, true, true, true]);
  assert.equal(fromBlock[1], 40 / 50);
  assert.throws(() => scorePartitions(set, [{ ...blocked, wanted: new Set([3]) }], codes), /block 0 were not read/);
  assert.equal(meanScore({ dtype: "i8", scale: 10, sum: Float64Array.from([10, 10]) }, 2, codes), 70 / (2 * 50));
});

test("a candidate row stands for every chunk that shares it, in chunk order after it", () => {
  // partition 0: chunks 2, 5, 9, 12 in rows 0, 1, 0, 0 (9 and 12 copy 2); partition 1: one chunk a row
  const shared = { ids: Uint32Array.from([2, 5, 9, 12]), rowOf: Uint32Array.from([0, 1, 0, 0]),
                   firsts: Int32Array.from([2, 5]) };
  const plain = { ids: Uint32Array.from([3, 4]), rowOf: null, firsts: Uint32Array.from([3, 4]) };
  assert.deepEqual(chunksOfRows([shared, plain], [5, 2, 4]), [5, 2, 9, 12, 4]);
  assert.deepEqual(chunksOfRows([plain], [4, 3]), [4, 3]);
});

// The site's vocabulary read by shard (engine/vocabulary.js): flags and their checks, and
// the spelling shards a slip's candidates come from.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BundleError } from "../src/bundle/error.js";
import { ShardList } from "../src/bundle/shard-list.js";
import { Vocabulary, afterLongDashes, spellingKey, spellingRanges } from "../src/engine/vocabulary.js";

const entry = { first: "a", name: "vocabulary/words.0123456789abcdef.json", bytes: 1 };
const vocabularyOf = (shard) => new Vocabulary({
  shards: { between: async () => [entry] },
  spelling: null,
  load: async () => shard,
});

test("a shard's flags mark its entries written as long flags", async () => {
  const words = vocabularyOf({ words: ["work", "worker-class", "workers"], counts: [9, 2, 2],
    forms: [], flags: [1, 2] });
  assert.deepEqual(await words.starting(["wor"]), [
    { key: "work", count: 9, form: "work", flag: false },
    { key: "worker-class", count: 2, form: "worker-class", flag: true },
    { key: "workers", count: 2, form: "workers", flag: true },
  ]);
});

test("a shard whose flags are not ascending positions of its words is refused", async () => {
  for (const flags of [[1, 0], [2], [-1], ["0"], undefined]) {
    const words = vocabularyOf({ words: ["a", "b"], counts: [1, 1], forms: [], flags });
    await assert.rejects(words.starting(["a"]), (error) => error instanceof BundleError &&
      /is not a vocabulary shard/.test(error.message), String(flags));
  }
});

test("a long flag follows two dashes that follow no word character or dash", () => {
  for (const [text, start, flag] of [["--wor", 2, true], ["run --wor", 6, true],
    ["a--wor", 3, false], ["---wor", 3, false], ["_--wor", 3, false], ["-wor", 1, false],
    ["(--wor", 3, true], ["é--wor", 3, false]]) {
    assert.equal(afterLongDashes(text, start), flag, text);
  }
});

/** A vocabulary whose spelling shards hold `words` (sorted in spelling order), `size` a shard. */
function spellingOf(words, size) {
  const sorted = [...words].sort((a, b) => (spellingKey(a) < spellingKey(b) ? -1 : 1));
  const shards = new Map();
  const entries = [];
  for (let at = 0; at < sorted.length; at += size) {
    const name = `vocabulary/spell${entries.length}.0123456789abcdef.json`;
    const held = sorted.slice(at, at + size);
    shards.set(name, { words: held, counts: held.map((w) => w.length) });
    entries.push({ first: spellingKey(held[0]), name, bytes: 1 });
  }
  const read = new Set();
  const vocabulary = new Vocabulary({
    shards: null,
    spelling: new ShardList({ entries }, { loadJson: async () => { throw new Error("no directories"); } }),
    load: async (entry) => (read.add(entry.name), shards.get(entry.name)),
  });
  return { vocabulary, read, count: entries.length };
}

test("a slip's candidates are the words near its length that start with its first letters", async () => {
  const words = [];
  for (const a of "abcdefgh") for (const b of "abcdefgh") for (let n = 1; n <= 11; n++) words.push(`${a}${b}${"x".repeat(n)}`);
  const { vocabulary, read, count } = spellingOf(words, 6);
  const got = await vocabulary.correctable("cdxxxx", 1);
  const wanted = words.filter((w) => Math.abs(w.length - 6) <= 1 && (w.startsWith("c") || w.startsWith("dc")));
  assert.deepEqual(got.map((e) => e.key).sort(), wanted.sort());
  assert.ok(got.every((e) => e.count === e.key.length && e.form === e.key && !e.flag));
  assert.ok(read.size < count / 4, `${read.size} of ${count} shards read`);
  const short = await vocabulary.correctable("abx", 1); // no length below the shortest word's
  assert.deepEqual(short.map((e) => e.key).sort(),
    words.filter((w) => w.length <= 4 && (w.startsWith("a") || w.startsWith("ba"))).sort());
  assert.deepEqual(spellingRanges("aab", 1), [["a03", "a04\uffff"]]); // a doubled first letter: one range
});

test("a spelling shard out of spelling order, or not of words, is refused", async () => {
  const ordered = new Vocabulary({
    shards: null,
    spelling: { between: async () => [{ first: "a03bd", name: "vocabulary/spell0.0123456789abcdef.json", bytes: 1 }] },
    load: async () => ({ words: ["abd", "abcd"], counts: [1, 2] }), // spelling order, not alphabetical
  });
  assert.deepEqual((await ordered.correctable("abcd", 1)).map((e) => e.key), ["abd", "abcd"]);
  for (const shard of [{ words: ["abcd", "abd"], counts: [1, 1] }, { words: ["a_b"], counts: [1] },
    { words: ["abc"], counts: [0] }, { words: ["abc"] }, null]) {
    const vocabulary = new Vocabulary({
      shards: null,
      spelling: { between: async () => [{ first: "a", name: "vocabulary/spell0.0123456789abcdef.json", bytes: 1 }] },
      load: async () => shard,
    });
    await assert.rejects(vocabulary.correctable("abcde", 1), (error) => error instanceof BundleError &&
      /is not a spelling shard/.test(error.message), JSON.stringify(shard));
  }
});

// The site's vocabulary read by shard (engine/vocabulary.js): flags and their checks.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BundleError } from "../src/bundle/error.js";
import { Vocabulary, afterLongDashes } from "../src/engine/vocabulary.js";

const entry = { first: "a", name: "vocabulary/words.0123456789abcdef.json", bytes: 1 };
const vocabularyOf = (shard) => new Vocabulary({
  shards: { between: async () => [entry] },
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

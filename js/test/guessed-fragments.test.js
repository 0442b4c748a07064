// The fragments a query asks for before its final ranking (engine/guessed-fragments.js).

import assert from "node:assert/strict";
import { test } from "node:test";
import { askGuessedFragments, firstPages } from "../src/engine/guessed-fragments.js";

/** A lookup whose answers wait for `release()`: what a directory on its way looks like. */
function heldLookup(entries) {
  const calls = [];
  let release;
  const released = new Promise((resolve) => {
    release = resolve;
  });
  const find = (page) => {
    calls.push(page);
    return released.then(() => {
      if (entries[page] instanceof Error) throw entries[page];
      return entries[page] ? [entries[page]].flat() : null;
    });
  };
  return { calls, find, release };
}

test("every page's file is looked up at once, not each after the one before it", async () => {
  const entries = { 3: { name: "f/a" }, 7: { name: "f/b" }, 9: { name: "f/c" } };
  const { calls, find, release } = heldLookup(entries);
  const asked = [];
  const done = askGuessedFragments([3, 7, 9], { find, asked: () => false, ask: (e) => asked.push(e.name), cost: () => 10 });
  // no lookup has answered yet: a page waiting for the one before it would not be asked
  assert.deepEqual(calls, [3, 7, 9]);
  release();
  await done;
  assert.deepEqual(asked, ["f/a", "f/b", "f/c"]);
});

test("files already asked for, of pages too long for what is left, or not found are passed over, in the pages' order", async () => {
  const entries = {
    1: { name: "f/one" },
    2: { name: "f/asked" },
    3: { name: "f/large" },
    4: new Error("a lookup refused"),
    5: { name: "f/small" },
  };
  const chunks = { 1: 40, 2: 5, 3: 30, 4: 1, 5: 20, 6: 1 };
  const { find, release } = heldLookup(entries);
  const asked = [];
  release();
  await askGuessedFragments([1, 2, 3, 4, 5, 6], {
    find, asked: (name) => name === "f/asked", ask: (e) => asked.push(e.name), cost: (page) => chunks[page], budget: 64,
  });
  assert.deepEqual(asked, ["f/one", "f/small"]);
});

test("a long page's parts are asked for together, or not at all", async () => {
  const parts = (...numbers) => numbers.map((n) => ({ name: `p/${n}` }));
  const chunks = { 1: 192, 2: 256, 3: 10 };
  const { find, release } = heldLookup({ 1: parts(0, 1, 2), 2: parts(3, 4, 5, 6), 3: { name: "f/a" } });
  const asked = [];
  release();
  await askGuessedFragments([1, 2, 3], {
    find, asked: (name) => name === "p/1", ask: (e) => asked.push(e.name), cost: (page) => chunks[page],
  });
  assert.deepEqual(asked, ["p/0", "p/2", "f/a"], "a page of 256 chunks does not fit in the 208 left");
});

test("the first distinct pages of an order", () => {
  const pageOfChunk = [0, 0, 1, 2, 2, 3];
  assert.deepEqual(firstPages([4, 3, 0, 1, 5, 2], pageOfChunk, 3), [2, 0, 3]);
  assert.deepEqual(firstPages([1, 0], pageOfChunk, 3), [0]);
});

test("the budget counts the guessed pages' chunks", async () => {
  const { find, release } = heldLookup({ 1: { name: "f/1" }, 2: { name: "f/2" }, 3: { name: "f/3" } });
  const asked = [];
  release();
  await askGuessedFragments([1, 2, 3], {
    find, asked: (name) => asked.includes(name), ask: (e) => asked.push(e.name), cost: () => 150,
  });
  assert.deepEqual(asked, ["f/1", "f/2"], "400 chunks hold two pages of 150");
});

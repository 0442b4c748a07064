// A partitioned set that every query probes whole lists its bits files in the catalog
// (mkdocs_semantic/bundle/vectors/store.py): the engine asks for them beside the index,
// not a step after it, and refuses a catalog whose list is not the index's.

import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parsePartitionIndex } from "../src/bundle/binary.js";
import { BundleError } from "../src/bundle/error.js";
import { Engine } from "../src/engine/engine.js";
import { editedCopy } from "./bundle-copy.js";
import { serve } from "./serve.js";

const PARTITIONED = fileURLToPath(new URL("../../tests/fixtures/parity/bundle-partitioned/", import.meta.url));
const QUERY = "service worker offline cache";
const cleanups = [];
after(() => Promise.all(cleanups.map((clean) => clean())));

/**
 * A copy of the partitioned fixture whose catalog lists its bits files, `edit(bits)`
 * applied to the list; its set probed whole unless `partly`.
 */
function wholeProbed(edit = (bits) => bits, { partly = false } = {}) {
  const { dir, catalog } = editedCopy(PARTITIONED, (root, manifest, edited) => {
    const [set] = edited.vectors;
    const index = readFileSync(join(root, set.index[0]));
    const { bitsFiles } = parsePartitionIndex(index.buffer.slice(index.byteOffset, index.byteOffset + index.length), {
      partitions: set.partitions, dim: set.dim, idBytes: set.id_bytes, name: set.index[0],
    });
    if (!partly) set.probe_rows = manifest.counts.chunks;
    set.bits = edit(bitsFiles.map(({ name, bytes }) => [name, bytes]));
    return "catalog";
  });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const [set] = catalog.vectors;
  return { root: dir, bits: set.bits.map(([file]) => `/${file}`), index: `/${set.index[0]}` };
}

async function served(root, options) {
  const server = await serve(root, options);
  cleanups.push(() => server.close());
  return { server, url: `${server.url}manifest.json` };
}

test("a set probed whole: its bits files are asked for while the index is still on its way", { timeout: 20_000 }, async () => {
  const { root, bits, index } = wholeProbed();
  let release;
  const indexHeld = new Promise((resolve) => { release = resolve; });
  const asked = new Set();
  let sawAll;
  const allAsked = new Promise((resolve) => { sawAll = resolve; });
  const { server, url } = await served(root, {
    hold: (path) => {
      if (bits.includes(path)) asked.add(path);
      if (asked.size === bits.length) sawAll();
      return path === index ? indexHeld : null;
    },
  });
  const answer = new Engine({ manifestUrl: url }).search(QUERY);
  await allAsked; // would never resolve if the engine waited for the index
  release();
  const results = await answer;
  assert.ok(results.length > 0);
  for (const path of bits) assert.equal(server.requests.filter((p) => p === path).length, 1, `${path} asked once`);
  const { url: plain } = await served(root);
  assert.deepEqual(results.map((r) => r.id), (await new Engine({ manifestUrl: plain }).search(QUERY)).map((r) => r.id));
});

test("a catalog whose bits files are not the index's is refused with the fix", async () => {
  const { root } = wholeProbed((bits) => [bits[1], bits[0], ...bits.slice(2)]);
  const { url } = await served(root);
  await assert.rejects(new Engine({ manifestUrl: url }).search(QUERY, { mode: "vector" }),
    (error) => error instanceof BundleError && /catalog's bits files are not the ones .* names: rebuild the site/.test(error.message));
});

test("a catalog bits list whose sizes are not the index's is refused with the fix", async () => {
  const { root } = wholeProbed((bits) => bits.map(([name, bytes]) => [name, bytes + 1]));
  const { url } = await served(root);
  await assert.rejects(new Engine({ manifestUrl: url }).search(QUERY, { mode: "vector" }),
    (error) => error instanceof BundleError && /catalog's bits files are not the ones/.test(error.message));
});

test("a catalog bits list of the wrong length or names is refused by name", async () => {
  for (const edit of [(bits) => bits.slice(1), (bits) => bits.map(([, bytes]) => ["pages/pages.0123456789abcdef.bin", bytes])]) {
    const { root } = wholeProbed(edit);
    const { url } = await served(root);
    await assert.rejects(new Engine({ manifestUrl: url }).search(QUERY),
      (error) => error instanceof BundleError && /vectors\[0\]\.bits must list \[name, bytes\]/.test(error.message));
  }
});

test("a catalog that lists bits files of a set a query probes in part is refused", async () => {
  const { root } = wholeProbed(undefined, { partly: true });
  const { url } = await served(root);
  await assert.rejects(new Engine({ manifestUrl: url }).search(QUERY),
    (error) => error instanceof BundleError && /bits lists bits files, but a query probes only some of its \d+ chunks/.test(error.message));
});

// The static encoder's tokenizer with its vocabulary in shards (engine/wordpieces.js): the
// same ids as the whole tokenizer for every text, from only the shards a text needs.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { checkCatalog, checkManifest, checkPieceShard } from "../src/bundle/bundle.js";
import { ShardList } from "../src/bundle/shard-list.js";
import { createTokenIds } from "../src/engine/tokenize.js";
import { WordPieces } from "../src/engine/wordpieces.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const RELEVANCE = fileURLToPath(new URL("../../bench/relevance/", import.meta.url));
const readJson = (name) => JSON.parse(readFileSync(join(BUNDLE, name), "utf8"));

function open() {
  const manifest = checkManifest(readJson("manifest.json"), "manifest.json");
  const catalog = checkCatalog(readJson(manifest.catalog.name), manifest, manifest.catalog.name);
  const encoder = catalog.encoders.static;
  const read = [];
  const pieces = new WordPieces({
    config: encoder.pieces.config,
    shards: new ShardList(encoder.pieces.shards, { loadJson: async (file) => readJson(file.name) }),
    load: async (entry) => {
      read.push(entry.name);
      return checkPieceShard(readJson(entry.name), entry.name);
    },
    maxTokens: encoder.maxTokens,
  });
  const whole = createTokenIds(readJson(encoder.tokenizer.name), { maxTokens: encoder.maxTokens });
  return { pieces, whole, read };
}

const ODD = [
  "", "   ", "how do I run code on startup", "Lifespan Events", "HTTPException", "--reload",
  "custom_dir gh-deploy mkdocs.yml", "Café naïve résumé Ångström", "日本語のテキスト 中文", "🚀 deploy ✨",
  "x".repeat(120), `${"ab".repeat(60)} short`, "[CLS] [unk] ##ing ## #", "a.b-c_d/e:f", "2024-11-27 v1.2.3",
  "\u0000tab\there\u200bzero\u00adsoft", "ﬁle ligature Ⅻ ｆｕｌｌ", "Ǆemal İstanbul ß", "naïve​word",
  "AbCdEfGhIjKlMnOpQrStUvWxYz ".repeat(20),
];

function relevanceQueries() {
  return readdirSync(RELEVANCE).filter((name) => name.endsWith(".tsv")).flatMap((name) => readFileSync(join(RELEVANCE, name), "utf8")
    .split("\n").map((line) => line.split("\t")[0]).filter(Boolean));
}

test("word pieces by need give the whole tokenizer's ids for every text", async () => {
  const { pieces, whole } = open();
  const texts = [...ODD, ...relevanceQueries()];
  assert.ok(texts.length > 500);
  for (const text of texts) assert.deepEqual(await pieces.tokenize(text), whole(text), JSON.stringify(text));
});

test("a query reads the shards of its words' keys only, each once", async () => {
  const { pieces, whole, read } = open();
  const all = (await pieces.shards.all()).length;
  assert.deepEqual(await pieces.tokenize("lifespan events"), whole("lifespan events"));
  const first = read.length;
  assert.ok(first > 0 && first < all / 2, `${first} of ${all} shards`);
  await pieces.tokenize("lifespan events");
  assert.equal(read.length, first);
  assert.equal(new Set(read).size, read.length);
});

test("whether the vocabulary holds a word whole reads one shard", async () => {
  const { pieces, read } = open();
  assert.equal(await pieces.holds("middleware"), false);
  assert.equal(await pieces.holds("might"), true);
  assert.equal(read.length, 1);
});

test("a malformed piece shard is refused, naming it", () => {
  assert.deepEqual({ ...checkPieceShard({ pieces: ["a", "b"], ids: [5, 2] }, "p") }, { a: 5, b: 7 });
  for (const bad of [null, [], { pieces: ["a"], ids: [] }, { pieces: ["a", "b"], ids: [1, 0] },
    { pieces: [""], ids: [0] }, { pieces: ["a"], ids: [-1] }, { pieces: [1], ids: [0] }]) {
    assert.throws(() => checkPieceShard(bad, "pieces/piece.0123456789abcdef.json"),
      /piece\.0123456789abcdef\.json: it does not list word pieces with ascending ids: rebuild the site/);
  }
});

// The static encoder's tokenizer with its vocabulary in keyed files and shards
// (engine/wordpieces.js): the same ids as the whole tokenizer for every text, from only the
// files a text needs, named from its words.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { checkCatalog, checkManifest, checkPieceShard, jsonBody, verifyPayload } from "../src/bundle/bundle.js";
import { guessedPieceFiles, pieceKeyStem } from "../src/bundle/piece-names.js";
import { ShardList } from "../src/bundle/shard-list.js";
import { createTokenIds } from "../src/engine/tokenize.js";
import { WordPieces } from "../src/engine/wordpieces.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const RELEVANCE = fileURLToPath(new URL("../../bench/relevance/", import.meta.url));
const readJson = (name) => JSON.parse(readFileSync(join(BUNDLE, name), "utf8"));
const readBuffer = (name) => {
  const bytes = readFileSync(join(BUNDLE, name));
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
};

function open() {
  const manifest = checkManifest(readJson("manifest.json"), "manifest.json");
  const catalog = checkCatalog(readJson(manifest.catalog.name), manifest, manifest.catalog.name);
  const encoder = catalog.encoders.static;
  const read = [];
  const pieces = new WordPieces({
    config: encoder.pieces.config,
    keyed: encoder.pieces.keyed,
    shards: new ShardList(encoder.pieces.shards, {
      loadJson: async (file) => JSON.parse(new TextDecoder().decode(await jsonBody(readBuffer(file.name), file.name))),
    }),
    load: async (entry) => {
      read.push(entry.name);
      const buffer = await verifyPayload(readBuffer(entry.name), entry);
      return checkPieceShard(JSON.parse(new TextDecoder().decode(await jsonBody(buffer, entry.name))), entry.name);
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

test("a query reads the files of its words' keys only, each once, named from the keys", async () => {
  const { pieces, whole, read } = open();
  assert.deepEqual(await pieces.tokenize("lifespan events"), whole("lifespan events"));
  const stems = ["sl", "se", ..."ifespanvnts".split("").map((c) => `c${c}`)];
  assert.deepEqual(new Set(read), new Set(stems.map((stem) => `pieces/${stem}.${pieces.keyed}.json`)));
  assert.equal(new Set(read).size, read.length);
  await pieces.tokenize("lifespan events");
  assert.equal(read.length, new Set(stems).size); // the second time, nothing more
});

test("key stems: letters and digits, one or two of them, named by the first, or ## and one", () => {
  assert.equal(pieceKeyStem("li", "##"), "sl");
  assert.equal(pieceKeyStem("l", "##"), "sl");
  assert.equal(pieceKeyStem("7", "##"), "s7");
  assert.equal(pieceKeyStem("7z", "##"), "s7");
  assert.equal(pieceKeyStem("##p", "##"), "cp");
  assert.equal(pieceKeyStem("-", "##"), "p");
  for (const other of ["##", "日本", "l日", "##日", "Li", "l-", "-l", "—", "##-", "abc", ""]) assert.equal(pieceKeyStem(other, "##"), null, other);
});

test("a word that starts with other characters reads the catalog's shards", async () => {
  const { pieces, whole, read } = open();
  assert.deepEqual(await pieces.tokenize("日本"), whole("日本"));
  assert.ok(read.length >= 1 && read.every((name) => /^pieces\/piece\d+\.[0-9a-f]{8}\.json$/.test(name)), read.join());
});

test("whether the vocabulary holds a word whole reads one file", async () => {
  const { pieces, read } = open();
  assert.equal(await pieces.holds("middleware"), false);
  assert.equal(await pieces.holds("might"), true);
  assert.deepEqual(read, [`pieces/sm.${pieces.keyed}.json`]);
});

test("a malformed piece shard is refused, naming it", () => {
  assert.deepEqual({ ...checkPieceShard({ pieces: ["a", "b"], ids: [5, 2] }, "p") }, { a: 5, b: 7 });
  for (const bad of [null, [], { pieces: ["a"], ids: [] }, { pieces: ["a", "b"], ids: [1, 0] },
    { pieces: [""], ids: [0] }, { pieces: ["a"], ids: [-1] }, { pieces: [1], ids: [0] }]) {
    assert.throws(() => checkPieceShard(bad, "pieces/piece.0123456789abcdef.json"),
      /piece\.0123456789abcdef\.json: it does not list word pieces with ascending ids: rebuild the site/);
  }
});

test("the piece files a page guesses from a query: its words' starts and later letters, keyed ones only", () => {
  const hash = "0123456789abcdef";
  const names = guessedPieceFiles("Lifespan Événements, 日本 x", hash);
  const stems = names.map((name) => name.split("/")[1].split(".")[0]).sort();
  assert.deepEqual(stems, ["ce", "cf", "cm", "cn", "cp", "cs", "ct", "ci", "ca", "cv", "p", "se", "sl", "sx"].sort()); // "p": the comma
  assert.ok(names.every((name) => name.endsWith(`.${hash}.json`)));
  assert.deepEqual(guessedPieceFiles("日本 — ✨", hash), []);
  assert.deepEqual(guessedPieceFiles("MAP_ANONYMOUS", hash).filter((name) => name.startsWith("pieces/p.")), [`pieces/p.${hash}.json`]);
});

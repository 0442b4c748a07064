import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import { porterOnly, trimStemmers } from "../tools/porter-only.mjs";

const require = createRequire(import.meta.url);
const path = require.resolve("snowball-stemmers");

test("the trimmed snowball-stemmers keeps Porter's stemmer only, stemming as the package does", async () => {
  const source = readFileSync(path, "utf8");
  const trimmed = trimStemmers(source);
  assert.ok(trimmed.length < source.length / 5, `${trimmed.length} of ${source.length} characters`);
  assert.match(trimmed, /var englishStemmer = null;/);
  let loaded;
  porterOnly(["caching", "responses", "generously", "relational"]).setup({
    onLoad: (_filter, callback) => { loaded = callback({ path }); },
  });
  assert.equal(loaded.contents, trimmed);
  assert.throws(() => porterOnly(["x"]).setup({ onLoad: (_f, callback) => callback({ path: "/nonexistent/snowball-stemmers/snowball-stemmers.js" }) }), /ENOENT/);
  assert.throws(() => trimStemmers("var x = 1;\n"), /no longer has the layout/);
});

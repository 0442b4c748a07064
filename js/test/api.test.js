// The public API, src/api/semantic.js, exports what its declaration file, semantic.d.ts,
// declares, and nothing else; the type check (tsconfig.json, also run by npm test) holds
// each export, and the SemanticSearch class, to its declared type.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

test("semantic.js exports what semantic.d.ts declares, and nothing else", async () => {
  const declaration = readFileSync(new URL("../src/api/semantic.d.ts", import.meta.url), "utf8");
  const declared = [...declaration.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm)]
    .map(([, name]) => name);
  const api = await import("../src/api/semantic.js");
  assert.deepEqual(Object.keys(api).sort(), [...new Set(declared)].sort());
});

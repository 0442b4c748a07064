// The forward pass's SIMD kernel as shipped (src/engine/dense-wasm.js) is dense.wat as
// it compiles today: npm run build writes it, and this fails when it was not rerun.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { MODULE, denseWasmModule } from "../tools/dense-wasm.mjs";

test("src/engine/dense-wasm.js holds dense.wat as it compiles today", async () => {
  assert.equal(readFileSync(MODULE, "utf8"), await denseWasmModule(),
    "dense.wat changed: run npm run build in js/");
});

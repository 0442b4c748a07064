// Builds the browser client into the Python package (mkdocs_semantic/assets/):
// ES modules for pages and workers, a module worker, a small classic worker for
// Material that imports the rest on the first query, the CSS,
// onnxruntime-web's single-threaded WebAssembly files, and client.json, which names
// every file and a hash of them all (the plugin copies them to client/<hash>/).

import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "mkdocs_semantic", "assets");
const ort = join(here, "node_modules", "onnxruntime-web", "dist");
const RUNTIME = ["ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"];
const KEEP = new Set(["README.md"]);

mkdirSync(out, { recursive: true });
for (const name of readdirSync(out)) if (!KEEP.has(name)) rmSync(join(out, name), { recursive: true });

const common = {
  bundle: true,
  minify: true,
  target: ["es2022"],
  legalComments: "none",
  // ort.wasm.min.mjs, which loads ort-wasm-simd-threaded.mjs/.wasm from wasmPaths.
  conditions: ["onnxruntime-web-use-extern-wasm"],
  define: { __WASM_BYTES__: String(statSync(join(ort, RUNTIME[1])).size) },
  logLevel: "warning",
};

await esbuild.build({
  ...common,
  entryPoints: {
    semantic: "src/semantic.js",
    auto: "src/auto.js",
    worker: "src/worker.js",
    "material-search": "src/material-search.js",
  },
  outdir: out,
  format: "esm",
  splitting: true,
  chunkNames: "shared-[hash]",
});
await esbuild.build({
  ...common,
  entryPoints: { "material-worker": "src/material-worker.js" },
  outdir: out,
  format: "iife",
  // Loaded at run time with import(), beside the worker.
  external: ["./material-search.js"],
});
for (const name of RUNTIME) copyFileSync(join(ort, name), join(out, name));
copyFileSync(join(here, "src", "semantic.css"), join(out, "semantic.css"));

const files = readdirSync(out).filter((name) => !KEEP.has(name) && name !== "client.json").sort();
const digest = createHash("sha256");
for (const name of files) digest.update(name).update("\0").update(readFileSync(join(out, name)));
const client = { hash: digest.digest("hex").slice(0, 12), files };
writeFileSync(join(out, "client.json"), JSON.stringify(client, null, 1) + "\n");
console.log(`client ${client.hash}: ${files.length} files in ${out}`);

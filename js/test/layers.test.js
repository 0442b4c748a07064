// The folders of src/ and the direction of imports between them (README.md, "Layers"):
// read from the sources' import statements, so a new import that breaks a rule fails here.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
const COMMENTS = /\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm; // block comments, and lines that are comments

const CONSTANTS = "../../mkdocs_semantic/constants.json"; // relative to src/

/**
 * Every module under src/ ("engine/scan.js") -> its imports: `{module}` for a relative
 * one (a path relative to src/, such as "bundle/error.js" or CONSTANTS), `{package}` for
 * an npm package.
 */
function importGraph() {
  const graph = new Map();
  for (const file of readdirSync(SRC, { recursive: true }).filter((name) => name.endsWith(".js"))) {
    const text = readFileSync(join(SRC, file), "utf8").replace(COMMENTS, "");
    graph.set(posix(file), [...text.matchAll(IMPORT)].map(([, spec]) => (spec.startsWith(".")
      ? { module: posix(relative(SRC, join(SRC, dirname(file), spec))) }
      : { package: spec })));
  }
  return graph;
}

const posix = (path) => path.split(sep).join("/");
const graph = importGraph();
const folder = (module) => (module.startsWith("..") ? null : module.split("/")[0]);

test("every module sits in one of the six folders, and its imports resolve", () => {
  const folders = new Set(["api", "bundle", "engine", "text", "ui", "material"]);
  for (const [name, imports] of graph) {
    assert.ok(name.includes("/") && folders.has(folder(name)), `${name} is not in a folder of src/`);
    for (const { module } of imports) {
      if (module === undefined || module === CONSTANTS) continue;
      assert.ok(graph.has(module), `${name} imports ${module}, which is not a module of src/`);
    }
  }
});

test("imports go one way: bundle/ and text/ below engine/, engine/ below the UIs", () => {
  const allowed = {
    text: ["text"],
    bundle: ["bundle"],
    engine: ["engine", "bundle", "text"],
    ui: ["ui", "engine", "text"],
    material: ["material", "engine", "text"],
    api: ["api", "bundle", "engine", "text", "ui", "material"],
  };
  for (const [name, imports] of graph) {
    const from = folder(name);
    for (const { module, package: pkg } of imports) {
      if (pkg) {
        assert.ok(from !== "text", `${name}: text/ imports no package, but this imports ${pkg}`);
      } else if (module !== CONSTANTS) {
        assert.ok(allowed[from].includes(folder(module)), `${name} imports ${module}: ${from}/ may not import ${folder(module)}/`);
      }
    }
  }
});

test("what the workers load holds no DOM code", () => {
  const domModules = (name) => folder(name) === "ui" || ["api/auto.js", "api/material.js"].includes(name) ||
    ["material/material-page.js", "material/material-highlight.js"].includes(name);
  for (const entry of ["api/worker.js", "material/material-worker.js", "material/material-search.js"]) {
    const seen = new Set();
    const visit = (name) => {
      if (seen.has(name) || !graph.has(name)) return;
      seen.add(name);
      assert.ok(!domModules(name), `the worker ${entry} loads ${name}, which works on the page's DOM`);
      for (const { module } of graph.get(name)) if (module) visit(module);
    };
    visit(entry);
  }
});

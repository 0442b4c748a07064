// The browser engine's steps per query, counted where no CPU gap can split them: the
// engine (js/src/engine/engine.js, as the worker runs it) in Node against a bundle served
// from 127.0.0.1 with every answer held DELAY_MS, so each step that waits for the one
// before it starts at least DELAY_MS later. A round is a run of requests each arriving
// within GAP_MS of the one before. Bytes are as GitHub Pages sends them (gzip for JSON).
//
// After each query the engine's idle prefetch runs to its end before the next query (a
// reader reading the results), its files counted apart (`prefetched`); with "off" as the
// third argument the engine prefetches nothing. Options after it: `--cold-each`, every
// query on a new engine (each a first query); `--unheld <folder>`, the files of that
// folder answered at once (as if they had come before the query, beside the catalog);
// `--page-pieces`, the engine told the hash of the keyed word piece files, as a built
// page tells it; `--page-hints <json>`, the hints a built page gives (`{pieces, keywords,
// pages, words, index}`, as mkdocs_semantic/pages/hints.py bundle_hints makes them), the
// engine's first query brought by the page's opening as a page brings it;
// `--no-guess-pieces`, no word's pieces asked for before its rows say the site lacks it
// (as for a reader who saves data); `--typing`, each query answered as the search box
// answers a query being typed (a half-typed last word completed); `--idle-encoder`, a
// progressive site: after the first query the engine's idle download of the model (the
// tokenizer and the forward pass's files) runs to its end, its files
// counted apart (`idleFiles`, `idleSent`, `idleGzip`: were the host to gzip them), and
// the later queries are the model's. Where the built client ships onnxruntime-web (a
// model the client's own forward pass cannot run), the engine is given its files.
//
//   node bench/query_rounds.mjs <bundle folder> <queries file: one per line> [off]
//       [--cold-each] [--unheld <folder>] [--page-pieces] [--page-hints <json>] [--no-guess-pieces]
//       [--typing] [--idle-encoder]
// prints JSON: {queries: [{query, encoder, ids (the answer's top 10), rounds, files, bytes, sent, kinds,
// kindSent, steps}], embedMs}: kindSent is bytes sent per kind of file, steps the kinds each round
// asked for (the first is cold); embedMs, when the model answers at the end, each query's forward
// pass in milliseconds, timed once the model is local.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { Engine } from "../js/src/engine/engine.js";
import { fetchOpening } from "../js/src/engine/opening.js";
import { serve } from "../js/test/serve.js";

const DELAY_MS = 100;
const GAP_MS = 50;
const [root, queriesFile, prefetch = "on", ...options] = process.argv.slice(2);
const coldEach = options.includes("--cold-each");
const unheld = options.includes("--unheld") ? `/${options[options.indexOf("--unheld") + 1]}/` : null;
// --page-pieces: the engine told the keyed word piece files' hash, as a built page tells it
const pagePieces = options.includes("--page-pieces")
  ? JSON.parse(readFileSync(join(root, "catalog.json"), "utf8")).encoders.static.pieces.keyed.hash : null;
const pageHints = options.includes("--page-hints") ? JSON.parse(options[options.indexOf("--page-hints") + 1]) : null;
const guessPieces = !options.includes("--no-guess-pieces");
const typing = options.includes("--typing");
const idleEncoder = options.includes("--idle-encoder");
// onnxruntime-web's files, where the built client ships them (a site of a model the
// client's own forward pass cannot run)
const withRuntime = existsSync(join(root, clientFile("ort-wasm-simd-threaded.wasm")));
const queries = readFileSync(queriesFile, "utf8").split("\n").filter(Boolean);

const start = performance.now();
const log = [];
const server = await serve(root, {
  gzip: true, // JSON as static hosts send it
  hold: (path, range) => {
    log.push([performance.now() - start, path, range]);
    return new Promise((resolve) => setTimeout(resolve, unheld && path.includes(unheld) ? 0 : DELAY_MS));
  },
});
const sentCache = new Map();
/** [raw, sent] bytes of a request for `path`; `range`: its Range header (a record of a pack). */
function sent(path, range = null) {
  const span = /^bytes=(\d+)-(\d+)$/.exec(range ?? "");
  if (span) return [Number(span[2]) - Number(span[1]) + 1, Number(span[2]) - Number(span[1]) + 1];
  if (!sentCache.has(path)) {
    const bytes = readFileSync(join(root, decodeURIComponent(path.split("?")[0])));
    sentCache.set(path, [bytes.length, path.endsWith(".json") ? gzipSync(bytes, { level: 6 }).length : bytes.length]);
  }
  return sentCache.get(path);
}

const manifestUrl = `${server.url}manifest.json`;
let tookOver = null; // resolves when the idle encoder takes over
/** A file of the client the build copied beside the bundle, as a path under it. */
function clientFile(name) {
  const [client] = readdirSync(join(root, "client"));
  return `client/${client}/${name}`;
}
/** onnxruntime-web's files as the built client ships them beside the bundle. */
function runtime() {
  const wasm = clientFile("ort-wasm-simd-threaded.wasm");
  return {
    mjsUrl: pathToFileURL(join(root, clientFile("ort-wasm-simd-threaded.mjs"))).href,
    wasmUrl: `${server.url}${wasm}`,
    wasmBytes: statSync(join(root, wasm)).size,
  };
}
const newEngine = (query) => {
  const took = {
    ...(withRuntime ? { runtime: runtime() } : {}),
    ...(idleEncoder ? { onEncoder: (kind) => tookOver.resolve(kind) } : {}),
  };
  if (idleEncoder) tookOver = Promise.withResolvers?.() ?? withResolvers();
  const engine = pageHints
    ? new Engine({ manifestUrl, opening: fetchOpening(manifestUrl, { query, guessPieces, ...pageHints }), openingQuery: query,
      pieces: pageHints.pieces, keywords: pageHints.keywords, words: pageHints.words, ...took })
    : new Engine({ manifestUrl, pieces: pagePieces, ...took });
  if (prefetch === "off") engine.prefetchBudget = 0;
  engine.guessPieces = guessPieces;
  return engine;
};
let engine = null;
const out = [];
for (const query of queries) {
  log.length = 0;
  if (!engine || coldEach) engine = newEngine(query);
  const answer = await engine.answer(query, { typing });
  const own = log.slice();
  let rounds = 0;
  let last = -Infinity;
  const kinds = {};
  const kindSent = {};
  const steps = [];
  let bytes = 0;
  let sentBytes = 0;
  for (const [t, path, range] of own) {
    const kind = path.split("/")[1].split(".")[0];
    if (t - last > GAP_MS) {
      rounds++;
      steps.push({});
    }
    last = t;
    const step = steps[steps.length - 1];
    step[kind] = (step[kind] ?? 0) + 1;
    kinds[kind] = (kinds[kind] ?? 0) + 1;
    const [raw, gz] = sent(path, range);
    kindSent[kind] = (kindSent[kind] ?? 0) + gz;
    bytes += raw;
    sentBytes += gz;
  }
  const asked = own.length;
  await engine.prefetching;
  const idle = idleEncoder && out.length === 0
    ? { encoder: await tookOver.promise, ...idleDownload(log.slice(asked)) } : null;
  const prefetchLog = log.slice(asked).filter(([, path]) => !isIdleDownload(path));
  const prefetched = prefetchLog.reduce((n, [, path, range]) => n + sent(path, range)[1], 0);
  out.push({ query, encoder: answer.encoder, ids: answer.results.map((r) => r.id),
    rounds, files: asked, bytes, sent: sentBytes, kinds, kindSent, steps,
    prefetchedFiles: prefetchLog.length, prefetched, ...(idle ? { idle } : {}) });
}
// With the model local, the forward pass's time per query (nothing is fetched by then)
const embedMs = [];
if (engine?.encoder?.kind === "transformer") {
  for (const query of queries) {
    const start = performance.now();
    await engine.embed(query);
    embedMs.push(performance.now() - start);
  }
}
await server.close();

function withResolvers() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

/** The model's files the idle download fetched: the tokenizer and the layers and word
 * blocks of the client's forward pass (or the ONNX file and onnxruntime-web's .wasm). */
function isIdleDownload(path) {
  return /\/model\/(tokenizer|layers|words|model)\.[0-9a-f]+\.(json|bin|onnx)$/.test(path) ||
    path.endsWith(".wasm");
}

/** Those files, and the forward pass's script (model-embed.js, or for the ONNX file
 * ort-embed.js and onnxruntime-web's .mjs), imported here from disk, so added by size. */
function idleDownload(entries) {
  const fetched = entries.map(([, path]) => path).filter(isIdleDownload);
  const scripts = fetched.some((path) => path.endsWith(".onnx"))
    ? ["ort-wasm-simd-threaded.mjs", "ort-embed.js"] : ["model-embed.js"];
  const files = [...fetched.map((path) => join(root, path)), ...scripts.map((name) => join(root, clientFile(name)))];
  const sizes = files.map((file) => {
    const bytes = readFileSync(file);
    return [bytes.length, gzipSync(bytes, { level: 6 }).length];
  });
  return { idleFiles: files.length, idleSent: sizes.reduce((n, [raw]) => n + raw, 0),
    idleGzip: sizes.reduce((n, [, gz]) => n + gz, 0) };
}
console.log(JSON.stringify({ delayMs: DELAY_MS, gapMs: GAP_MS, queries: out, embedMs }));

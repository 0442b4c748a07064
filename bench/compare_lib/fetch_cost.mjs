// What one request costs this machine's Chromium, apart from any search engine: a Web
// Worker fetches batches of small files it has never fetched (n at once, then one after
// another), from the same loopback server as bench/compare's runs (serve.mjs: HTTP/2 over
// TLS, GitHub Pages' caching), in a fresh profile each time. A warm query that fetches
// shards pays this for every file it asks for; this is the floor under its latency that
// no search engine can go below with the same files.
//
//   node fetch_cost.mjs [--profiles 5] [--protocol h2|http/1.1]  ->  JSON on stdout
//
// Used by browser.mjs (the plan's `fetchCost`) and bench/fetch_cost.py.

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { certificate, launch, serve } from "./serve.mjs";

/** Batch sizes, fetched in this order, each batch from files no batch before it asked for. */
export const BATCHES = [1, 2, 5, 10, 20, 50];
/** Bytes of each file: a token-table shard's size (8 rows of 384 int8 and their ids). */
export const FILE_BYTES = 3108;
const SEQUENTIAL = 10;
const PREFIX = "/cost/";

const WORKER = `self.onmessage = async ({ data: { names, sequential } }) => {
  const get = async (name) => {
    const response = await fetch(name);
    if (!response.ok) throw new Error(name + ": " + response.status);
    return response.arrayBuffer();
  };
  const t = performance.now();
  if (sequential) for (const name of names) await get(name);
  else await Promise.all(names.map(get));
  self.postMessage(performance.now() - t);
};
`;

/** A folder to serve: the page, the worker and enough distinct files for every batch. */
function makeSite(count) {
  const root = mkdtempSync(join(tmpdir(), "fetch-cost-"));
  mkdirSync(join(root, "f"));
  writeFileSync(join(root, "index.html"), "<!doctype html><title>fetch cost</title>\n");
  writeFileSync(join(root, "cost-worker.js"), WORKER);
  for (let i = 0; i < count; i++) writeFileSync(join(root, "f", `${i}.bin`), randomBytes(FILE_BYTES));
  return root;
}

/** Least squares y = a + b x. */
function line(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const b = sxx ? sxy / sxx : 0;
  return { intercept: my - b * mx, slope: b };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round = (ms) => Math.round(ms * 100) / 100;

/**
 * Per profile: one file to open the connection, then each batch of BATCHES fetched at
 * once, then SEQUENTIAL files one after another. Returns the ms of every batch, their
 * medians, the line through all of them (`perFile`: ms a file adds to a batch) and the
 * median ms of a request made after the one before it came back (one round trip).
 */
export async function measureFetchCost(tls, { profiles = 5 } = {}) {
  const perProfile = BATCHES.reduce((n, b) => n + b, 0) + SEQUENTIAL + 1;
  const root = makeSite(perProfile * profiles);
  const server = await serve(root, PREFIX, tls);
  const batches = BATCHES.map((n) => ({ n, ms: [] }));
  const sequential = [];
  try {
    for (let p = 0; p < profiles; p++) {
      const browser = await launch(tls);
      try {
        const page = await browser.context.newPage();
        await page.goto(`${server.url}index.html`);
        let next = p * perProfile;
        const take = (n) => Array.from({ length: n }, () => `f/${next++}.bin`);
        const plan = { open: take(1), batches: BATCHES.map(take), sequential: take(SEQUENTIAL) };
        const seen = await page.evaluate(async ({ open, batches: sets, sequential: names }) => {
          const worker = new Worker("cost-worker.js");
          const run = (list, one) => new Promise((resolve, reject) => {
            worker.onmessage = ({ data }) => resolve(data);
            worker.onerror = (event) => reject(new Error(event.message));
            worker.postMessage({ names: list, sequential: one });
          });
          await run(open, false);
          const out = [];
          for (const list of sets) out.push(await run(list, false));
          return { batches: out, sequential: await run(names, true) / names.length };
        }, plan);
        seen.batches.forEach((ms, i) => batches[i].ms.push(round(ms)));
        sequential.push(round(seen.sequential));
      } finally {
        await browser.close();
      }
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  const points = batches.flatMap(({ n, ms }) => ms.map((m) => [n, m]));
  const fit = line(points.map(([n]) => n), points.map(([, m]) => m));
  return {
    fileBytes: FILE_BYTES,
    profiles,
    batches: batches.map(({ n, ms }) => ({ n, ms, median: round(median(ms)) })),
    perFile: round(fit.slope),
    intercept: round(fit.intercept),
    sequentialMedian: round(median(sequential)),
    sequential,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : fallback;
  };
  let tls = null;
  if (option("--protocol", "h2") === "h2") {
    tls = certificate();
    if (tls.failed) {
      process.stderr.write(`fetch_cost.mjs: no certificate (${tls.failed}): HTTP/1.1\n`);
      tls = null;
    }
  }
  const result = await measureFetchCost(tls, { profiles: Number(option("--profiles", 5)) });
  process.stdout.write(`${JSON.stringify({ protocol: tls ? "h2" : "http/1.1", ...result })}\n`);
}

// Browser side of bench/compare: serves each built site on 127.0.0.1 and measures one
// search system in headless Debian Chromium (playwright-core, fresh profile per run).
//
//   node browser.mjs PLAN.json  ->  JSON on stdout
//
// PLAN: {prefix, queries, firstQuery, rank (bool), timeoutMs,
//        runs: [{name, kind: "material"|"pagefind"|"semantic", root}]}
//
// Per run: bytes fetched loading the home page (until the network is idle), bytes and
// milliseconds from the first query to its first results (cold HTTP cache), then every
// query once more, warm, timing the search engine's round trip in the page, and (with
// `rank`) the result pages in rank order.
//
// Material: its real search box and lunr worker (query typed into the box; the
// worker's QUERY -> RESULT round trip timed by wrapping window.Worker; result links read
// from the rendered list). Pagefind: its browser API (search() + data() of the top 10).
// This plugin: its browser client's API (init, search).

import { createReadStream, mkdtempSync, rmSync, statSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { chromium } from "playwright-core";

const EXECUTABLE = process.env.CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
  // Only the loopback server resolves: nothing leaves the machine.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];
const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
  ".json": "application/json", ".wasm": "application/wasm", ".svg": "image/svg+xml",
  ".png": "image/png", ".ico": "image/x-icon", ".woff2": "font/woff2", ".xml": "application/xml",
};
const RANK_DEPTH = 10;

// ---------------------------------------------------------------- server

function fileFor(root, relative) {
  const path = normalize(join(root, decodeURIComponent(relative)));
  if (path !== root && !path.startsWith(root + sep)) return null;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) return fileFor(root, join(relative, "index.html"));
    return { path, size: stat.size };
  } catch {
    return null;
  }
}

/** Static files of `root` under `prefix` on 127.0.0.1 (like a GitHub Pages project site). */
function serve(root, prefix) {
  const log = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://127.0.0.1").pathname;
    const file = path.startsWith(prefix) ? fileFor(root, path.slice(prefix.length)) : null;
    if (!file) {
      log.push({ path, status: 404, bytes: 0 });
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found");
      return;
    }
    log.push({ path, status: 200, bytes: file.size });
    // GitHub Pages' caching: ten minutes for everything, no validators needed here.
    response.writeHead(200, {
      "content-type": TYPES[extname(file.path)] ?? "application/octet-stream",
      "content-length": file.size,
      "cache-control": "max-age=600",
    });
    if (request.method === "HEAD") response.end();
    else createReadStream(file.path).pipe(response);
  });
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve({
      url: `http://127.0.0.1:${server.address().port}${prefix}`,
      log,
      close: () => new Promise((done) => {
        server.closeAllConnections?.();
        server.close(() => done());
      }),
    }));
  });
}

// ---------------------------------------------------------------- systems

const since = (log, mark) => log.slice(mark).filter((e) => e.status === 200);
const missing = (log, mark) => [...new Set(log.slice(mark).filter((e) => e.status !== 200)
  .map((e) => e.path))];
const files = (entries) => entries.map((e) => [e.path, e.bytes]);
const sum = (entries) => entries.reduce((total, e) => total + e.bytes, 0);

/** Records Material's worker traffic: QUERY posts and RESULT arrivals, with times. */
function wrapWorkers() {
  const Native = window.Worker;
  window.__traffic = { queries: [], results: [] };
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", ({ data }) => {
        if (data && data.type === 3) {
          const items = data.data?.items ?? [];
          window.__traffic.results.push({
            t: performance.now(), n: items.length,
            // Each item is one page's group of sections, the page's best first.
            top: items.slice(0, 10).map((group) => group?.[0]?.location ?? null),
          });
        }
      });
    }
    postMessage(message, ...rest) {
      if (message && message.type === 2) {
        window.__traffic.queries.push({ t: performance.now(), q: String(message.data) });
      }
      return super.postMessage(message, ...rest);
    }
  };
}

const MATERIAL_INPUT = 'input[data-md-component="search-query"]';

const material = {
  async prepare(context) {
    await context.addInitScript(wrapWorkers);
  },
  /** Types the query; resolves when the worker has answered it and the list is drawn. */
  async query(page, query, timeout) {
    const before = await page.evaluate(() => ({ q: window.__traffic.queries.length,
                                                r: window.__traffic.results.length }));
    await page.locator(MATERIAL_INPUT).fill(query);
    await page.locator(MATERIAL_INPUT).press("End"); // Material reads the box on keyup
    // Every QUERY posted since `before` answered (the worker answers in order).
    await page.waitForFunction(({ q, r }) => {
      const posted = window.__traffic.queries.length - q;
      return posted > 0 && window.__traffic.results.length - r >= posted;
    }, before, { timeout });
    // The list is drawn from the last RESULT: wait two frames, then read it.
    return page.evaluate(async (depth) => {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const { queries, results } = window.__traffic;
      const asked = queries.at(-1);
      const answer = results.at(-1);
      const links = [...document.querySelectorAll(".md-search-result__list > li")]
        .map((li) => li.querySelector("a")?.href).filter(Boolean);
      return { ms: answer.t - asked.t, hrefs: links.slice(0, depth), shown: links.length,
               count: answer.n, worker: answer.top };
    }, RANK_DEPTH);
  },
  async cold(page, query, timeout) {
    await page.locator(MATERIAL_INPUT).fill(query);
    await page.locator(MATERIAL_INPUT).press("End");
    await page.waitForSelector(".md-search-result__list > li", { timeout });
  },
};

const pagefind = {
  async prepare() {},
  async setup(page, prefix) {
    await page.evaluate(async (prefix) => {
      window.__pagefind = await import(`${prefix}pagefind/pagefind.js`);
      await window.__pagefind.options({ baseUrl: prefix });
    }, prefix);
  },
  async query(page, query) {
    return page.evaluate(async ([query, depth]) => {
      const t = performance.now();
      const found = await window.__pagefind.search(query);
      const searched = performance.now();
      const data = await Promise.all(found.results.slice(0, depth).map((r) => r.data()));
      return { ms: performance.now() - t, searchMs: searched - t,
               hrefs: data.map((d) => new URL(d.url, location.href).href),
               count: found.results.length };
    }, [query, RANK_DEPTH]);
  },
  async cold(page, query, timeout, prefix) {
    await this.setup(page, prefix);
    await this.query(page, query);
  },
};

const semantic = {
  async prepare() {},
  async setup(page, prefix) {
    await page.evaluate(async (prefix) => {
      window.__semantic = await import(`${prefix}semantic/semantic.js`);
      window.__semantic.init();
    }, prefix);
  },
  async query(page, query, timeout, topK = RANK_DEPTH) {
    return page.evaluate(async ([query, topK]) => {
      const t = performance.now();
      const hits = await window.__semantic.search(query, { topK });
      const ms = performance.now() - t;
      const pages = [];
      for (const hit of hits) {
        const page = hit.page ?? hit.url.split("#")[0];
        if (!pages.includes(page)) pages.push(page);
      }
      return { ms, hrefs: pages, count: hits.length };
    }, [query, topK]);
  },
  async cold(page, query, timeout, prefix) {
    await this.setup(page, prefix);
    await this.query(page, query, timeout);
  },
};

const KINDS = { material, pagefind, semantic };

// ---------------------------------------------------------------- one run

async function launch() {
  const profile = mkdtempSync(join(tmpdir(), "compare-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: EXECUTABLE, headless: true, args: FLAGS,
    viewport: { width: 1280, height: 800 },
  });
  return { context, close: async () => {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  } };
}

async function measure(plan, run) {
  const kind = KINDS[run.kind];
  const timeout = plan.timeoutMs ?? 180_000;
  const server = await serve(run.root, plan.prefix);
  const browser = await launch();
  const errors = [];
  try {
    await kind.prepare(browser.context);
    const page = await browser.context.newPage();
    page.setDefaultTimeout(timeout);
    page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));

    await page.goto(server.url, { waitUntil: "networkidle", timeout });
    const onLoad = since(server.log, 0);
    const load = { bytes: sum(onLoad), requests: onLoad.length, files: files(onLoad) };

    let mark = server.log.length;
    let started = performance.now();
    await kind.cold(page, plan.firstQuery, timeout, plan.prefix);
    const coldMs = performance.now() - started;
    const coldFetched = since(server.log, mark);
    const cold = { ms: coldMs, bytes: sum(coldFetched), requests: coldFetched.length,
                   files: files(coldFetched) };

    // Warm: every query once, after one untimed query that is in no list.
    mark = server.log.length;
    await kind.query(page, plan.warmup ?? "path parameters", timeout);
    const warm = { ms: [], counts: [], shown: [], disagree: 0 };
    const ranked = [];
    for (const query of plan.queries) {
      const answer = await kind.query(page, query, timeout);
      warm.ms.push(answer.ms);
      if (answer.searchMs !== undefined) (warm.searchMs ??= []).push(answer.searchMs);
      warm.counts.push(answer.count);
      if (answer.shown !== undefined) warm.shown.push(answer.shown);
      // Material: the rendered list must be the worker's answer, in its order.
      if (answer.worker) {
        const dom = answer.hrefs.map((h) => pageUrl(h, server.url));
        const told = answer.worker.slice(0, dom.length).map((l) => pageUrl(l ?? "", server.url));
        if (JSON.stringify(dom) !== JSON.stringify(told)) warm.disagree += 1;
      }
      ranked.push(answer.hrefs.map((href) => pageUrl(href, server.url)));
    }
    const warmFetched = since(server.log, mark);
    warm.bytes = sum(warmFetched);
    warm.requests = warmFetched.length;
    warm.files = files(warmFetched);
    const out = { load, cold, warm, errors, notFound: missing(server.log, 0) };
    if (plan.rank) {
      out.ranked = ranked;
      // The plugin's client can return more sections: rank pages over 100 like the
      // Python reference (bench/relevance.py), besides the top-10 latency pass above.
      if (run.kind === "semantic") {
        out.ranked = [];
        for (const query of plan.queries) {
          const answer = await kind.query(page, query, timeout, 100);
          out.ranked.push(answer.hrefs.map((href) => pageUrl(href, server.url)));
        }
      }
    }
    return out;
  } finally {
    await browser.close();
    await server.close();
  }
}

/** `http://127.0.0.1:port/fastapi/tutorial/cors/#x` -> `tutorial/cors/`. */
function pageUrl(href, base) {
  const url = new URL(href, base);
  url.hash = "";
  url.search = "";
  let path = url.href.startsWith(base) ? url.href.slice(base.length) : url.pathname;
  if (path.endsWith("index.html")) path = path.slice(0, -"index.html".length);
  return decodeURIComponent(path);
}

// ---------------------------------------------------------------- main

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
// Everything stops by itself: no run may outlive the plan's overall limit.
const watchdog = setTimeout(() => {
  process.stderr.write(`browser.mjs: over ${plan.limitMs} ms, giving up\n`);
  process.exit(3);
}, plan.limitMs ?? 900_000);
watchdog.unref();

const results = {};
for (const run of plan.runs) {
  const t = performance.now();
  try {
    results[run.name] = await measure(plan, run);
  } catch (error) {
    results[run.name] = { failed: String(error.message ?? error).split("\n").slice(0, 4).join(" ") };
  }
  results[run.name].seconds = (performance.now() - t) / 1000;
  process.stderr.write(`browser.mjs: ${run.name} done in ${results[run.name].seconds.toFixed(1)} s\n`);
}
process.stdout.write(JSON.stringify(results) + "\n");
clearTimeout(watchdog);

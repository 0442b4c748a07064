// Browser side of bench/compare: serves each built site on 127.0.0.1 and measures one
// search system in headless Debian Chromium (playwright-core, fresh profile per run).
//
//   node browser.mjs PLAN.json  ->  JSON on stdout
//
// PLAN: {prefix, queries, firstQuery, rank (bool), timeoutMs, protocol: "h2"|"http/1.1",
//        runs: [{name, kind: "material"|"pagefind"|"semantic", root}]}
//
// Per run: bytes fetched loading the home page (until the network is idle), bytes and
// milliseconds from the first query to its first results (cold HTTP cache), then every
// query once more, warm, timing the search engine's round trip in the page, with the
// files each warm query fetched and how long they were in flight, and (with `rank`)
// the result pages in rank order.
//
// Serving: js/tools/server.mjs serves the site and compresses as GitHub Pages does (its
// rule: gzip for text types, binary payloads as they are); in front of it, a server on
// 127.0.0.1 that speaks HTTP/2 over TLS (as GitHub Pages does; a certificate made for
// this run, trusted by this Chromium through its public key hash), or HTTP/1.1 when
// there is no openssl or the plan asks for it. The front sets GitHub Pages' caching
// (ten minutes) and logs every response: the file's bytes, the body bytes sent and
// when the request came and the response ended.
//
// Material: its real search box and lunr worker (query typed into the box; the
// worker's QUERY -> RESULT round trip timed by wrapping window.Worker; result links read
// from the rendered list). Pagefind: its browser API (search() + data() of the top 10).
// This plugin: its browser client's API (init, search).

import { execFileSync } from "node:child_process";
import { X509Certificate, createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest } from "node:http";
import { createSecureServer } from "node:http2";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { chromium } from "playwright-core";
import { resolveFile, serveSite } from "../../js/tools/server.mjs";

const EXECUTABLE = process.env.CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
  // Only the loopback server resolves: nothing leaves the machine.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];
const RANK_DEPTH = 10;
// Connection-level headers of HTTP/1.1 that HTTP/2 forbids.
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "upgrade",
                     "proxy-connection"];

// ---------------------------------------------------------------- server

/** A key and self-signed certificate for 127.0.0.1, made now; null without openssl. */
function certificate() {
  const dir = mkdtempSync(join(tmpdir(), "compare-tls-"));
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "pipe" });
    const cert = readFileSync(join(dir, "cert.pem"));
    const key = readFileSync(join(dir, "key.pem"));
    // Chromium's --ignore-certificate-errors-spki-list trusts this one key (and keeps
    // its HTTP cache on, which any certificate error would turn off).
    const spki = new X509Certificate(cert).publicKey.export({ type: "spki", format: "der" });
    return { cert, key, spki: createHash("sha256").update(spki).digest("base64") };
  } catch (error) {
    return { failed: String(error.message ?? error).split("\n")[0] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `root` under `prefix` on 127.0.0.1 (like a GitHub Pages project site): js/tools/server.mjs
 * (gzip as GitHub Pages) behind a front that speaks HTTP/2 over TLS (`tls`) or HTTP/1.1.
 * Log entries: {path, status, bytes (the file's), sent (body bytes), encoding, version,
 * start, end (performance.now() of this process)}.
 */
async function serve(root, prefix, tls) {
  const origin = await serveSite(root, { prefix, gzip: true });
  const port = new URL(origin.url).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const log = [];
  const handle = (request, response) => {
    const entry = { path: new URL(request.url, "http://127.0.0.1").pathname, status: 0,
                    bytes: 0, sent: 0, encoding: "identity", version: request.httpVersion,
                    start: performance.now(), end: null };
    log.push(entry);
    response.on("close", () => { entry.end = performance.now(); });
    const upstream = httpRequest({
      host: "127.0.0.1", port, path: request.url, method: request.method, agent,
      headers: { "accept-encoding": request.headers["accept-encoding"] ?? "" },
    }, (answer) => {
      entry.status = answer.statusCode;
      entry.encoding = answer.headers["content-encoding"] ?? "identity";
      if (answer.statusCode === 200) entry.bytes = resolveFile(root, entry.path.slice(prefix.length))?.size ?? 0;
      const headers = { ...answer.headers };
      for (const name of HOP_HEADERS) delete headers[name];
      // GitHub Pages' caching: ten minutes for everything.
      if (answer.statusCode === 200) headers["cache-control"] = "max-age=600";
      response.writeHead(answer.statusCode, headers);
      answer.on("data", (chunk) => { entry.sent += chunk.length; });
      answer.pipe(response);
    });
    upstream.on("error", (error) => {
      entry.status = 502;
      response.destroy(error);
    });
    upstream.end();
  };
  const server = tls?.cert
    ? createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: false }, handle)
    : createServer(handle);
  if (!tls?.cert) server.keepAliveTimeout = 1000;
  const sessions = new Set();
  server.on(tls?.cert ? "session" : "connection", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve({
      url: `${tls?.cert ? "https" : "http"}://127.0.0.1:${server.address().port}${prefix}`,
      log,
      close: async () => {
        for (const s of sessions) s.destroy();
        await new Promise((done) => server.close(() => done()));
        agent.destroy();
        await origin.close();
      },
    }));
  });
}

// ---------------------------------------------------------------- systems

const since = (log, mark) => log.slice(mark).filter((e) => e.status === 200);
const missing = (log, mark) => [...new Set(log.slice(mark).filter((e) => e.status !== 200)
  .map((e) => e.path))];
/** [path, file bytes, bytes sent, ms from `t0` to the request, to the response's end]. */
const files = (entries, t0) => entries.map((e) => [
  e.path, e.bytes, e.sent, round(e.start - t0), e.end === null ? null : round(e.end - t0)]);
const sum = (entries) => entries.reduce((total, e) => total + e.bytes, 0);
const sent = (entries) => entries.reduce((total, e) => total + e.sent, 0);
const round = (ms) => Math.round(ms * 10) / 10;

/**
 * Within [t0, t1]: `ms` during which at least one of `entries` was in flight, and `rounds`,
 * the stretches of time with a file in flight, separated by stretches with none (a query
 * that asks for the files it needs in three waves, each after the last one came, has
 * three rounds: on a real network each costs at least one round trip).
 */
function inFlight(entries, t0, t1) {
  const spans = entries.map((e) => [Math.max(e.start, t0), Math.min(e.end ?? t1, t1)])
    .filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  let total = 0;
  let rounds = 0;
  let [from, to] = [null, null];
  for (const [a, b] of spans) {
    if (from === null || a > to) {
      if (from !== null) total += to - from;
      [from, to] = [a, b];
      rounds += 1;
    } else {
      to = Math.max(to, b);
    }
  }
  return { ms: from === null ? 0 : total + (to - from), rounds };
}

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

async function launch(tls) {
  const profile = mkdtempSync(join(tmpdir(), "compare-chromium-"));
  const args = tls?.spki ? [...FLAGS, `--ignore-certificate-errors-spki-list=${tls.spki}`]
    : FLAGS;
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: EXECUTABLE, headless: true, args,
    viewport: { width: 1280, height: 800 },
  });
  return { context, close: async () => {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  } };
}

async function measure(plan, run, tls) {
  const kind = KINDS[run.kind];
  const timeout = plan.timeoutMs ?? 180_000;
  const started = performance.now();
  const server = await serve(run.root, plan.prefix, tls);
  const serverStartMs = performance.now() - started;
  const browser = await launch(tls);
  const errors = [];
  const load1 = loadavg()[0];
  try {
    await kind.prepare(browser.context);
    const page = await browser.context.newPage();
    page.setDefaultTimeout(timeout);
    page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));

    let t0 = performance.now();
    await page.goto(server.url, { waitUntil: "networkidle", timeout });
    const onLoad = since(server.log, 0);
    const load = { bytes: sum(onLoad), sent: sent(onLoad), requests: onLoad.length,
                   files: files(onLoad, t0) };

    let mark = server.log.length;
    t0 = performance.now();
    await kind.cold(page, plan.firstQuery, timeout, plan.prefix);
    const t1 = performance.now();
    const coldFetched = since(server.log, mark);
    const coldFlight = inFlight(coldFetched, t0, t1);
    const cold = { ms: t1 - t0, bytes: sum(coldFetched), sent: sent(coldFetched),
                   requests: coldFetched.length, files: files(coldFetched, t0),
                   fetchMs: coldFlight.ms, rounds: coldFlight.rounds };

    // Warm: every query once, after one untimed query that is in no list. Per query:
    // the files whose request came while it ran, and the ms any of them was in flight.
    mark = server.log.length;
    t0 = performance.now();
    await kind.query(page, plan.warmup ?? "path parameters", timeout);
    const warm = { ms: [], counts: [], shown: [], disagree: 0, queryFiles: [], querySent: [],
                   queryFetchMs: [], queryRounds: [], queryWallMs: [] };
    const ranked = [];
    for (const query of plan.queries) {
      const before = server.log.length;
      const q0 = performance.now();
      const answer = await kind.query(page, query, timeout);
      const q1 = performance.now();
      const fetched = since(server.log, before);
      warm.ms.push(answer.ms);
      warm.queryFiles.push(fetched.length);
      warm.querySent.push(sent(fetched));
      const flight = inFlight(fetched, q0, q1);
      warm.queryFetchMs.push(round(flight.ms));
      warm.queryRounds.push(flight.rounds);
      warm.queryWallMs.push(round(q1 - q0));
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
    warm.sent = sent(warmFetched);
    warm.requests = warmFetched.length;
    warm.files = files(warmFetched, t0);
    const versions = {};
    for (const e of server.log) versions[e.version] = (versions[e.version] ?? 0) + 1;
    // A path served twice with a 200: the HTTP cache did not keep it.
    const seen = new Set();
    const refetched = new Set();
    for (const e of since(server.log, 0)) (seen.has(e.path) ? refetched : seen).add(e.path);
    const out = { load, cold, warm, errors, notFound: missing(server.log, 0),
                  httpVersions: versions,
                  refetchedCount: refetched.size, serverStartMs,
                  loadAverage: [load1, loadavg()[0]] };
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

// One protocol for every system of the plan: HTTP/2 over TLS unless it cannot be had.
let tls = null;
let protocol = { asked: plan.protocol ?? "h2" };
if (protocol.asked === "h2") {
  tls = certificate();
  protocol = tls.failed ? { ...protocol, served: "http/1.1", why: `no certificate: ${tls.failed}` }
    : { ...protocol, served: "h2" };
  if (tls.failed) tls = null;
} else {
  protocol.served = "http/1.1";
}

const results = { protocol };
for (const run of plan.runs) {
  const t = performance.now();
  try {
    results[run.name] = await measure(plan, run, tls);
  } catch (error) {
    results[run.name] = { failed: String(error.message ?? error).split("\n").slice(0, 4).join(" ") };
  }
  results[run.name].seconds = (performance.now() - t) / 1000;
  process.stderr.write(`browser.mjs: ${run.name} done in ${results[run.name].seconds.toFixed(1)} s\n`);
}
process.stdout.write(JSON.stringify(results) + "\n");
clearTimeout(watchdog);

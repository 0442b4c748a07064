// Browser side of bench/compare: serves each built site on 127.0.0.1 and measures one
// search system in headless Debian Chromium (js/tools/chromium.mjs, fresh profile per run).
//
//   node browser.mjs PLAN.json  ->  JSON on stdout
//
// PLAN: {prefix, queries, firstQuery, rank (bool), timeoutMs, protocol: "h2"|"http/1.1",
//        runs: [{name, kind: "material"|"pagefind"|"semantic", root,
//                throttle: {mbps, latencyMs} (optional: CDP network emulation)}],
//        fetchCost: {profiles} (optional: first, what a request costs this Chromium,
//        fetch_cost.mjs, in the result's `fetchCost`),
//        coldRepeats (optional: a throttled run's first query again that many times, each
//        in a fresh profile, in its `cold.repeats`)}
//        A run with `firstQueries` (a list) measures only those, each as the first query of
//        a fresh profile, in its `first` (firstQueries below).
//
// Per run: bytes fetched loading the home page (until the network is idle), bytes and
// milliseconds from the first query to its first results (cold HTTP cache), then every
// query once more, warm, timing the search engine's round trip in the page, with the
// files each warm query fetched and how long they were in flight, then every query a
// third time (what each needs already fetched), and (with `rank`) the result pages in
// rank order.
//
// Serving and the browser: serve.mjs (HTTP/2 over TLS as GitHub Pages serves, GitHub
// Pages' compression and caching, every response logged).
//
// Material: its real search box and lunr worker (query typed into the box; the
// worker's QUERY -> RESULT round trip timed by wrapping window.Worker; result links read
// from the rendered list). Pagefind: its browser API (search() + data() of the top 10).
// This plugin: its browser client's API (init, search).

import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { measureFetchCost } from "./fetch_cost.mjs";
import { throttle } from "../../js/tools/chromium.mjs";
import { certificate, launch, serve } from "./serve.mjs";

const RANK_DEPTH = 10;

// ---------------------------------------------------------------- systems

const since = (log, mark) => log.slice(mark).filter((e) => e.status === 200);
/**
 * What a query fetched: the files served since `mark` that were asked for before its
 * answer was in hand (`answeredAt`, epoch ms, where the system reports it). The
 * plugin's idle prefetch starts the moment an answer is out; it is no part of that
 * answer's wait.
 */
const asked = (log, mark, answeredAt) => since(log, mark).filter((e) =>
  answeredAt === undefined || e.start <= answeredAt - performance.timeOrigin);
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

/** In a page or worker: keep every Resource Timing entry until read. */
const KEEP_TIMINGS = () => performance.setResourceTimingBufferSize(1_000_000);

/**
 * The Resource Timing entries of the page and its workers since the last call (then
 * cleared): `{path, start, end}` from the request's start to its response's end on the
 * browser's clock, emulated latency and rate included, in this process's
 * `performance.now()` time (both read the machine's clock).
 */
async function resourceSpans(page) {
  const spans = [];
  for (const target of [page, ...page.workers()]) {
    const entries = await target.evaluate(() => {
      const read = performance.getEntriesByType("resource").map((e) => [
        e.name, performance.timeOrigin + e.startTime, performance.timeOrigin + e.responseEnd]);
      performance.clearResourceTimings();
      return read;
    }).catch(() => []);
    for (const [url, start, end] of entries) {
      spans.push({ path: new URL(url).pathname, start: start - performance.timeOrigin,
                   end: end - performance.timeOrigin });
    }
  }
  return spans;
}

/**
 * The rounds of `served` (the server's log of a phase that began at `t0`) on the
 * browser's clock. The server cannot see a throttled request in flight: it serves each
 * at once, so two requests of one step a few milliseconds apart look like two rounds
 * there, where on the reader's network both are in flight together. A browser records
 * a fetch's timing shortly after the fetch resolves, so this reads until every served
 * path is there (at most about 2 s). Returns `{rounds, files}` (files: [path, ms to the
 * request, ms to the response's end] from `t0`), or null when some never came (the
 * caller then counts on the server's clock, and says so). With `until`, only the files
 * whose response had ended by then count: what a result shown at `until` could wait for.
 */
async function browserRounds(page, log, served, t0, until = Infinity) {
  const wanted = new Set(served.map((e) => e.path));
  for (let tries = 0; tries < 100; tries++) {
    log.push(...await resourceSpans(page));
    const spans = log.filter((e) => e.start >= t0 && wanted.has(e.path));
    if (new Set(spans.map((e) => e.path)).size === wanted.size) {
      const waited = spans.filter((e) => e.end <= until);
      return { rounds: inFlight(waited, t0, Infinity).rounds,
               files: waited.map((e) => [e.path, round(e.start - t0), round(e.end - t0)]) };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return null;
}

/**
 * `fetched` (a query's files, as the server logged them since the query began at `t0`)
 * without those the page or its workers asked for before `t0`: an idle prefetch's
 * request in flight when the query began reaches a throttled server after it.
 */
async function ownFiles(page, log, fetched, t0) {
  log.push(...await resourceSpans(page));
  const before = new Set(log.filter((e) => e.start < t0).map((e) => e.path));
  const since = new Set(log.filter((e) => e.start >= t0).map((e) => e.path));
  return fetched.filter((e) => since.has(e.path) || !before.has(e.path));
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
               answeredAt: performance.timeOrigin + performance.now(),
               hrefs: data.map((d) => new URL(d.url, location.href).href),
               count: found.results.length };
    }, [query, RANK_DEPTH]);
  },
  async cold(page, query, timeout, prefix) {
    await this.setup(page, prefix);
    return this.query(page, query);
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
  /** With `progressive`, also `keywordAt`: when the keyword results came (the search's
   * partial answer, as the search box shows it; the final answer when none came first). */
  async query(page, query, timeout, topK = RANK_DEPTH, progressive = false) {
    return page.evaluate(async ([query, topK, progressive]) => {
      const t = performance.now();
      const now = () => performance.timeOrigin + performance.now();
      let keywordAt;
      const onPartial = progressive ? () => { keywordAt ??= now(); } : undefined;
      const hits = await window.__semantic.search(query, { topK, onPartial });
      const ms = performance.now() - t;
      const answeredAt = now();
      const pages = [];
      for (const hit of hits) {
        const page = hit.page ?? hit.url.split("#")[0];
        if (!pages.includes(page)) pages.push(page);
      }
      return { ms, hrefs: pages, count: hits.length, answeredAt,
               keywordAt: progressive ? keywordAt ?? answeredAt : undefined };
    }, [query, topK, progressive]);
  },
  async cold(page, query, timeout, prefix) {
    await this.setup(page, prefix);
    return this.query(page, query, timeout, RANK_DEPTH, true);
  },
};

const KINDS = { material, pagefind, semantic };

// ---------------------------------------------------------------- one run

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
    if (run.throttle) await throttle(browser.context, page, run.throttle);
    const browserLog = []; // Resource Timing spans read so far (browserRounds)
    page.on("worker", (worker) => worker.evaluate(KEEP_TIMINGS).catch(() => {}));
    page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));

    let t0 = performance.now();
    await page.goto(server.url, { waitUntil: "networkidle", timeout });
    await page.evaluate(KEEP_TIMINGS);
    const onLoad = since(server.log, 0);
    const load = { bytes: sum(onLoad), sent: sent(onLoad), requests: onLoad.length,
                   files: files(onLoad, t0) };

    let mark = server.log.length;
    t0 = performance.now();
    const coldAnswer = await kind.cold(page, plan.firstQuery, timeout, plan.prefix);
    const t1 = performance.now();
    const coldFetched = asked(server.log, mark, coldAnswer?.answeredAt);
    const coldFlight = inFlight(coldFetched, t0, t1);
    const cold = { ms: t1 - t0, bytes: sum(coldFetched), sent: sent(coldFetched),
                   requests: coldFetched.length, files: files(coldFetched, t0),
                   fetchMs: coldFlight.ms, serverRounds: coldFlight.rounds };
    const coldSeen = await browserRounds(page, browserLog, coldFetched, t0);
    Object.assign(cold, { rounds: coldSeen?.rounds ?? coldFlight.rounds,
                          browserFiles: coldSeen?.files ?? null });
    if (coldAnswer?.keywordAt !== undefined) {
      // The keyword results' own wait: the rounds of the files that had come when they
      // came (a file asked for before them, still in flight then, is the final ranking's).
      // Bytes: every file asked for before them.
      const shownAt = coldAnswer.keywordAt - performance.timeOrigin;
      const keywordFetched = asked(server.log, mark, coldAnswer.keywordAt);
      const keywordSeen = await browserRounds(page, browserLog, keywordFetched, t0, shownAt);
      cold.keyword = { ms: shownAt - t0, sent: sent(keywordFetched), requests: keywordFetched.length,
                       rounds: keywordSeen?.rounds
                         ?? inFlight(keywordFetched.filter((e) => e.end !== null && e.end <= shownAt), t0, t1).rounds,
                       browserFiles: keywordSeen?.files ?? null };
    }

    // Warm: every query once, after one untimed query that is in no list. Per query:
    // the files whose request came while it ran, and the ms any of them was in flight.
    mark = server.log.length;
    t0 = performance.now();
    await kind.query(page, plan.warmup ?? "path parameters", timeout);
    const warm = { ms: [], counts: [], shown: [], disagree: 0, queryFiles: [], querySent: [],
                   queryFetchMs: [], queryRounds: [], queryServerRounds: [], queryWallMs: [] };
    const ranked = [];
    for (const query of plan.queries) {
      // a reader reads the results before the next query (`pauseMs`, 0 unless asked):
      // the client's idle time, in which it may prefetch (those files are no query's)
      if (plan.pauseMs) await new Promise((resolve) => setTimeout(resolve, plan.pauseMs));
      const before = server.log.length;
      const q0 = performance.now();
      const answer = await kind.query(page, query, timeout);
      const q1 = performance.now();
      const fetched = await ownFiles(page, browserLog,
        asked(server.log, before, answer.answeredAt), q0);
      warm.ms.push(answer.ms);
      warm.queryFiles.push(fetched.length);
      warm.querySent.push(sent(fetched));
      const flight = inFlight(fetched, q0, q1);
      warm.queryFetchMs.push(round(flight.ms));
      warm.queryServerRounds.push(flight.rounds);
      const seen = await browserRounds(page, browserLog, fetched, q0);
      if (seen === null) warm.roundsOnServerClock = (warm.roundsOnServerClock ?? 0) + 1;
      warm.queryRounds.push(seen?.rounds ?? flight.rounds);
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
    // The same queries again: every file each needs is in memory (or the HTTP cache), so
    // this is the engine's own time, without fetching.
    const repeatMark = server.log.length;
    warm.repeatMs = [];
    for (const query of plan.queries) warm.repeatMs.push((await kind.query(page, query, timeout)).ms);
    warm.repeatFetched = since(server.log, repeatMark).length;
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
    // The first query again in fresh profiles, once this run's own figures are taken and
    // its page is closed: where two of its steps nearly overlap, its rounds on the
    // browser's clock vary by one from one run to the next. A repeat that fails says so.
    if (run.throttle && plan.coldRepeats) {
      await page.close();
      cold.repeats = [];
      for (let r = 0; r < plan.coldRepeats; r++) {
        cold.repeats.push(await orFailed(firstQueryAgain(plan, run, tls, server, timeout)));
      }
    }
    return out;
  } finally {
    await browser.close();
    await server.close();
  }
}

/** What `promise` resolves to, or `{failed}`: the first line of its error. */
const orFailed = (promise) => promise.catch((error) => ({ failed: String(error.message ?? error).split("\n")[0] }));

/**
 * One more first query of `run` (`query`, the plan's first unless given), in a fresh
 * profile on the same server: the home page loaded, then the query. Returns `{rounds,
 * sent, requests, loadSearchSent, ms, onServerClock}` (rounds counted as the run's own
 * are, on the browser's clock where it recorded every file; `loadSearchSent`: the
 * plugin's files the page loaded, under semantic/).
 */
async function firstQueryAgain(plan, run, tls, server, timeout, query = plan.firstQuery) {
  const kind = KINDS[run.kind];
  const browser = await launch(tls);
  try {
    await kind.prepare(browser.context);
    const page = await browser.context.newPage();
    page.setDefaultTimeout(timeout);
    await throttle(browser.context, page, run.throttle);
    page.on("worker", (worker) => worker.evaluate(KEEP_TIMINGS).catch(() => {}));
    const loadMark = server.log.length;
    await page.goto(server.url, { waitUntil: "networkidle", timeout });
    await page.evaluate(KEEP_TIMINGS);
    const mark = server.log.length;
    const t0 = performance.now();
    const answer = await kind.cold(page, query, timeout, plan.prefix);
    const t1 = performance.now();
    if (answer?.count === 0) throw new Error("the first query found nothing");
    const fetched = asked(server.log, mark, answer?.answeredAt);
    const seen = await browserRounds(page, [], fetched, t0);
    const loadSearch = server.log.slice(loadMark, mark)
      .filter((e) => e.status === 200 && e.path.startsWith(`${plan.prefix}semantic/`));
    return { rounds: seen?.rounds ?? inFlight(fetched, t0, t1).rounds, sent: sent(fetched),
             requests: fetched.length, loadSearchSent: sent(loadSearch),
             ms: round(t1 - t0), onServerClock: seen === null };
  } finally {
    await browser.close();
  }
}

/**
 * Each of `run.firstQueries` as the first query of a fresh profile (firstQueryAgain), on
 * one server: `{first: [{query, rounds, sent, requests, loadSearchSent, ms, onServerClock}
 * or {query, failed}]}`.
 */
async function firstQueries(plan, run, tls) {
  const timeout = plan.timeoutMs ?? 180_000;
  const server = await serve(run.root, plan.prefix, tls);
  try {
    const first = [];
    for (const query of run.firstQueries) {
      first.push({ query, ...await orFailed(firstQueryAgain(plan, run, tls, server, timeout, query)) });
    }
    return { first, notFound: missing(server.log, 0), loadAverage: loadavg()[0] };
  } finally {
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
if (plan.fetchCost) {
  try {
    results.fetchCost = await measureFetchCost(tls, plan.fetchCost);
  } catch (error) {
    results.fetchCost = { failed: String(error.message ?? error).split("\n")[0] };
  }
  process.stderr.write(`browser.mjs: fetch cost ${results.fetchCost.perFile ?? "failed"} ms a file\n`);
}
for (const run of plan.runs) {
  const t = performance.now();
  try {
    results[run.name] = await (run.firstQueries ? firstQueries(plan, run, tls) : measure(plan, run, tls));
  } catch (error) {
    results[run.name] = { failed: String(error.message ?? error).split("\n").slice(0, 4).join(" ") };
  }
  results[run.name].seconds = (performance.now() - t) / 1000;
  process.stderr.write(`browser.mjs: ${run.name} done in ${results[run.name].seconds.toFixed(1)} s\n`);
}
process.stdout.write(JSON.stringify(results) + "\n");
clearTimeout(watchdog);

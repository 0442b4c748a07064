// Drives a built site in headless Chromium and prints what it saw as JSON, for the
// pytest browser tests and bench/browser.py (which make the assertions and tables).
//
//   node tools/drive.mjs search|parity|bench|keywordFirst PLAN.json
//
// PLAN: {site, prefix, start, theme, ...}; see each scenario below.

import { appendFileSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { launch } from "./chromium.mjs";
import { serveSite } from "./server.mjs";

const TIMEOUT = 60_000;

/** Result links in page order: our own carry data-score, Material's their article's. */
const links = (selector) => (page) => page.$$eval(selector, (anchors) => anchors.map((a) => ({
  href: a.href,
  score: Number(a.dataset.score ?? a.querySelector("[data-md-score]")?.dataset.mdScore),
  text: a.textContent,
  html: a.innerHTML,
})));

// How to reach each search box (the `mkdocs` theme's modal, Material's, our dialog).
const THEMES = {
  mkdocs: {
    input: "#mkdocs-search-query",
    open: async (page) => {
      await page.click('a[data-bs-target="#mkdocs_search_modal"]');
      await page.waitForFunction(() => document.activeElement?.id === "mkdocs-search-query");
    },
    results: links("#mkdocs-search-results a.semantic-hit"),
    status: ".semantic-status",
  },
  material: {
    input: 'input[data-md-component="search-query"]',
    open: (page) => page.click('input[data-md-component="search-query"]'),
    results: links(".md-search-result__list a.md-search-result__link"),
    status: ".md-search-result__meta",
  },
  dialog: {
    input: ".semantic-dialog input",
    open: async (page) => {
      await page.keyboard.press("/");
      await page.locator(".semantic-dialog input").waitFor();
    },
    results: links(".semantic-dialog a.semantic-hit"),
    status: ".semantic-status",
  },
};

/** True once no provisional keyword results are on screen (the model has answered). */
const settled = (page) => page.evaluate(() => {
  if (document.querySelector('[data-ranking="keyword"]')) return false;
  const meta = document.querySelector(".md-search-result__meta")?.textContent ?? "";
  return !/^(Downloading|Starting) the search model/.test(meta);
});

/** Results once they stop changing (typing sends several queries; the last one wins). */
async function stableResults(page, theme) {
  const deadline = Date.now() + TIMEOUT;
  let last = "";
  let same = 0;
  while (Date.now() < deadline) {
    const results = await theme.results(page);
    const key = JSON.stringify(results);
    same = results.length && key === last && (await settled(page)) ? same + 1 : 0;
    if (same >= 5) return results;
    last = key;
    await page.waitForTimeout(100);
  }
  const status = await page.$$eval(theme.status, (els) => els.map((e) => e.textContent));
  throw new Error(`no stable results within ${TIMEOUT} ms; status: ${JSON.stringify(status)}`);
}

/** Records every text the status line shows (progress messages are short-lived). */
function watchStatus(page, selector) {
  return page.evaluate((selector) => {
    window.__statusSeen = [];
    new MutationObserver(() => {
      for (const el of document.querySelectorAll(selector)) {
        const text = el.textContent.trim();
        if (text && window.__statusSeen.at(-1) !== text) window.__statusSeen.push(text);
      }
    }).observe(document.documentElement, { subtree: true, childList: true, characterData: true });
  }, selector);
}

/** `plan.url`: a running server (mkdocs serve); else `plan.site` is served here. */
async function withSite(plan, fn) {
  const server = plan.url ? { url: plan.url, log: [], close: async () => {} }
    : await serveSite(plan.site, { prefix: plan.prefix ?? "/" });
  const browser = await launch();
  const page = await browser.context.newPage();
  const seen = { dialogs: [], pageErrors: [], consoleErrors: [] };
  page.on("dialog", (dialog) => {
    seen.dialogs.push(dialog.message());
    dialog.dismiss().catch(() => {});
  });
  page.on("pageerror", (error) => seen.pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") seen.consoleErrors.push(message.text());
  });
  try {
    const result = await fn({ page, server, context: browser.context });
    return { ...result, ...seen, requests: server.log.map((entry) => entry.path) };
  } finally {
    await browser.close();
    await server.close();
  }
}

// plan: {theme, start, navigate: [link selector, ...], queries: [{query, press, pick, edit}]}
// `pick`: choose the result whose link ends with it by arrow keys before Enter.
// A step with `edit: {file, text}` appends text to a source file and, instead of
// loading the start page, waits for `mkdocs serve` to rebuild and reload the page.
async function search(plan) {
  const theme = THEMES[plan.theme];
  return withSite(plan, async ({ page, server }) => {
    const out = [];
    for (const step of plan.queries) {
      if (step.edit) {
        const reloaded = page.waitForEvent("load", { timeout: TIMEOUT });
        appendFileSync(step.edit.file, step.edit.text);
        await reloaded;
      } else {
        await page.goto(server.url + (plan.start ?? ""));
      }
      for (const selector of plan.navigate ?? []) {
        const before = page.url();
        await page.click(selector);
        await page.waitForURL((url) => url.href !== before, { waitUntil: "commit" });
      }
      const searchedOn = page.url();
      await watchStatus(page, theme.status);
      await theme.open(page);
      await page.locator(theme.input).pressSequentially(step.query);
      const results = await stableResults(page, theme);
      const record = {
        query: step.query,
        results,
        status: await page.evaluate(() => window.__statusSeen),
        workers: page.workers().map((w) => w.url()),
        searchedOn,
        images: await page.$$eval(".semantic-hit img, .md-search-result img", (els) => els.length),
      };
      if (step.pick) {
        // Arrow keys down to the result whose link ends with `pick` (at most 3 steps).
        for (let i = 0; i < 3 && !(await selectedHref(page)).endsWith(step.pick); i++) {
          await page.keyboard.press("ArrowDown");
        }
        record.picked = await selectedHref(page);
      }
      if (step.press) {
        const before = page.url();
        await page.keyboard.press("Enter");
        await page.waitForURL((url) => url.href !== before, { waitUntil: "commit", timeout: TIMEOUT });
        record.landed = page.url();
      }
      out.push(record);
    }
    return { queries: out };
  });
}

/** The result the keyboard has selected: ours mark it, Material focuses it. */
const selectedHref = (page) => page.evaluate(() =>
  (document.querySelector('a.semantic-hit[aria-selected="true"]') ??
    document.activeElement?.closest?.("a"))?.href ?? "");

async function api(page, fn, arg) {
  return page.evaluate(async ({ fn, arg }) => {
    // The stable API entry the plugin writes beside manifest.json.
    const manifest = document.querySelector('meta[name="semantic-search"]').content;
    const semantic = await import(new URL("semantic.js", new URL(manifest, document.baseURI)).href);
    semantic.init();
    return new Function("semantic", "arg", `return (${fn})(semantic, arg)`)(semantic, arg);
  }, { fn: fn.toString(), arg });
}

// plan: {start, queries, filters}: per query the browser's query vector (int8 codes for
// int8 vectors, null when it has none), its plain vector top 10 (ids, scores), and its
// hybrid top 10 without and with `filters`, and its keyword top 10.
async function parity(plan) {
  return withSite(plan, async ({ page, server }) => {
    await page.goto(server.url + (plan.start ?? ""));
    const answers = await api(page, async (semantic, { queries, filters }) => {
      const out = [];
      const ids = (hits) => hits.map((h) => h.id);
      for (const query of queries) {
        const embedded = await semantic.embed(query);
        const vector = embedded === null ? null : Array.from(embedded);
        const hits = await semantic.searchVector(query, { topK: 10 });
        out.push({
          query, vector, ids: ids(hits), scores: hits.map((h) => h.score),
          hybrid: ids(await semantic.search(query, { topK: 10 })),
          hybridScores: (await semantic.search(query, { topK: 10 })).map((h) => h.score),
          filtered: ids(await semantic.search(query, { topK: 10, filters })),
          lexical: ids(await semantic.search(query, { topK: 10, mode: "lexical" })),
        });
      }
      return out;
    }, { queries: plan.queries, filters: plan.filters });
    return { answers };
  });
}

// plan: {theme, start, query, delayMs, hold}: the files whose URL matches `hold` (a
// regular expression; by default the model) are held back `delayMs`; records what the
// list shows (and its ranking) before they arrive and after.
async function keywordFirst(plan) {
  const theme = THEMES[plan.theme];
  return withSite(plan, async ({ page, server }) => {
    let modelRequested = 0;
    await page.route(new RegExp(plan.hold ?? "/model\\.[0-9a-f]+\\.onnx$"), async (route) => {
      modelRequested ||= Date.now();
      await new Promise((resolve) => setTimeout(resolve, plan.delayMs));
      await route.continue();
    });
    await page.goto(server.url + (plan.start ?? ""));
    await theme.open(page);
    await page.locator(theme.input).fill(plan.query); // one input event: the whole query
    await page.waitForSelector('[data-ranking="keyword"] a.semantic-hit', { timeout: TIMEOUT });
    const early = {
      results: await theme.results(page),
      atMs: Date.now() - modelRequested,
      modelRequested: modelRequested > 0,
      note: await page.$eval('[data-ranking="keyword"] .semantic-status', (e) => e.textContent)
        .catch(() => ""),
    };
    await page.waitForSelector('[data-ranking="hybrid"] a.semantic-hit', { timeout: TIMEOUT });
    const late = { results: await theme.results(page), atMs: Date.now() - modelRequested };
    return { early, late };
  });
}

const sum = (entries) => entries.reduce((total, e) => total + e.bytes, 0);

// plan: {theme, start, bundleDir, query, queries}: bytes on load, cold first result, warm latency.
async function bench(plan) {
  const theme = THEMES[plan.theme];
  return withSite(plan, async ({ page, server }) => {
    const ours = (entries) => sum(entries.filter((e) => e.path.includes(`/${plan.bundleDir}/`)));
    await page.goto(server.url + (plan.start ?? ""), { waitUntil: "networkidle" });
    const onLoad = server.log.slice();
    await theme.open(page);
    const mark = server.log.length;
    const started = performance.now();
    await page.locator(theme.input).fill(plan.query);
    await page.locator(theme.input).press("End"); // Material reads the box on keyup
    await page.waitForFunction((selector) => document.querySelector(selector),
      plan.theme === "material" ? ".md-search-result__list li" : "a.semantic-hit", { timeout: TIMEOUT });
    const coldMs = performance.now() - started;
    const cold = server.log.slice(mark);
    const latencies = await api(page, async (semantic, queries) => {
      await semantic.search(queries[0]);
      const ms = [];
      for (const query of queries) {
        const t = performance.now();
        await semantic.search(query, { topK: 10 });
        ms.push(performance.now() - t);
      }
      return ms;
    }, plan.queries);
    return {
      load: { bytes: sum(onLoad), semanticBytes: ours(onLoad), requests: onLoad.length },
      cold: { ms: coldMs, bytes: sum(cold), semanticBytes: ours(cold),
              files: cold.map((e) => [e.path, e.bytes]) },
      warm: { ms: latencies },
    };
  });
}

const SCENARIOS = { search, parity, bench, keywordFirst };
const [scenario, planFile] = process.argv.slice(2);
if (!SCENARIOS[scenario] || !planFile) {
  console.error(`usage: node tools/drive.mjs ${Object.keys(SCENARIOS).join("|")} PLAN.json`);
  process.exit(2);
}
const result = await SCENARIOS[scenario](JSON.parse(readFileSync(planFile, "utf8")));
process.stdout.write(JSON.stringify(result) + "\n");

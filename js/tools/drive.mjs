// Drives a built site in headless Chromium and prints what it saw as JSON, for the
// pytest browser tests and bench/browser.py (which make the assertions and tables).
//
//   node tools/drive.mjs search|parity|bench|keywordFirst|typing|correction|progressive PLAN.json
//
// PLAN: {site, prefix, start, theme, ...}; see each scenario below.

import { appendFileSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { launch, throttle } from "./chromium.mjs";
import { serveSite } from "./server.mjs";

const TIMEOUT = 60_000;
// The model file a transformer query waits for first: the layers of the forward pass.
const MODEL_LAYERS = "/model/layers\\.[0-9a-f]+\\.bin$";

/**
 * Result links in page order: our own carry data-score and data-rank (0: the best
 * result, the one Enter opens), Material's their article's score.
 */
const links = (selector) => (page) => page.$$eval(selector, (anchors) => anchors.map((a) => ({
  href: a.href,
  score: Number(a.dataset.score ?? a.querySelector("[data-md-score]")?.dataset.mdScore),
  rank: a.dataset.rank === undefined ? null : Number(a.dataset.rank),
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
  // The readthedocs theme: its sidebar box answers in a panel under it.
  readthedocs: {
    input: "#rtd-search-form input[name=q]",
    open: (page) => page.click("#rtd-search-form input[name=q]"),
    results: links(".semantic-sidebar-output a.semantic-hit"),
    status: ".semantic-status",
  },
  // The same box, reached with "/" from the page (the key goes to it while it is on
  // screen, where themes without a box open the dialog).
  readthedocsSlash: {
    input: "#rtd-search-form input[name=q]",
    open: async (page) => {
      await page.keyboard.press("/");
      await page.waitForFunction(() => document.activeElement?.matches("#rtd-search-form input[name=q]"));
    },
    results: links(".semantic-sidebar-output a.semantic-hit"),
    status: ".semantic-status",
  },
  // The readthedocs theme's search page (search.html?q=..., where the sidebar's form
  // leads without our script): its own box and result list, the search plugin's ids.
  readthedocsPage: {
    input: "#mkdocs-search-query",
    open: (page) => page.click("#mkdocs-search-query"),
    results: links("#mkdocs-search-results a.semantic-hit"),
    status: ".semantic-status",
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
  // Zensical's search button in its header opens our dialog (mkdocs-semantic index
  // --ui auto took it from Zensical's own search); "/" does too (zensicalSlash).
  zensical: {
    input: ".semantic-zensical input",
    open: async (page) => {
      await page.click(".md-search__button");
      await page.waitForFunction(() => document.activeElement?.matches(".semantic-zensical input"));
    },
    results: links(".semantic-zensical a.semantic-hit"),
    status: ".semantic-status",
  },
  zensicalSlash: {
    input: ".semantic-zensical input",
    open: async (page) => {
      await page.keyboard.press("/");
      await page.waitForFunction(() => document.activeElement?.matches(".semantic-zensical input"));
    },
    results: links(".semantic-zensical a.semantic-hit"),
    status: ".semantic-status",
  },
  // The same dialog, opened by its search button (themes with no search box).
  button: {
    input: ".semantic-dialog input",
    open: async (page) => {
      await page.click("button.semantic-open");
      await page.waitForFunction(() => document.activeElement?.matches(".semantic-dialog input"));
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
    : await serveSite(plan.site, { prefix: plan.prefix ?? "/", gzip: plan.gzip ?? false,
                                   cacheControl: plan.cacheControl });
  const browser = await launch();
  const page = await browser.context.newPage();
  // A page load waits for every file of the theme; on a loaded machine with the network
  // throttled that can pass Playwright's 30 s default, which is no fault of the page.
  page.setDefaultNavigationTimeout(3 * TIMEOUT);
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
    return { ...result, ...seen, requests: server.log.map((entry) => entry.path),
             dests: server.log.map((entry) => [entry.path, entry.dest]),
             statuses: server.log.map((entry) => [entry.path, entry.status]), served: tally(server.log) };
  } finally {
    await browser.close();
    await server.close();
  }
}

// plan: {theme, start, navigate: [link selector, ...], typeDelayMs, marks, viewport,
//        queries: [{query, press, pick, edit, typed}]}
// `viewport`: {width, height} of the window (a narrow one: a phone's layout).
// Queries are typed key by key, each key held `typeDelayMs` (default: 0), unless
// `typed: false` (the start URL carries the query, as search.html?q=...). `marks`:
// record the words the opened page marks (Material's search.highlight).
// `pick`: choose the result whose link ends with it by arrow keys before Enter.
// `escape`: press Esc and record whether the result panels are open.
// `newTab`: Ctrl-click (Cmd on macOS) the first result link; record the URL of the tab
// it opened, the page's own URL after it (the page stays where it was) and whether our
// dialog is still open.
// A step with `edit: {file, text}` appends text to a source file and, instead of
// loading the start page, waits for `mkdocs serve` to rebuild and reload the page.
async function search(plan) {
  const theme = THEMES[plan.theme];
  return withSite(plan, async ({ page, server, context }) => {
    if (plan.viewport) await page.setViewportSize(plan.viewport);
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
      if (step.typed !== false) {
        await theme.open(page);
        await page.keyboard.type(step.query, { delay: plan.typeDelayMs ?? 0 });
      }
      const results = await stableResults(page, theme);
      const record = {
        query: step.query,
        results,
        status: await page.evaluate(() => window.__statusSeen),
        workers: page.workers().map((w) => w.url()),
        searchedOn,
        images: await page.$$eval(".semantic-hit img, .md-search-result img", (els) => els.length),
        // What the result box says it shows: [ranking, query].
        ranking: await page.$$eval("[data-ranking]", (els) => els.map((e) => [e.dataset.ranking, e.dataset.query])),
        dialogOpen: await page.$$eval("dialog.semantic-dialog", (els) => els.some((e) => e.open)),
        // What the box the keys went to asks of the keyboard (capitals, corrections).
        typedInto: await page.evaluate(() => Object.fromEntries(
          ["autocapitalize", "autocorrect", "autocomplete", "spellcheck"]
            .map((name) => [name, document.activeElement?.getAttribute(name) ?? null]))),
      };
      if (step.pick) {
        // Arrow keys down to the result whose link ends with `pick` (at most 3 steps).
        for (let i = 0; i < 3 && !(await selectedHref(page)).endsWith(step.pick); i++) {
          await page.keyboard.press("ArrowDown");
        }
        record.picked = await selectedHref(page);
      }
      if (step.newTab) {
        const [tab] = await Promise.all([context.waitForEvent("page", { timeout: TIMEOUT }),
          page.click("a.semantic-hit >> nth=0", { modifiers: ["ControlOrMeta"] })]);
        await tab.waitForLoadState("domcontentloaded");
        record.newTab = { opened: tab.url(), stayed: page.url(),
          dialogOpen: await page.$$eval("dialog.semantic-dialog", (els) => els.some((e) => e.open)) };
        await tab.close();
      }
      if (step.escape) {
        // Esc: what the panel and the combobox say after it (readthedocs' sidebar).
        await page.keyboard.press("Escape");
        record.escaped = await page.evaluate((input) => ({
          panels: [...document.querySelectorAll(".semantic-sidebar-output")].map((e) => !e.hidden),
          expanded: document.querySelector(input)?.getAttribute("aria-expanded"),
          focused: document.activeElement === document.querySelector(input),
          value: document.querySelector(input)?.value,
        }), theme.input);
      }
      if (step.press) {
        const before = page.url();
        await page.keyboard.press("Enter");
        await page.waitForURL((url) => url.href !== before, { waitUntil: "commit", timeout: TIMEOUT });
        record.landed = page.url();
        if (plan.marks) {
          // Material's search.highlight: the opened page marks the words of the query.
          const marked = "[data-md-component=content] mark[data-md-highlight]";
          await page.waitForSelector(marked, { timeout: TIMEOUT });
          record.marks = await page.$$eval(marked, (els) => els.map((e) => e.textContent));
        }
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

// plan: {theme, start, query, delayMs, hold, typeDelayMs}: the files whose URL matches
// `hold` (a regular expression; by default the model) are held back `delayMs`; the query
// is typed key by key (each key held `typeDelayMs`, default 0); records what the list
// shows for the whole query (and its ranking) before they arrive and after.
async function keywordFirst(plan) {
  const theme = THEMES[plan.theme];
  return withSite(plan, async ({ page, server }) => {
    let modelRequested = 0;
    await page.route(new RegExp(plan.hold ?? MODEL_LAYERS), async (route) => {
      modelRequested ||= Date.now();
      await new Promise((resolve) => setTimeout(resolve, plan.delayMs));
      await route.continue();
    });
    await page.goto(server.url + (plan.start ?? ""));
    await theme.open(page);
    await page.keyboard.type(plan.query, { delay: plan.typeDelayMs ?? 0 });
    await page.waitForFunction((query) => {
      const box = document.querySelector('[data-ranking="keyword"]');
      return box?.dataset.query === query && box.querySelector("a.semantic-hit");
    }, plan.query, { timeout: TIMEOUT });
    const early = {
      results: await theme.results(page),
      atMs: Date.now() - modelRequested,
      modelRequested: modelRequested > 0,
      note: await page.$eval('[data-ranking="keyword"] .semantic-status', (e) => e.textContent)
        .catch(() => ""),
    };
    await page.waitForFunction((query) => {
      const box = document.querySelector('[data-ranking="hybrid"]');
      return box?.dataset.query === query && box.querySelector("a.semantic-hit");
    }, plan.query, { timeout: TIMEOUT });
    const late = { results: await theme.results(page), atMs: Date.now() - modelRequested };
    return { early, late };
  });
}

/**
 * Raw and sent bytes of log entries, and the entries as [path, bytes, sent, ms], ms
 * being when the server began to answer, after `since` (epoch ms).
 */
function tally(entries, since = entries[0]?.at ?? 0) {
  return {
    requests: entries.length,
    bytes: entries.reduce((total, e) => total + e.bytes, 0),
    sent: entries.reduce((total, e) => total + e.sent, 0),
    files: entries.map((e) => [e.path, e.bytes, e.sent, e.at - since]),
  };
}

/**
 * In the page: the time of every keydown and keyup, and when the hybrid results for `query` are
 * on screen: the result box carries data-ranking="hybrid" and data-query=query (our
 * search boxes set them, and on Material our page script from the worker's note) and
 * holds results. Times are epoch ms (the server's log uses the same clock).
 */
function watchFirstResult(page, query) {
  return page.evaluate((query) => {
    const now = () => performance.timeOrigin + performance.now();
    const seen = { keys: [], ups: [], shownAt: null };
    window.__firstResult = seen;
    addEventListener("keydown", () => seen.keys.push(now()), true);
    addEventListener("keyup", () => seen.ups.push(now()), true);
    const check = () => {
      if (seen.shownAt !== null) return;
      const box = document.querySelector('[data-ranking="hybrid"]');
      if (box?.dataset.query === query && box.querySelector("a[href]")) seen.shownAt = now();
    };
    new MutationObserver(check).observe(document.documentElement, {
      subtree: true, childList: true, attributes: true, attributeFilter: ["data-ranking", "data-query"],
    });
  }, query);
}

// plan: {theme, start, bundleDir, query, typeDelayMs, queries}, served gzip-compressed.
// Page load: what the page fetched before the search box gets focus. First result:
// `query` typed key by key with Playwright's keyboard.type and `typeDelayMs` (each key
// held that long, the next pressed on its release), or without it filled in at once, in a
// fresh profile; the requests from the first keystroke until the hybrid results are
// shown, and the ms from the first key pressed, the last key pressed and the last key
// released. Warm: with `queries`,
// the public search() API's latency for each (everything loaded by the first result
// stays loaded; shards a query needs that no query needed before load then), twice.
async function bench(plan) {
  const theme = THEMES[plan.theme];
  return withSite({ ...plan, gzip: true }, async ({ page, server }) => {
    await page.goto(server.url + (plan.start ?? ""), { waitUntil: "networkidle" });
    const onLoad = server.log.slice();
    await watchFirstResult(page, plan.query);
    await theme.open(page);
    const mark = server.log.length;
    if (plan.typeDelayMs) {
      await page.keyboard.type(plan.query, { delay: plan.typeDelayMs });
    } else {
      await page.keyboard.insertText(plan.query); // a paste: one input event
      await page.keyboard.press("End"); // one key: Material reads the box on keyup
    }
    await page.waitForFunction(() => window.__firstResult.shownAt !== null, null, { timeout: TIMEOUT });
    const { keys, ups, shownAt } = await page.evaluate(() => window.__firstResult);
    const first = server.log.slice(mark).filter((e) => e.at <= shownAt);
    const result = {
      load: tally(onLoad),
      first: {
        ...tally(first, keys.at(-1)), // file times after the last keystroke
        fromFirstKeyMs: shownAt - keys[0],
        fromLastKeyMs: shownAt - keys.at(-1), // from pressing the last key
        fromLastKeyUpMs: shownAt - ups.at(-1), // from releasing it (Material reads on keyup)
        keys: keys.length,
      },
    };
    if (plan.queries?.length) {
      // One client for both passes (api() starts a fresh one): kept on the page.
      await api(page, async (semantic, first) => {
        await semantic.search(first);
        window.__warmSearch = semantic.search;
      }, plan.queries[0]);
      const pass = async () => {
        const before = server.log.length;
        const ms = await page.evaluate(async (queries) => {
          const out = [];
          for (const query of queries) {
            const t = performance.now();
            await window.__warmSearch(query, { topK: 10 });
            out.push(performance.now() - t);
          }
          return out;
        }, plan.queries);
        return { ms, requests: server.log.length - before };
      };
      result.warm = { first: await pass(), again: await pass() };
    }
    return result;
  });
}

// Where each theme's result box says what it shows: the box (data-query, data-ranking),
// its result links, and the list that may be hidden (Material, for an older text).
const BOXES = {
  mkdocs: { box: "#mkdocs-search-results", links: "a.semantic-hit" },
  readthedocs: { box: ".semantic-sidebar-output", links: "a.semantic-hit" },
  material: { box: ".md-search-result", links: ".md-search-result__list a.md-search-result__link",
              list: ".md-search-result__list" },
  button: { box: ".semantic-dialog .semantic-output", links: "a.semantic-hit" },
  zensical: { box: ".semantic-zensical .semantic-output", links: "a.semantic-hit" },
  zensicalSlash: { box: ".semantic-zensical .semantic-output", links: "a.semantic-hit" },
};

/**
 * In the page: every keydown and keyup (time), every input event (time, text) and every
 * change of what the result box shows (time, the text in the search box then, the box's
 * data-query and data-ranking, the links on show), recorded by a MutationObserver as the
 * page renders. Times are epoch ms (performance.timeOrigin + performance.now()).
 */
function recordRenders(page, where) {
  return page.evaluate(({ box: boxSelector, links, list: listSelector, input }) => {
    const log = { inputs: [], keys: [], ups: [], renders: [] };
    window.__typing = log;
    const now = () => performance.timeOrigin + performance.now();
    addEventListener("keydown", () => log.keys.push(now()), true);
    addEventListener("keyup", () => log.ups.push(now()), true);
    addEventListener("input", (event) => log.inputs.push({ at: now(), text: event.target.value }), true);
    let last = "";
    const record = () => {
      const box = document.querySelector(boxSelector);
      if (!box) return;
      const list = listSelector ? document.querySelector(listSelector) : null;
      const visible = !list?.hidden;
      const shown = visible ? [...box.querySelectorAll(links)].map((a) => a.href) : [];
      const state = {
        input: document.querySelector(input)?.value ?? "",
        query: box.dataset.query ?? null,
        ranking: box.dataset.ranking ?? null,
        links: shown,
      };
      const key = JSON.stringify([state.query, state.ranking, shown]);
      if (key === last) return;
      last = key;
      log.renders.push({ at: now(), ...state });
    };
    new MutationObserver(record).observe(document.documentElement, {
      subtree: true, childList: true, attributes: true,
      attributeFilter: ["data-query", "data-ranking", "hidden", "href"],
    });
  }, { ...where, input: THEMES[where.theme].input });
}

// plan: {theme, start, query, typeDelayMs, throttle: {mbps, latencyMs}}: a fresh
// profile, the network throttled with CDP Network.emulateNetworkConditions; the query
// typed key by key with keyboard.type (each key held `typeDelayMs`); waits for the
// final ranking of the whole query. Returns the page's logs (recordRenders), when the
// model's file was requested (the server's log; all times are epoch ms).
async function typing(plan) {
  const theme = THEMES[plan.theme];
  return withSite(plan, async ({ page, server, context }) => {
    await throttle(context, page, plan.throttle);
    await page.goto(server.url + (plan.start ?? ""));
    await recordRenders(page, { ...BOXES[plan.theme], theme: plan.theme });
    await theme.open(page);
    await page.keyboard.type(plan.query, { delay: plan.typeDelayMs });
    const done = await page.waitForFunction(({ query }) => window.__typing.renders.some((r) =>
      r.ranking === "hybrid" && r.query?.trim() === query.trim() && r.links.length), { query: plan.query },
    { timeout: 3 * TIMEOUT, polling: 100 }).then(() => true, () => false);
    if (!done) console.error("no hybrid results for the whole query: the page's log is in the report");
    const log = await page.evaluate(() => window.__typing);
    const model = server.log.find((entry) => new RegExp(MODEL_LAYERS).test(entry.path));
    return { ...log, done, modelRequestedAt: model?.at ?? null, throttle: plan.throttle };
  });
}

// plan: {theme, start, query, typeDelayMs, throttle}: a fresh profile on a throttled
// network; the (slipped) query typed key by key; waits for the hybrid results of the
// whole query, records the correction line above them and the links, then clicks the
// line's way back ("Search instead for ...") and records the hybrid results of the
// words as typed.
async function correction(plan) {
  const theme = THEMES[plan.theme];
  const where = BOXES[plan.theme] ?? BOXES.mkdocs;
  return withSite(plan, async ({ page, server, context }) => {
    await throttle(context, page, plan.throttle);
    await page.goto(server.url + (plan.start ?? ""));
    await theme.open(page);
    await page.keyboard.type(plan.query, { delay: plan.typeDelayMs });
    const answered = (corrected) => page.waitForFunction(({ box, links, query, corrected }) => {
      const shown = [...document.querySelectorAll(box)].find((b) => b.dataset.ranking === "hybrid" &&
        b.dataset.query?.trim() === query.trim() && b.querySelector(links));
      const line = document.querySelector(".semantic-correction");
      return shown && (corrected ? line !== null : line === null);
    }, { ...where, query: plan.query, corrected }, { timeout: 3 * TIMEOUT, polling: 100 });
    const read = () => page.evaluate(({ box, links }) => ({
      line: document.querySelector(".semantic-correction")?.textContent ?? null,
      links: [...document.querySelectorAll(`${box} ${links}`)].map((a) => a.href),
    }), where);
    await answered(true);
    const corrected = await read();
    await page.click(".semantic-as-typed");
    await answered(false);
    const asTyped = await read();
    return { corrected, asTyped, input: await page.inputValue(theme.input) };
  });
}

// plan: {site, prefix, start, query, later, loads, saveData}: a site built with
// `query_encoder: progressive`, loaded `loads` times in one profile (one reader's visits).
// Each visit answers `query` through the API, waits for the model to take over (unless
// `saveData`: the page's connection then says Save-Data, and the visit asks `later` at
// once), then answers `later`. Records per visit the two answers' encoders and hybrid
// ids and the requests the visit was served.
async function progressive(plan) {
  return withSite(plan, async ({ page, server }) => {
    if (plan.saveData) {
      await page.addInitScript(() => Object.defineProperty(Navigator.prototype, "connection", {
        get: () => ({ saveData: true, effectiveType: "4g" }),
      }));
    }
    const visits = [];
    for (let visit = 0; visit < (plan.loads ?? 1); visit++) {
      const before = server.log.length;
      await page.goto(server.url + (plan.start ?? ""));
      const first = await page.evaluate(async (query) => {
        const manifest = document.querySelector('meta[name="semantic-search"]').content;
        const semantic = await import(new URL("semantic.js", new URL(manifest, document.baseURI)).href);
        window.__model = new Promise((resolve) => semantic.init({ onEncoder: resolve }));
        window.__answered = async (text) => {
          const answer = await semantic.answer(text);
          return { encoder: answer.encoder, ids: answer.results.map((r) => r.id) };
        };
        return window.__answered(query);
      }, plan.query);
      const later = await page.evaluate(async ({ query, wait }) => {
        const took = wait ? await window.__model : null;
        return { took, ...await window.__answered(query) };
      }, { query: plan.later, wait: !plan.saveData });
      visits.push({ first, later, requests: server.log.slice(before).map((entry) => entry.path) });
    }
    return { visits };
  });
}

const SCENARIOS = { search, parity, bench, keywordFirst, typing, correction, progressive };
const [scenario, planFile] = process.argv.slice(2);
if (!SCENARIOS[scenario] || !planFile) {
  console.error(`usage: node tools/drive.mjs ${Object.keys(SCENARIOS).join("|")} PLAN.json`);
  process.exit(2);
}
const result = await SCENARIOS[scenario](JSON.parse(readFileSync(planFile, "utf8")));
process.stdout.write(JSON.stringify(result) + "\n");

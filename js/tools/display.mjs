// What the result list looks like to readers and to assistive technology, on a built
// site in headless Chromium: the combobox's ARIA state after arrow keys, the result
// links and excerpts, axe-core's violations in the search UI, and screenshots.
// Prints JSON for tests/client/test_browser_display.py and bench/screens.py.
//
//   node tools/display.mjs look|screens PLAN.json
//
// PLAN: {site, prefix, theme: mkdocs|material|dialog|sidebar|button, query, arrows, start};
// screens also {out, name}: writes <out>/<name>-results.png, -selection.png and
// -dialog.png (and -button.png, the page before the search opens, for `button`).

import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { launch } from "./chromium.mjs";
import { serveSite } from "./server.mjs";

const TIMEOUT = 60_000;
const VIEWPORT = { width: 1000, height: 700 };
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

// Each search box: how to open it, its input, its result links, and the part of the
// page that is the search UI (what axe checks).
const THEMES = {
  mkdocs: {
    open: async (page) => {
      await page.click('a[data-bs-target="#mkdocs_search_modal"]');
      await page.waitForFunction(() => document.activeElement?.id === "mkdocs-search-query");
    },
    input: "#mkdocs-search-query",
    links: "#mkdocs-search-results a.semantic-hit",
    // The modal's body: the box and its results (its title bar is the theme's).
    ui: "#mkdocs_search_modal .modal-body",
    shot: "#mkdocs_search_modal .modal-content",
  },
  dialog: {
    open: async (page) => {
      await page.keyboard.press("/");
      await page.locator(".semantic-dialog input").waitFor();
    },
    input: ".semantic-dialog input",
    links: ".semantic-dialog a.semantic-hit",
    ui: ".semantic-dialog",
  },
  // The readthedocs sidebar's box, and its panel of results (fixed, under the box).
  sidebar: {
    open: (page) => page.click("#rtd-search-form input[name=q]"),
    input: "#rtd-search-form input[name=q]",
    links: ".semantic-sidebar-output a.semantic-hit",
    ui: ".wy-side-nav-search [role=search]",
    shot: ".semantic-sidebar-output",
  },
  // The dialog, opened by the search button of a theme with no search box of its own.
  button: {
    open: async (page) => {
      await page.click("button.semantic-open");
      await page.waitForFunction(() => document.activeElement?.matches(".semantic-dialog input"));
    },
    input: ".semantic-dialog input",
    links: ".semantic-dialog a.semantic-hit",
    ui: "button.semantic-open, .semantic-dialog",
    shot: ".semantic-dialog",
    before: "button.semantic-open", // shot before opening: the button on the page
  },
  material: {
    open: (page) => page.click('input[data-md-component="search-query"]'),
    input: 'input[data-md-component="search-query"]',
    links: ".md-search-result__list a.md-search-result__link",
    ui: ".md-search",
    shot: ".md-search__inner",
  },
};

/** The result links once they stop changing and the final ranking is shown. */
async function stableLinks(page, selector) {
  const deadline = Date.now() + TIMEOUT;
  let last = "";
  let same = 0;
  while (Date.now() < deadline) {
    const now = await page.$$eval(selector, (links) => links.map((a) => a.outerHTML).join("\n"));
    const final = await page.evaluate(() => !document.querySelector('[data-ranking="keyword"]'));
    same = now && now === last && final ? same + 1 : 0;
    if (same >= 5) return;
    last = now;
    await page.waitForTimeout(100);
  }
  throw new Error(`no stable results for ${selector} within ${TIMEOUT} ms`);
}

/** The combobox's state: the input's ARIA attributes and the options they point at. */
function ariaState(page, input) {
  return page.evaluate((input) => {
    const box = document.querySelector(input);
    const attr = (name) => box.getAttribute(name);
    const list = attr("aria-controls") ? document.getElementById(attr("aria-controls")) : null;
    return {
      role: attr("role"),
      autocomplete: attr("aria-autocomplete"),
      expanded: attr("aria-expanded"),
      controls: attr("aria-controls"),
      activedescendant: attr("aria-activedescendant"),
      listRole: list?.getAttribute("role") ?? null,
      options: list ? [...list.querySelectorAll("[role=option]")].map((o) => ({
        id: o.id, tag: o.tagName.toLowerCase(), selected: o.getAttribute("aria-selected"),
      })) : [],
      // aria-selected anywhere but on an option
      straySelected: [...document.querySelectorAll("[aria-selected]")]
        .filter((el) => el.getAttribute("role") !== "option").length,
    };
  }, input);
}

/** Each result link: its href, and the text of its heading, title and excerpt. */
function results(page, selector) {
  return page.$$eval(selector, (links) => links.map((a) => ({
    href: a.href,
    heading: a.querySelector(".semantic-heading, h1, h2")?.textContent ?? "",
    excerpt: a.querySelector(".semantic-excerpt, p")?.textContent ?? "",
    code: [...a.querySelectorAll("code")].map((c) => c.textContent),
  })));
}

/** axe-core's violations in the search UI: [{id, impact, help, targets}]. */
async function axeViolations(page, ui) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async (ui) => {
    const found = await window.axe.run(document.querySelectorAll(ui), { resultTypes: ["violations"] });
    return found.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")),
      why: v.nodes.map((n) => n.failureSummary.slice(0, 200)),
    }));
  }, ui);
}

async function withPage(plan, fn) {
  const server = await serveSite(plan.site, { prefix: plan.prefix ?? "/" });
  const browser = await launch();
  const page = await browser.context.newPage();
  await page.setViewportSize(VIEWPORT);
  const pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("dialog", (dialog) => dialog.dismiss().catch(() => {}));
  try {
    await page.goto(server.url + (plan.start ?? ""));
    return { ...(await fn(page, THEMES[plan.theme])), pageErrors };
  } finally {
    await browser.close();
    await server.close();
  }
}

async function search(page, theme, query) {
  await theme.open(page);
  await page.keyboard.type(query);
  await stableLinks(page, theme.links);
}

// Results, then `arrows` ArrowDown presses: the ARIA state after each, and axe's findings
// with the results shown and with one selected.
async function look(plan) {
  return withPage(plan, async (page, theme) => {
    await search(page, theme, plan.query);
    const shown = await results(page, theme.links);
    const before = await ariaState(page, theme.input);
    const violations = await axeViolations(page, theme.ui);
    const steps = [];
    for (let i = 0; i < (plan.arrows ?? 2); i++) {
      await page.keyboard.press("ArrowDown");
      steps.push({
        ...(await ariaState(page, theme.input)),
        focused: await page.evaluate(() => document.activeElement?.getAttribute("href") ?? null),
      });
    }
    const selectedViolations = await page.evaluate(async (ui) => {
      const found = await window.axe.run(document.querySelectorAll(ui), { resultTypes: ["violations"] });
      return found.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        targets: v.nodes.map((n) => n.target.join(" ")) }));
    }, theme.ui);
    return { results: shown, before, steps, violations, selectedViolations };
  });
}

// Screenshots of the results, of a keyboard selection and of the whole search UI.
async function screens(plan) {
  mkdirSync(plan.out, { recursive: true });
  return withPage(plan, async (page, theme) => {
    const files = [];
    const shot = async (suffix, options = {}) => {
      const path = join(plan.out, `${plan.name}-${suffix}.png`);
      await page.screenshot({ path, ...options });
      files.push(path);
    };
    if (theme.before) {
      await page.focus(theme.before); // as a keyboard reader reaches it
      await shot("button");
    }
    await search(page, theme, plan.query);
    await shot("results");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await shot("selection");
    const ui = await page.$(theme.shot ?? theme.ui);
    const box = await ui?.boundingBox();
    await shot("dialog", box && box.width > 0 && box.height > 0 ? { clip: clamp(box) } : {});
    return { files };
  });
}

function clamp(box) {
  const x = Math.max(0, box.x);
  const y = Math.max(0, box.y);
  return { x, y, width: Math.min(box.width, VIEWPORT.width - x), height: Math.min(box.height, VIEWPORT.height - y) };
}

const SCENARIOS = { look, screens };
const [scenario, planFile] = process.argv.slice(2);
if (!SCENARIOS[scenario] || !planFile) {
  console.error(`usage: node tools/display.mjs ${Object.keys(SCENARIOS).join("|")} PLAN.json`);
  process.exit(2);
}
const result = await SCENARIOS[scenario](JSON.parse(readFileSync(planFile, "utf8")));
process.stdout.write(JSON.stringify(result) + "\n");

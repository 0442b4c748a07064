// Material for MkDocs renders our results itself (material-worker.js speaks its
// search worker protocol). This page script is the worker's other half:
//
// - it sends the search box's text to the worker on every input event, so a search
//   starts when a key goes down (Material sends its query when the key comes up);
// - the worker announces each answer before posting it (query, ranking, locations):
//   when Material renders a list, this labels the result box with the text the list
//   answers (data-query, data-ranking: "keyword" while the query encoder loads, then
//   "hybrid"), as our own search boxes do, and hides a list that answers an older
//   text than the box holds, before it is painted;
// - Enter while the box's text has no final results yet says "Searching…" and opens
//   the best result when it comes, as our own search boxes do;
// - download progress and errors go to Material's result summary line while the text
//   they belong to begins the text in the box.

import { CHANNEL, sameQuery } from "./channel.js";

const SEARCHING = "Searching… the best result opens when it is ready";
const QUERY_INPUT = "input[data-md-component=search-query]";

/** The result links a list shows, per result: no query string (Material adds ?h=). */
function shownGroups(list) {
  return [...list.children].map((item) => [...item.querySelectorAll("a.md-search-result__link")].map((a) => {
    const url = new URL(a.href);
    return url.origin + url.pathname + url.hash;
  }));
}

// Material renders the first 10 results, more as the reader scrolls.
const RENDERED_AT_ONCE = 10;

/** Whether a list shows an answer: its results in order, each with the answer's links. */
function answers(note, shown) {
  const count = Math.min(note.locations.length, RENDERED_AT_ONCE);
  if (shown.length < count || shown.length > note.locations.length) return false;
  return shown.every((links, i) => links.every((href) => note.locations[i].some((location) => {
    const bare = location.replace(/\?[^#]*/, "").replace(/^\.\//, "");
    return href.endsWith(bare);
  })));
}

/**
 * The line above the list of a corrected query (as our own search boxes show it):
 * "Results for <searched>", and a button that asks the worker for the words as typed.
 */
function correction(list, note) {
  const old = list.parentElement?.querySelector(":scope > .semantic-correction");
  if (!note?.searched) {
    old?.remove();
    return;
  }
  if (old?.dataset.query === note.query && old.dataset.searched === note.searched) return;
  const line = document.createElement("div");
  line.className = "semantic-correction md-search-result__meta";
  line.setAttribute("role", "status");
  Object.assign(line.dataset, { query: note.query, searched: note.searched });
  const strong = document.createElement("strong");
  strong.textContent = note.searched;
  const back = document.createElement("button");
  back.type = "button";
  back.className = "semantic-as-typed";
  // Material's pages do not load semantic.css: the way back looks like a link here too.
  back.style.cssText = "font:inherit;color:inherit;background:none;border:0;padding:0;" +
    "text-decoration:underline;cursor:pointer";
  const typed = document.createElement("em");
  typed.textContent = note.query;
  back.append("Search instead for ", typed);
  back.addEventListener("click", () => {
    const channel = new BroadcastChannel(CHANNEL);
    channel.postMessage({ type: "typed", text: note.query, asTyped: true });
    channel.close();
    /** @type {HTMLInputElement | null} */ (document.querySelector(QUERY_INPUT))?.focus();
  });
  line.append("Results for ", strong, ". ", back);
  if (old) old.replaceWith(line);
  else list.before(line);
}

export function attachMaterialStatus() {
  // Material's search overlay is a role=dialog without a name (axe: aria-dialog-name).
  const overlay = document.querySelector('.md-search[role="dialog"]');
  if (overlay && !overlay.hasAttribute("aria-label") && !overlay.hasAttribute("aria-labelledby")) {
    overlay.setAttribute("aria-label", document.querySelector("input[data-md-component=search-query]")
      ?.getAttribute("aria-label") || "Search");
  }
  const channel = new BroadcastChannel(CHANNEL);
  const notes = []; // the worker's latest answers, newest last
  let openWhenReady = null; // the text Enter was pressed on, while its results come
  const input = () => /** @type {HTMLInputElement | null} */ (document.querySelector(QUERY_INPUT));

  /**
   * Labels the list Material shows with the text it answers; hides it if that is old.
   * `fromNote`: called for a note that came after the render (or before its own).
   */
  const label = (fromNote = false) => {
    const list = /** @type {HTMLElement | null} */ (document.querySelector(".md-search-result__list"));
    const box = /** @type {HTMLElement | null} */ (document.querySelector(".md-search-result"));
    const field = input();
    if (!list || !box || !field) return;
    const shown = shownGroups(list);
    if (!shown.length) {
      list.hidden = false;
      return;
    }
    const matching = notes.filter((note) => answers(note, shown));
    const note = matching.findLast((n) => sameQuery(n.query, field.value)) ?? matching.at(-1);
    if (!note) {
      list.hidden = true; // its note is on its way: shown when it comes, if still current
      return;
    }
    const current = sameQuery(note.query, field.value);
    if (fromNote && !list.hidden && !current) return; // the list on show stays until the next render
    list.hidden = !current;
    if (box.dataset.query !== note.query || box.dataset.ranking !== note.ranking) {
      Object.assign(box.dataset, { ranking: note.ranking, query: note.query });
    }
    correction(list, current ? note : null);
    if (current && note.ranking === "hybrid" && openWhenReady !== null && sameQuery(openWhenReady, field.value)) {
      openWhenReady = null;
      bestLink(list)?.click();
    }
  };

  channel.onmessage = ({ data }) => {
    if (data.type === "results") {
      notes.push(data);
      if (notes.length > 50) notes.shift();
      // The answer may have been rendered before its note came (another channel).
      label(true);
      return;
    }
    const field = input();
    const meta = document.querySelector(".md-search-result__meta");
    if (!field || !meta || !data.query || !field.value.startsWith(data.query)) return;
    meta.textContent = openWhenReady === null ? data.text : `${SEARCHING}. ${data.text}`;
    meta.classList.toggle("semantic-error", data.type === "error");
  };

  const observer = new MutationObserver(() => label());
  const observe = () => {
    const list = document.querySelector(".md-search-result__list");
    if (list) observer.observe(list, { childList: true, subtree: true });
  };
  observe();
  const onInput = (event) => {
    if (!event.target.matches?.(QUERY_INPUT)) return;
    openWhenReady = null;
    channel.postMessage({ type: "typed", text: event.target.value });
  };
  // Before Material's own Enter (which opens the best result shown): with no final
  // results for this text yet, wait for them.
  const onKey = (event) => {
    if (event.key !== "Enter" || !event.target.matches?.(QUERY_INPUT)) return;
    const box = /** @type {HTMLElement | null} */ (document.querySelector(".md-search-result"));
    const list = /** @type {HTMLElement | null} */ (document.querySelector(".md-search-result__list"));
    const settled = box?.dataset.ranking === "hybrid" && sameQuery(box.dataset.query ?? "", event.target.value) &&
      list && !list.hidden && list.children.length;
    if (settled || !event.target.value.trim()) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    openWhenReady = event.target.value;
    const meta = document.querySelector(".md-search-result__meta");
    if (meta) meta.textContent = SEARCHING;
  };
  // Instant navigation swaps the page's content, and may swap the result list.
  const onSwap = new MutationObserver(observe);
  onSwap.observe(document.body, { childList: true });
  addEventListener("input", onInput, true);
  addEventListener("keydown", onKey, true);
  return () => {
    channel.close();
    observer.disconnect();
    onSwap.disconnect();
    removeEventListener("input", onInput, true);
    removeEventListener("keydown", onKey, true);
  };
}

/** The link Material's Enter would open: the best-scored one of the first result. */
function bestLink(list) {
  const links = [...list.querySelectorAll(":scope > :first-child a.md-search-result__link")];
  const score = (a) => Number(a.querySelector("[data-md-score]")?.dataset.mdScore ?? 0);
  return links.sort((a, b) => score(b) - score(a))[0];
}

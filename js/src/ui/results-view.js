// Results grouped by page, built with DOM APIs only: page text becomes text nodes,
// and query words are wrapped in <mark> elements made with createElement.
//
// The list follows the WAI-ARIA combobox pattern: a listbox of options (the result
// links), grouped by page under the page's title. Each page comes first, then its best
// sections; a section's heading is its path under the page, never the page title again.

import { hitWindow } from "../text/excerpt.js";
import { groupByPage } from "../engine/group.js";
import { queryTerms, splitMatches } from "../text/highlight.js";

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Appends `text` to `parent`, with the query's words in <mark>. */
export function appendHighlighted(parent, text, terms) {
  for (const piece of splitMatches(text, terms)) {
    parent.append(piece.match ? el("mark", "", piece.text) : document.createTextNode(piece.text));
  }
}

/** Appends the hit's excerpt around the query's words: code in <code>, words in <mark>. */
export function appendExcerpt(parent, hit, terms) {
  for (const part of hitWindow(hit, terms)) {
    if (!part.code) {
      appendHighlighted(parent, part.text, terms);
      continue;
    }
    const code = el("code");
    appendHighlighted(code, part.text, terms);
    parent.append(code);
  }
}

function option(hit, { id, rank, heading, terms }) {
  const link = el("a", "semantic-hit");
  link.href = hit.url;
  link.id = id;
  link.setAttribute("role", "option");
  link.setAttribute("aria-selected", "false");
  link.dataset.score = hit.score.toFixed(4);
  link.dataset.rank = String(rank);
  if (heading) {
    const title = el("span", "semantic-heading");
    appendHighlighted(title, heading, terms);
    link.append(title);
  }
  const excerpt = el("span", "semantic-excerpt");
  appendExcerpt(excerpt, hit, terms);
  link.append(excerpt);
  return link;
}

/**
 * Replaces `container`'s content with the results; returns the options (result links)
 * in the order shown, each with `data-rank` (0 for the best result). `listId` names the
 * listbox, and prefixes the ids of its options (the input's aria-activedescendant).
 */
export function renderResults(container, results, query, { listId = "semantic-results" } = {}) {
  const terms = queryTerms(query);
  const list = el("div", "semantic-results");
  list.id = listId;
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Search results");
  const rank = new Map(results.map((result, i) => [result, i]));
  const links = [];
  for (const [number, group] of groupByPage(results, (result) => result.page).entries()) {
    const item = el("div", "semantic-page");
    item.setAttribute("role", "group");
    // The page's lead, or a part of the page under no heading but the page title.
    const page = group.hits.find((hit) => !hit.path.length);
    const sections = group.hits.filter((hit) => hit !== page);
    const id = (i) => `${listId}-${number}-${i}`;
    if (page) {
      const link = option(page, { id: id(0), rank: rank.get(page), heading: group.title, terms });
      link.classList.add("semantic-page-hit");
      const title = link.firstChild;
      title.classList.add("semantic-page-title");
      title.id = `${id(0)}-title`;
      item.setAttribute("aria-labelledby", title.id);
      item.append(link);
      links.push(link);
    } else {
      const title = el("div", "semantic-page-title", group.title);
      title.id = `${id(0)}-title`;
      item.setAttribute("aria-labelledby", title.id);
      item.append(title);
    }
    for (const [i, hit] of sections.entries()) {
      const heading = hit.path.length ? hit.path.join(" › ") : "";
      const link = option(hit, { id: id(i + 1), rank: rank.get(hit), heading, terms });
      item.append(link);
      links.push(link);
    }
    list.append(item);
  }
  container.replaceChildren(list);
  return links;
}

/**
 * @param {string} text
 * @param {{ progress?: number, error?: boolean }} [options]
 */
function statusLine(text, { progress, error = false } = {}) {
  const status = el("div", error ? "semantic-status semantic-error" : "semantic-status", text);
  status.setAttribute("role", error ? "alert" : "status");
  if (progress !== undefined) {
    const bar = el("progress", "semantic-progress");
    bar.max = 1;
    bar.value = progress;
    status.append(bar);
  }
  return status;
}

/** A one-line message in place of results (progress, nothing found, errors). */
export function renderStatus(container, text, options) {
  container.replaceChildren(statusLine(text, options));
}

/**
 * The line above the results of a corrected query: "Results for <the query as
 * searched>" and a button to search the words as typed. Replaces an older one.
 */
export function renderCorrection(container, reading) {
  const line = el("div", "semantic-correction");
  line.setAttribute("role", "status");
  line.append("Results for ", el("strong", "", reading.text), ". ");
  const back = el("button", "semantic-as-typed");
  back.type = "button";
  back.append("Search instead for ", el("em", "", reading.typed));
  line.append(back);
  const old = container.querySelector(":scope > .semantic-correction");
  if (old) old.replaceWith(line);
  else container.prepend(line);
}

/** A message above the results, replaced in place so the list below does not move. */
export function renderNote(container, text, options) {
  const line = statusLine(text, options);
  const old = container.querySelector(":scope > .semantic-status");
  if (old) old.replaceWith(line);
  else container.prepend(line);
}

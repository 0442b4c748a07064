// Results grouped by page, built with DOM APIs only: page text becomes text nodes,
// and query words are wrapped in <mark> elements made with createElement.

import { groupByPage } from "./group.js";
import { queryTerms, splitMatches } from "./highlight.js";

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

/** Replaces `container`'s content with the results; returns the links in keyboard order. */
export function renderResults(container, results, query) {
  const terms = queryTerms(query);
  const list = el("ol", "semantic-results");
  const links = [];
  for (const group of groupByPage(results, (result) => result.page)) {
    const item = el("li", "semantic-page");
    item.append(el("div", "semantic-page-title", group.title));
    for (const hit of group.hits) {
      const link = el("a", "semantic-hit");
      link.href = hit.url;
      link.dataset.score = hit.score.toFixed(4);
      const heading = el("span", "semantic-heading");
      appendHighlighted(heading, hit.path.length ? hit.path.join(" › ") : hit.title, terms);
      const excerpt = el("span", "semantic-excerpt");
      appendHighlighted(excerpt, hit.excerpt, terms);
      link.append(heading, excerpt);
      item.append(link);
      links.push(link);
    }
    list.append(item);
  }
  container.replaceChildren(list);
  return links;
}

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

/** A message above the results, replaced in place so the list below does not move. */
export function renderNote(container, text, options) {
  const line = statusLine(text, options);
  const old = container.querySelector(":scope > .semantic-status");
  if (old) old.replaceWith(line);
  else container.prepend(line);
}

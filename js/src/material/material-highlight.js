// Material's `search.highlight`: a result link carries the words it matched in `?h=`,
// and the page it opens marks them. Material marks them with its own index's settings,
// which it no longer downloads (the plugin keeps it from fetching search_index.json),
// so this marks them instead, as Material would: <mark data-md-highlight>, in the
// visible text of the content, on every page instant navigation shows.

import { queryTerms, splitMatches } from "../text/highlight.js";

/** Marks the words of `query` in the visible text under `root`; returns how many. */
export function markWords(root, query) {
  const terms = queryTerms(query);
  if (!terms.length) return 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent?.offsetHeight && !parent.closest("mark, script, style")) nodes.push(node);
  }
  let marked = 0;
  for (const node of nodes) {
    const pieces = splitMatches(node.data, terms);
    if (!pieces.some((piece) => piece.match)) continue;
    node.replaceWith(...pieces.map((piece) => {
      if (!piece.match) return piece.text;
      const mark = document.createElement("mark");
      mark.setAttribute("data-md-highlight", "");
      mark.textContent = piece.text;
      marked += 1;
      return mark;
    }));
  }
  return marked;
}

/** When the site turns `search.highlight` on, marks `?h=` on each page shown. */
export function attachMaterialHighlight() {
  let features = [];
  try {
    features = JSON.parse(document.getElementById("__config")?.textContent ?? "{}").features ?? [];
  } catch {
    return () => {};
  }
  if (!features.includes("search.highlight")) return () => {};
  const mark = () => {
    const words = new URL(window.location.href).searchParams.get("h");
    const content = document.querySelector('[data-md-component="content"]');
    if (words && content) markWords(content, words);
  };
  // Material's document$ emits each page it shows (instant navigation included).
  const subscription = window.document$?.subscribe?.(mark);
  if (!subscription) mark();
  return () => subscription?.unsubscribe();
}

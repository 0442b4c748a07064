// The built-in `mkdocs` theme: its search modal (#mkdocs-search-query, and
// #mkdocs-search-results) shows semantic results instead of lunr's.

import { SearchBox } from "./search-box.js";

export function attachMkdocs(client) {
  const input = document.getElementById("mkdocs-search-query");
  const output = document.getElementById("mkdocs-search-results");
  if (!input || !output) return null;
  // The search plugin's main.js searches lunr on keyup and writes into the same
  // list: stop that event before it reaches the input's own listeners.
  const blockLunr = (event) => {
    if (event.target === input) event.stopImmediatePropagation();
  };
  window.addEventListener("keyup", blockLunr, true);
  output.replaceChildren();
  const modal = document.getElementById("mkdocs_search_modal");
  const box = new SearchBox({
    client,
    input,
    output,
    onPick: () => {
      // Results on the current page only move the anchor: close the modal ourselves.
      const bootstrap = window.bootstrap;
      if (modal && bootstrap?.Modal) bootstrap.Modal.getOrCreateInstance(modal).hide();
    },
  });
  return () => {
    window.removeEventListener("keyup", blockLunr, true);
    box.destroy();
  };
}

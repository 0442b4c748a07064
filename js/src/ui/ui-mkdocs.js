// The search plugin's search box, as the built-in themes show it (#mkdocs-search-query
// and #mkdocs-search-results): the `mkdocs` theme's modal, the `readthedocs` theme's
// search page. It shows semantic results instead of lunr's.

import { SearchBox } from "./search-box.js";

export function attachMkdocs(client) {
  const input = /** @type {HTMLInputElement | null} */ (document.getElementById("mkdocs-search-query"));
  const output = document.getElementById("mkdocs-search-results");
  if (!input || !output) return null;
  // The plugin leaves out the search plugin's main.js, which filled the box from ?q=
  // (the readthedocs sidebar box submits there; the mkdocs theme opens its modal).
  const asked = new URLSearchParams(window.location.search).get("q");
  if (asked && !input.value) input.value = asked;
  // Should main.js be on the page anyway (a theme override), it searches lunr on keyup
  // and writes into the same list: stop that event before it reaches the input.
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

// Loaded by every page of a Material for MkDocs site (the plugin adds it with a
// <meta name="semantic-search">). Material renders our results itself, from our search
// worker (material-worker.js, which Material starts); this is the page's half of it:
// the result box's status and the words a result link marks on the page it opens.
// Other themes load auto.js instead.

import { attachMaterialHighlight } from "../material/material-highlight.js";
import { attachMaterialStatus } from "../material/material-page.js";

function start() {
  // Material's instant navigation and repeated evaluation must not attach twice.
  if (window.__mkdocsSemanticSearch || !document.querySelector('meta[name="semantic-search"]')) return;
  const detachStatus = attachMaterialStatus();
  const detachHighlight = attachMaterialHighlight();
  window.__mkdocsSemanticSearch = { detach: () => { detachStatus(); detachHighlight(); } };
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start, { once: true });
} else {
  start();
}

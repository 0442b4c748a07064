// Loaded by every built page (the plugin adds it with a <meta name="semantic-search">):
// wires semantic search into the theme's search box, or into a dialog of its own.
// Cheap to load: the search data is fetched on the first focus of the box.

import { attachMaterialStatus } from "./material-page.js";
import { init, pageOptions } from "./semantic.js";
import { attachDialog } from "./ui-dialog.js";
import { attachMkdocs } from "./ui-mkdocs.js";

function addStylesheet() {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("semantic.css", import.meta.url).href;
  document.head.append(link);
}

function start() {
  // Material's instant navigation and repeated evaluation must not attach twice.
  if (window.__mkdocsSemanticSearch) return;
  const options = pageOptions();
  if (!options.manifest) return;
  if (options.ui === "material") {
    window.__mkdocsSemanticSearch = { detach: attachMaterialStatus() };
    return;
  }
  addStylesheet();
  const client = init(options);
  const detach = (options.ui === "mkdocs" && attachMkdocs(client)) || attachDialog(client);
  window.__mkdocsSemanticSearch = { client, detach };
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start, { once: true });
} else {
  start();
}

// Loaded by every built page (the plugin adds it with a <meta name="semantic-search">):
// wires semantic search into the theme's search box, or into a dialog of its own
// (Zensical's search button opens it).
// Cheap to load: the search data is fetched on the first focus of the box. Material for
// MkDocs' pages load material.js instead: Material renders our results itself.

import { init, pageOptions } from "./semantic.js";
import { attachDialog } from "../ui/ui-dialog.js";
import { attachMkdocs } from "../ui/ui-mkdocs.js";
import { attachSidebar, sidebarInput } from "../ui/ui-sidebar.js";
import { attachZensical } from "../ui/ui-zensical.js";

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
  if (!options.manifest || options.ui === "material") return; // material.js's pages
  addStylesheet();
  const client = init(options);
  const detachers = [];
  if (options.ui === "mkdocs") {
    // The mkdocs theme's search modal; a theme override without it gets the dialog.
    detachers.push(attachMkdocs(client) ?? attachDialog(client, { button: true }));
  } else if (options.ui === "readthedocs") {
    // The sidebar's box answers in place on every page, and "/" and Ctrl-K go to it;
    // where it is off screen (a narrow window) they open the dialog. search.html's own
    // box answers its ?q= links.
    const sidebar = attachSidebar(client);
    const pageBox = sidebar ? sidebarInput() : null;
    detachers.push(sidebar, attachMkdocs(client),
      attachDialog(client, { button: !sidebar, pageBox }));
  } else if (options.ui === "zensical") {
    detachers.push(attachZensical(client));
  } else {
    detachers.push(attachDialog(client, { button: true }));
  }
  const detach = () => {
    for (const fn of detachers) fn?.();
  };
  window.__mkdocsSemanticSearch = { client, detach };
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", start, { once: true });
} else {
  start();
}

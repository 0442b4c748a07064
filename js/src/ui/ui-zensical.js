// Zensical's search: its header button, the small screen's search icon, "/" and Ctrl-K
// open our dialog, dressed in Zensical's colours. `mkdocs-semantic index --ui auto` took
// the button from Zensical's own search (mkdocs_semantic/pages/boxes.py: Zensical's
// search is an app fed by its whole index, with no seam for other results), so Zensical
// mounts no search and fetches no index. The dialog lives on <body>, which Zensical's
// instant navigation keeps, and its results are plain links that the navigation follows
// like any other.

import { attachDialog } from "./ui-dialog.js";

export function attachZensical(client) {
  // A page whose button an older Zensical template left unmarked still gets a way in.
  const marked = document.querySelector(".md-search[data-semantic-search], label[data-semantic-search]");
  return attachDialog(client, { button: !marked, theme: "semantic-zensical" });
}

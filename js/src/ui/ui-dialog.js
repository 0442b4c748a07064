// Themes without a search box of their own: a <dialog> opened with "/" or Ctrl-K
// (Cmd-K on macOS), by a small search button fixed in the page's corner (`button`), or
// by clicking any element with a data-semantic-search attribute. A theme whose box
// answers in place (`pageBox`) keeps the keys for that box while the reader can see it.

import { SearchBox } from "./search-box.js";

function isTyping(target) {
  return target instanceof HTMLElement &&
    (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/** The visible way in: a button that says what it does and which key opens it. */
function searchButton() {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "semantic-open";
  button.dataset.semanticSearch = ""; // opened by the click handler below
  button.setAttribute("aria-label", "Search the docs");
  button.setAttribute("aria-keyshortcuts", "/ Control+K Meta+K");
  button.title = "Search the docs (/ or Ctrl-K)";
  const hint = document.createElement("kbd");
  hint.textContent = "/";
  hint.setAttribute("aria-hidden", "true");
  button.append("Search ", hint);
  return button;
}

/** Whether an element is on screen: shown, and not moved out of the window sideways
 *  (readthedocs slides its sidebar off screen in a narrow window). */
function onScreen(element) {
  if (!element?.isConnected) return false;
  // checkVisibility: browsers from 2022-2024 on; without it, the box's size decides.
  if (element.checkVisibility && !element.checkVisibility({ visibilityProperty: true })) return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.right > 0 && box.left < window.innerWidth;
}

/** `button`: also show a search button (themes with no visible search box).
 *  `pageBox`: the page's own search input, which "/" and Ctrl-K focus instead of opening
 *  the dialog while it is on screen. `theme`: a class that dresses the dialog in a
 *  theme's colours (semantic.css). */
export function attachDialog(client, { button = false, pageBox = null, theme = "" } = {}) {
  const dialog = document.createElement("dialog");
  dialog.className = theme ? `semantic-dialog ${theme}` : "semantic-dialog";
  dialog.setAttribute("aria-label", "Search");
  const input = document.createElement("input");
  input.type = "search";
  input.className = "semantic-input";
  input.placeholder = "Search the docs by meaning";
  input.setAttribute("aria-label", "Search");
  const output = document.createElement("div");
  output.className = "semantic-output";
  dialog.append(input, output);
  document.body.append(dialog);
  const opener = button ? searchButton() : null;
  if (opener) document.body.append(opener);

  pageBox?.setAttribute("aria-keyshortcuts", "/ Control+K Meta+K");
  const open = () => {
    if (!dialog.open && onScreen(pageBox)) {
      pageBox.focus();
      pageBox.select();
      return;
    }
    if (!dialog.open) dialog.showModal();
    input.focus();
    input.select();
  };
  const onKey = (event) => {
    const ctrlK = (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k";
    if (ctrlK || (event.key === "/" && !isTyping(event.target))) {
      event.preventDefault();
      open();
    }
  };
  const onClick = (event) => {
    if (event.target.closest?.("[data-semantic-search]")) {
      event.preventDefault();
      open();
    } else if (event.target === dialog) {
      dialog.close(); // a click on the backdrop
    }
  };
  document.addEventListener("keydown", onKey);
  document.addEventListener("click", onClick);
  // Esc closes a modal <dialog> natively.
  const box = new SearchBox({ client, input, output, onPick: () => dialog.close() });
  return () => {
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("click", onClick);
    box.destroy();
    dialog.remove();
    opener?.remove();
    pageBox?.removeAttribute("aria-keyshortcuts");
  };
}

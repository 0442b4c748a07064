// The readthedocs theme's sidebar search box (#rtd-search-form, a form to search.html)
// answers in place: results show in a panel under the box as the reader types. Enter
// opens the best (or the selected) result, Esc closes the panel; the form still leads to
// search.html where this script does not run.

import { SearchBox } from "./search-box.js";

const GAP = 4; // px between the box and its panel, and kept free at the window's edges

/**
 * The sidebar's search input, or null on a page without one.
 * @returns {HTMLInputElement | null}
 */
export function sidebarInput() {
  return document.getElementById("rtd-search-form")?.querySelector("input[name=q]") ?? null;
}

export function attachSidebar(client) {
  const input = sidebarInput();
  if (!input) return null;
  const form = input.form;
  // The panel lives in the sidebar's search landmark but is `position: fixed`, so the
  // sidebar's scroll box (overflow hidden, 300px wide) does not clip it.
  const panel = document.createElement("div");
  panel.className = "semantic-sidebar-output";
  panel.hidden = true;
  form.after(panel);

  // Closed after Esc, or when the reader left the box, until they type or come back;
  // closed at first too (a value the browser restored is searched, not popped up).
  let closed = true;
  const hasContent = () => panel.childElementCount > 0;
  const place = () => {
    const box = input.getBoundingClientRect();
    const top = box.bottom + GAP;
    panel.style.top = `${top}px`;
    panel.style.left = `${box.left}px`;
    panel.style.width = `${Math.max(box.width, Math.min(640, window.innerWidth - box.left - 4 * GAP))}px`;
    panel.style.maxHeight = `${Math.max(120, window.innerHeight - top - 4 * GAP)}px`;
  };
  const update = () => {
    const open = !closed && hasContent();
    if (open && panel.hidden) place();
    panel.hidden = !open;
    // SearchBox marks the combobox expanded when options are rendered; a closed panel
    // shows none of them.
    if (!open) {
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
    }
  };
  const close = () => {
    closed = true;
    update();
  };

  const box = new SearchBox({ client, input, output: panel, onPick: close });
  // Created after SearchBox's own observer, so it runs after it and has the last word.
  const observer = new MutationObserver(update);
  observer.observe(panel, { childList: true });

  const onInput = () => {
    closed = false;
    update();
  };
  const onFocus = () => {
    if (input.value.trim()) onInput();
  };
  const onKey = (event) => {
    if (event.key === "Escape" && !panel.hidden) {
      event.preventDefault();
      close();
    }
  };
  const onFocusOut = (event) => {
    const to = event.relatedTarget;
    if (!(to instanceof Node) || !(input.contains(to) || panel.contains(to))) close();
  };
  const onPointerDown = (event) => {
    if (!panel.hidden && !panel.contains(event.target) && event.target !== input) close();
  };
  const onMove = () => {
    if (!panel.hidden) place();
  };
  /** @type {[EventTarget, string, (event: any) => void, boolean?][]} */
  const listeners = [
    [input, "input", onInput], [input, "focus", onFocus], [input, "keydown", onKey],
    [input, "focusout", onFocusOut], [panel, "focusout", onFocusOut],
    [document, "pointerdown", onPointerDown], [window, "resize", onMove],
    [document, "scroll", onMove, true],
  ];
  for (const [target, type, fn, capture] of listeners) target.addEventListener(type, fn, capture);
  update();
  return () => {
    for (const [target, type, fn, capture] of listeners) target.removeEventListener(type, fn, capture);
    observer.disconnect();
    box.destroy();
    panel.remove();
  };
}

// Connects a text input to the client: preload on focus, search as you type, results
// with arrow keys and Enter. Every input event starts a search for the text at once
// and aborts the one before: the latest text always wins, and an answer for an older
// text is never shown. Keyword results show while the query encoder loads; the
// final ranking replaces them when it is ready, but never while the reader's
// pointer or keyboard selection is in the list. Esc belongs to the container (the
// theme's modal, the native <dialog>, the sidebar's panel).

import { describeProgress } from "../text/progress.js";
import { renderCorrection, renderNote, renderResults, renderStatus } from "./results-view.js";

const KEYWORD_NOTE = "Keyword matches; results by meaning follow";
const OPENING_NOTE = "Searching… the best result opens when it is ready";
let boxes = 0; // numbers the listbox ids of the search boxes on a page

/**
 * What a box asks of its client (api/client.js's SemanticSearch).
 * @typedef {{ preload(): Promise<unknown>, answer(query: string, options?: object): Promise<any>,
 *   watchProgress(watch: (progress: any) => void): () => unknown }} SearchClient
 */

export class SearchBox {
  /**
   * `client`: a SemanticSearch; `input`, `output`: elements; `onPick(link)`: called
   * before following a result (to close a modal).
   * @param {{ client: SearchClient, input: HTMLInputElement, output: HTMLElement,
   *   onPick?: (link: HTMLAnchorElement) => void }} options
   */
  constructor({ client, input, output, onPick = () => {} }) {
    this.client = client;
    this.input = input;
    this.output = output;
    this.onPick = onPick;
    this.listId = `semantic-results-${++boxes}`;
    this.#describeCombobox();
    this.#takeWordsAsTyped();
    this.links = [];
    this.active = -1;
    this.latest = null; // the search of the newest text: {query, controller}
    this.shown = "";
    this.shownFinal = false;
    this.enterPending = false;
    this.hovering = false;
    this.deferred = null; // hybrid results held back while the reader points at the list
    this.asTyped = null; // the text the reader asked to search as typed ("search instead for")
    /** @type {[EventTarget, string, (event: any) => void][]} */
    this.listeners = [
      [output, "pointerenter", () => { this.hovering = true; }],
      [output, "pointerleave", () => {
        this.hovering = false;
        this.#applyDeferred();
      }],
      [input, "focus", () => this.#preload()],
      [input, "input", () => this.#search(input.value)],
      [input, "keydown", (event) => this.#key(event)],
      [output, "click", (event) => {
        const link = event.target.closest?.("a.semantic-hit");
        // A link opened in a new tab or window leaves the search open for the next.
        const elsewhere = event.ctrlKey || event.metaKey || event.shiftKey;
        if (link && !elsewhere) this.onPick(link);
        if (event.target.closest?.("button.semantic-as-typed")) {
          this.asTyped = this.input.value;
          this.input.focus();
          this.#search(this.input.value);
        }
      }],
    ];
    for (const [target, type, fn] of this.listeners) target.addEventListener(type, fn);
    this.unwatch = client.watchProgress((progress) => {
      const { text, fraction } = describeProgress(progress);
      const lead = this.enterPending ? OPENING_NOTE : KEYWORD_NOTE;
      if (!this.links.length) renderStatus(this.output, this.enterPending ? `${lead}. ${text}` : text, { progress: fraction });
      else if (!this.shownFinal) renderNote(this.output, `${lead}. ${text}`, { progress: fraction });
    });
    if (input.value.trim()) this.#search(input.value);
  }

  // The reader's words as typed: no capital a phone adds (a capital asks for names),
  // no autocorrection (the search reads slips against the site's own words), no
  // suggestions of the browser's over the results.
  #takeWordsAsTyped() {
    for (const [name, value] of [["autocapitalize", "off"], ["autocorrect", "off"],
      ["autocomplete", "off"], ["spellcheck", "false"]]) this.input.setAttribute(name, value);
  }

  // The WAI-ARIA combobox pattern: the input owns the listbox of results, and
  // aria-activedescendant names the option the arrow keys selected.
  #describeCombobox() {
    const { input, listId } = this;
    for (const [name, value] of [["role", "combobox"], ["aria-autocomplete", "list"],
      ["aria-controls", listId], ["aria-expanded", "false"]]) input.setAttribute(name, value);
    input.removeAttribute("aria-activedescendant");
    // A name that is not only a tooltip (the mkdocs theme's box has only a title).
    if (!input.labels?.length && !input.getAttribute("aria-label") && !input.hasAttribute("aria-labelledby")) {
      input.setAttribute("aria-label", input.title || input.placeholder || "Search");
    }
    this.observer = new MutationObserver(() => {
      const expanded = this.output.querySelector(`#${listId} [role=option]`) !== null;
      input.setAttribute("aria-expanded", String(expanded));
      if (!expanded || !this.output.contains(this.links[this.active] ?? null)) {
        input.removeAttribute("aria-activedescendant");
      }
    });
    this.observer.observe(this.output, { childList: true });
  }

  /** The result Enter opens when the arrow keys chose none: the best ranked. */
  #best() {
    return this.links.find((link) => link.dataset.rank === "0") ?? this.links[0];
  }

  #preload() {
    this.client.preload().then(
      () => {
        if (!this.input.value.trim()) this.output.replaceChildren(); // drop the progress line
      },
      (error) => this.#fail(error),
    );
  }

  #fail(error) {
    this.links = [];
    renderStatus(this.output, `Semantic search is unavailable: ${error.message}`, { error: true });
  }

  /** Starts the search of `query` at once; the search of any older text is dropped. */
  #search(query) {
    this.latest?.controller.abort();
    this.latest = null;
    this.enterPending = false; // an Enter pressed on an older text is not for this one
    if (!query.trim()) {
      this.links = [];
      this.deferred = null;
      this.shown = "";
      this.output.replaceChildren();
      return;
    }
    const search = { query, controller: new AbortController() };
    this.latest = search;
    const isLatest = () => this.latest === search;
    if (this.asTyped !== query) this.asTyped = null;
    // As you type: a half-typed last word is completed, slips are corrected.
    this.client.answer(query, {
      typing: true,
      asTyped: this.asTyped === query,
      signal: search.controller.signal,
      onPartial: (answer) => {
        if (isLatest()) this.#show(query, answer, { final: false });
      },
    }).then((answer) => {
      search.done = true;
      if (!isLatest()) return;
      if (!this.enterPending && this.shown === query && !this.shownFinal && this.#readerIsInList()) {
        this.deferred = { query, answer };
        return;
      }
      this.#show(query, answer, { final: true });
    }, (error) => {
      search.done = true;
      if (isLatest()) this.#fail(error);
    });
  }

  #readerIsInList() {
    return this.hovering || this.active >= 0;
  }

  #applyDeferred() {
    const deferred = this.deferred;
    if (!deferred || this.#readerIsInList()) return;
    this.deferred = null;
    if (deferred.query === this.input.value) this.#show(deferred.query, deferred.answer, { final: true });
  }

  #show(query, { reading, results }, { final }) {
    this.shown = query;
    this.shownFinal = final;
    this.active = -1;
    this.links = renderResults(this.output, results, reading.text, { listId: this.listId });
    if (!results.length && final) renderStatus(this.output, "No results");
    // Words corrected (not those completed while typing): say so, with the way back.
    if (reading.changes.some((change) => change.kind === "corrected")) {
      renderCorrection(this.output, reading);
    }
    if (!final && results.length) renderNote(this.output, this.enterPending ? OPENING_NOTE : KEYWORD_NOTE);
    this.output.dataset.ranking = final ? "hybrid" : "keyword";
    this.output.dataset.query = query;
    if (final) {
      if (this.enterPending && query === this.input.value && this.links.length) {
        this.#follow(this.#best());
      }
      this.enterPending = false;
    }
  }

  #key(event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      if (!this.links.length) return;
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      this.#select(Math.min(Math.max(this.active + step, 0), this.links.length - 1));
    } else if (event.key === "Enter") {
      event.preventDefault(); // the theme's <form> must not submit
      const link = this.active >= 0 ? this.links[this.active] : this.#best();
      // Keyword results are provisional: Enter waits for the final ranking unless the
      // reader picked a result with the arrow keys.
      const settled = this.shownFinal || this.active >= 0;
      if (link && this.shown === this.input.value && settled) {
        this.#follow(link);
      } else if (this.latest && !this.latest.done) { // results for this text are on their way
        this.enterPending = true;
        if (this.links.length) renderNote(this.output, OPENING_NOTE);
        else renderStatus(this.output, OPENING_NOTE);
      }
    }
  }

  #select(index) {
    this.links[this.active]?.setAttribute("aria-selected", "false");
    this.active = index;
    const link = this.links[index];
    link.setAttribute("aria-selected", "true");
    this.input.setAttribute("aria-activedescendant", link.id);
    link.scrollIntoView({ block: "nearest" });
  }

  #follow(link) {
    this.onPick(link);
    window.location.assign(link.href);
  }

  destroy() {
    this.latest?.controller.abort();
    this.latest = null;
    this.unwatch();
    this.observer.disconnect();
    for (const name of ["role", "aria-autocomplete", "aria-controls", "aria-expanded", "aria-activedescendant"]) {
      this.input.removeAttribute(name);
    }
    for (const [target, type, fn] of this.listeners) target.removeEventListener(type, fn);
  }
}

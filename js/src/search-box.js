// Connects a text input to the client: preload on focus, search as you type (the
// latest query wins), results with arrow keys and Enter. Keyword results show at
// once; the hybrid ranking replaces them when it is ready, but never while
// the reader's pointer or keyboard selection is in the list. Esc belongs to the
// container (the theme's modal, or the native <dialog>).

import { describeProgress } from "./progress.js";
import { renderNote, renderResults, renderStatus } from "./results-view.js";

const KEYWORD_NOTE = "Keyword matches; results by meaning follow";
let boxes = 0; // numbers the listbox ids of the search boxes on a page

export class SearchBox {
  /**
   * `client`: a SemanticSearch; `input`, `output`: elements; `onPick(link)`: called
   * before following a result (to close a modal).
   */
  constructor({ client, input, output, onPick = () => {} }) {
    Object.assign(this, { client, input, output, onPick });
    this.listId = `semantic-results-${++boxes}`;
    this.#describeCombobox();
    this.links = [];
    this.active = -1;
    this.running = false;
    this.queued = null;
    this.shown = "";
    this.shownFinal = false;
    this.enterPending = false;
    this.hovering = false;
    this.deferred = null; // hybrid results held back while the reader points at the list
    this.listeners = [
      [output, "pointerenter", () => { this.hovering = true; }],
      [output, "pointerleave", () => {
        this.hovering = false;
        this.#applyDeferred();
      }],
      [input, "focus", () => this.#preload()],
      [input, "input", () => this.#schedule(input.value)],
      [input, "keydown", (event) => this.#key(event)],
      [output, "click", (event) => {
        const link = event.target.closest?.("a.semantic-hit");
        if (link) this.onPick(link);
      }],
    ];
    for (const [target, type, fn] of this.listeners) target.addEventListener(type, fn);
    client.onProgress = (progress) => {
      const { text, fraction } = describeProgress(progress);
      if (!this.links.length) renderStatus(this.output, text, { progress: fraction });
      else if (!this.shownFinal) renderNote(this.output, `${KEYWORD_NOTE}. ${text}`, { progress: fraction });
    };
    if (input.value.trim()) this.#schedule(input.value);
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

  #schedule(query) {
    this.queued = query;
    if (!this.running) this.#drain();
  }

  async #drain() {
    this.running = true;
    while (this.queued !== null) {
      const query = this.queued;
      this.queued = null;
      await this.#run(query);
    }
    this.running = false;
  }

  async #run(query) {
    if (!query.trim()) {
      this.links = [];
      this.deferred = null;
      this.output.replaceChildren();
      return;
    }
    try {
      const hybrid = this.client.search(query);
      // Keyword results need no model: show them unless the hybrid ones are already here.
      const keyword = await Promise.race([
        this.client.search(query, { mode: "lexical" }),
        hybrid.then(() => null, () => null),
      ]);
      if (this.queued !== null) {
        hybrid.catch(() => {}); // superseded: its outcome no longer matters
        return;
      }
      if (keyword) this.#show(query, keyword, { final: false });
      const results = await hybrid;
      if (this.queued !== null) return; // a newer query is waiting; skip rendering this one
      if (this.shown === query && !this.shownFinal && this.#readerIsInList()) {
        this.deferred = { query, results };
        return;
      }
      this.#show(query, results, { final: true });
    } catch (error) {
      this.#fail(error);
    }
  }

  #readerIsInList() {
    return this.hovering || this.active >= 0;
  }

  #applyDeferred() {
    const deferred = this.deferred;
    if (!deferred || this.#readerIsInList()) return;
    this.deferred = null;
    if (deferred.query === this.input.value) this.#show(deferred.query, deferred.results, { final: true });
  }

  #show(query, results, { final }) {
    this.shown = query;
    this.shownFinal = final;
    this.active = -1;
    this.links = renderResults(this.output, results, query, { listId: this.listId });
    if (!results.length && final) renderStatus(this.output, "No results");
    if (!final && results.length) renderNote(this.output, KEYWORD_NOTE);
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
      if (link && this.shown === this.input.value && settled) this.#follow(link);
      else this.enterPending = true; // results for this text are on their way
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
    this.observer.disconnect();
    for (const name of ["role", "aria-autocomplete", "aria-controls", "aria-expanded", "aria-activedescendant"]) {
      this.input.removeAttribute(name);
    }
    for (const [target, type, fn] of this.listeners) target.removeEventListener(type, fn);
  }
}

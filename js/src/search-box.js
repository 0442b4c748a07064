// Connects a text input to the client: preload on focus, search as you type (the
// latest query wins), results with arrow keys and Enter. Esc belongs to the
// container (the theme's modal, or the native <dialog>).

import { describeProgress } from "./progress.js";
import { renderResults, renderStatus } from "./results-view.js";

export class SearchBox {
  /**
   * `client`: a SemanticSearch; `input`, `output`: elements; `onPick(link)`: called
   * before following a result (to close a modal).
   */
  constructor({ client, input, output, onPick = () => {} }) {
    Object.assign(this, { client, input, output, onPick });
    this.links = [];
    this.active = -1;
    this.running = false;
    this.queued = null;
    this.shown = "";
    this.enterPending = false;
    this.listeners = [
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
      if (!this.links.length) {
        const { text, fraction } = describeProgress(progress);
        renderStatus(this.output, text, { progress: fraction });
      }
    };
    if (input.value.trim()) this.#schedule(input.value);
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
      this.output.replaceChildren();
      return;
    }
    try {
      const results = await this.client.search(query);
      if (this.queued !== null) return; // a newer query is waiting; skip rendering this one
      this.shown = query;
      this.active = -1;
      this.links = renderResults(this.output, results, query);
      if (!results.length) renderStatus(this.output, "No results");
      if (this.enterPending && query === this.input.value && this.links.length) {
        this.#follow(this.links[0]);
      }
      this.enterPending = false;
    } catch (error) {
      this.#fail(error);
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
      const link = this.links[Math.max(this.active, 0)];
      if (link && this.shown === this.input.value) this.#follow(link);
      else this.enterPending = true; // results for this text are on their way
    }
  }

  #select(index) {
    this.links[this.active]?.removeAttribute("aria-selected");
    this.active = index;
    const link = this.links[index];
    link.setAttribute("aria-selected", "true");
    link.scrollIntoView({ block: "nearest" });
  }

  #follow(link) {
    this.onPick(link);
    window.location.assign(link.href);
  }

  destroy() {
    for (const [target, type, fn] of this.listeners) target.removeEventListener(type, fn);
  }
}

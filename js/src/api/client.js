// Main-thread side of the client: owns the worker, numbers requests, resolves URLs.

import { href } from "../engine/group.js";
import { fetchOpening } from "../engine/opening.js";
import { mayFetchModel } from "../engine/prefetch.js";

// The public API's types (semantic.d.ts, which declares this class as the code behaves)
/** @typedef {import("./semantic.js").ClientOptions} ClientOptions */
/** @typedef {import("./semantic.js").SearchOptions} SearchOptions */
/** @typedef {import("./semantic.js").AnswerOptions} AnswerOptions */
/** @typedef {import("./semantic.js").SearchResult} SearchResult */
/** @typedef {import("./semantic.js").Answer} Answer */
/** @typedef {import("./semantic.js").Hit} Hit */
/** @typedef {import("./semantic.js").Counts} Counts */
/** @typedef {import("./semantic.js").Progress} Progress */
/** @typedef {import("./semantic.js").QueryVector} QueryVector */

export class SemanticSearch {
  /**
   * `manifest`: URL of the bundle's manifest.json. `siteRoot`: URL that page URLs in
   * the bundle are relative to (default: the folder above the bundle folder).
   * `onProgress({phase, loaded, total})`: model download progress (only a site built
   * with `query_encoder: transformer` downloads a model). The page's meta tag's hints,
   * so that a first query asks for its first files beside the catalog: `pieces`, the
   * hash of the bundle's keyed word piece files; `keywords`, the set and count of its
   * keyword shards (`<count>:<hashes>`); `pages`, the hash of its page table; `words`, the
   * set and count of its word rows; `index`, the hash of its vector index. `idleEncoder`
   * and `onEncoder`: a progressive site's model, fetched in idle time (semantic.d.ts).
   * @param {ClientOptions} options without `manifest`, an error (semantic.d.ts asks for it)
   */
  constructor({ manifest, siteRoot, pieces = null, keywords = null, pages = null, words = null, index = null,
    onProgress = () => {}, idleEncoder = true, onEncoder = () => {} }) {
    if (!manifest) throw new Error("semantic search needs the URL of the bundle's manifest.json");
    this.manifestUrl = new URL(manifest, document.baseURI).href;
    this.siteRoot = new URL(siteRoot ?? "../", siteRoot ? document.baseURI : this.manifestUrl).href;
    this.onProgress = onProgress;
    // the page's own navigator says Save-Data as the worker's does; a test may set it here
    this.idleEncoder = idleEncoder !== false && mayFetchModel(globalThis.navigator);
    this.onEncoder = onEncoder;
    this.hints = { pieces, keywords, pages, words, index };
    this.progressWatchers = new Set();
    this.worker = null;
    this.pending = new Map();
    this.nextId = 1;
    this.ready = null;
  }

  /** The worker, started with the page's opening (`query`: a first query's text, if any). */
  #start(query = "") {
    if (this.worker) return;
    // The client's folder: this module's own, or the one the site's stable entry (a copy
    // of this module one folder up, built with the client's folder written in) names.
    const script = new URL(`${globalThis.SEMANTIC_CLIENT_FOLDER ?? "."}/worker.js`, import.meta.url);
    // A worker asks for its script only once its thread has started, a round after this
    // on a busy machine; asked for here, it comes beside the opening and the worker's
    // own request finds it in the browser's cache.
    fetch(script).then((response) => response.arrayBuffer()).catch(() => {});
    this.worker = new Worker(script, { type: "module" });
    this.worker.onmessage = ({ data }) => this.#receive(data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.#failAll(`the search worker failed to start (${event.message || "script error"})`);
    };
    this.#call("init", { manifestUrl: this.manifestUrl, pieces: this.hints.pieces, keywords: this.hints.keywords,
      words: this.hints.words, openingQuery: query, idleEncoder: this.idleEncoder });
    // the manifest and catalog come while the worker's code does, not after it
    const worker = this.worker;
    fetchOpening(this.manifestUrl, { query, ...this.hints }).then(
      ({ manifest, copy, guessed }) => worker.postMessage({ type: "opening", manifest, copy, guessed },
        [...(copy ? [copy] : []), ...guessed.map((file) => file.buffer)]),
      () => worker.postMessage({ type: "opening", manifest: null, copy: null, guessed: [] }),
    );
  }

  #receive(data) {
    if (data.type === "encoder") {
      this.onEncoder(data.kind);
      return;
    }
    if (data.type === "progress") {
      this.onProgress(data);
      for (const watch of this.progressWatchers) watch(data);
      return;
    }
    const request = this.pending.get(data.id);
    if (!request) return; // answered, or aborted
    if (data.type === "partial") {
      request.onPartial?.(data.value, { ranking: data.ranking });
      return;
    }
    this.pending.delete(data.id);
    request.unlisten?.();
    if (data.type === "done") request.resolve(data.value);
    else request.reject(new Error(data.message));
  }

  #failAll(message) {
    for (const request of this.pending.values()) {
      request.unlisten?.();
      request.reject(new Error(message));
    }
    this.pending.clear();
    this.ready = null;
  }

  /**
   * Sends a request to the worker. `signal`: aborting it rejects at once with its reason
   * and tells the worker to stop; `onPartial(value, {ranking})`: the worker's partial
   * answers, until the request is answered or aborted.
   * @param {string} type
   * @param {{ query?: string, [key: string]: unknown }} [payload]
   * @param {{ signal?: AbortSignal, onPartial?: (value: any, info: { ranking: "keyword" }) => void }} [request]
   * @returns {Promise<any>}
   */
  #call(type, payload = {}, { signal, onPartial } = {}) {
    this.#start(typeof payload.query === "string" ? payload.query : "");
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const request = { resolve, reject, onPartial };
      if (signal) {
        const abort = () => {
          this.pending.delete(id);
          this.worker?.postMessage({ type: "abort", id });
          reject(signal.reason);
        };
        signal.addEventListener("abort", abort, { once: true });
        request.unlisten = () => signal.removeEventListener("abort", abort);
      }
      this.pending.set(id, request);
      this.worker.postMessage({ id, type, ...payload });
    });
  }

  /**
   * Calls `watch({phase, loaded, total})` on each progress report too; returns its off switch.
   * @param {(progress: Progress) => void} watch
   * @returns {() => boolean}
   */
  watchProgress(watch) {
    this.progressWatchers.add(watch);
    return () => this.progressWatchers.delete(watch);
  }

  /**
   * Starts downloading what semantic search needs (the static encoder: tokenizer and
   * vectors; the transformer: also the model); resolves when search is ready.
   * @returns {Promise<Counts>}
   */
  preload() {
    this.ready ??= this.#call("load").catch((error) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  /**
   * Best sections for `query`, grouped by page: `[{url, page, anchor, title, path,
   * section, excerpt, score, vectorScore, lexicalScore, kind, id}]`.
   * `mode`: "hybrid" (default), "vector" or "lexical"; `filters`: `{key: [values]}`
   * on `section`, `tags` and the site's facets; `topK`, `minScore`: the site's
   * `top_k` and `min_score` unless given. Mode "lexical" needs no vectors and no model.
   *
   * Progressive results: `onPartial(results, {ranking: "keyword"})` gets the keyword
   * results first while the query encoder is still loading (they need no model), and
   * the promise resolves to the final ranking. `signal`: an AbortSignal; aborting it
   * (say, on the reader's next key) rejects with its reason, stops the search in the
   * worker, and drops its answers; downloads it started go on for later searches.
   * @param {string} query
   * @param {SearchOptions} [options]
   * @returns {Promise<SearchResult[]>}
   */
  async search(query, { onPartial, ...options } = {}) {
    const { results } = await this.answer(query, {
      ...options, onPartial: onPartial && ((answer, info) => onPartial(answer.results, info)),
    });
    return results;
  }

  /**
   * `search`, with the query as searched: `{reading: {typed, text, changes}, results}`.
   * A word the site does not use is corrected to the nearest site word it is a slip of
   * (`changes` [{typed, used, kind: "corrected"}]); with `typing` (the reader is still
   * typing the last word) an unknown last word is completed (kind "completed");
   * `asTyped`: searched exactly as typed. `onPartial(answer, info)` as in `search`.
   * @param {string} query
   * @param {AnswerOptions} [options]
   * @returns {Promise<Answer>}
   */
  async answer(query, { topK, filters, mode, minScore, typing, asTyped, onPartial, signal } = {}) {
    const toAnswer = ({ reading, results, encoder }) => ({
      reading, results: results.map((hit) => this.#result(hit)), ...(encoder ? { encoder } : {}),
    });
    return toAnswer(await this.#call(
      "answer",
      { query, options: { topK, filters, mode, minScore, typing, asTyped }, partial: Boolean(onPartial) },
      { signal, onPartial: onPartial && ((value, info) => onPartial(toAnswer(value), info)) },
    ));
  }

  /**
   * Plain exact nearest sections by vector (the reference searcher's search_vector).
   * @param {string} query
   * @param {{ topK?: number }} [options]
   * @returns {Promise<Hit[]>}
   */
  async searchVector(query, { topK } = {}) {
    await this.preload();
    const hits = await this.#call("searchVector", { query, options: { topK } });
    return hits.map((hit) => this.#result(hit));
  }

  /**
   * The query as the site's vectors are scored with: int8 codes (an Int8Array) for
   * int8 vectors, else a vector; null when the static encoder knows none of its tokens.
   * @param {string} query
   * @returns {Promise<QueryVector>}
   */
  async embed(query) {
    await this.preload();
    return this.#call("embed", { query });
  }

  #result(hit) {
    const page = new URL(hit.url, this.siteRoot).href;
    return { ...hit, page, url: href(page, hit.anchor) };
  }

  destroy() {
    this.worker?.terminate();
    this.worker = null;
    this.#failAll("semantic search was shut down");
  }
}

// Main-thread side of the client: owns the worker, numbers requests, resolves URLs.

import { href } from "./group.js";

export class SemanticSearch {
  /**
   * `manifest`: URL of the bundle's manifest.json. `siteRoot`: URL that page URLs in
   * the bundle are relative to (default: the folder above the bundle folder).
   * `onProgress({phase, loaded, total})`: model download progress (only a site built
   * with `query_encoder: transformer` downloads a model).
   */
  constructor({ manifest, siteRoot, onProgress = () => {} }) {
    if (!manifest) throw new Error("semantic search needs the URL of the bundle's manifest.json");
    this.manifestUrl = new URL(manifest, document.baseURI).href;
    this.siteRoot = new URL(siteRoot ?? "../", siteRoot ? document.baseURI : this.manifestUrl).href;
    this.onProgress = onProgress;
    this.worker = null;
    this.pending = new Map();
    this.nextId = 1;
    this.ready = null;
  }

  #start() {
    if (this.worker) return;
    this.worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
    this.worker.onmessage = ({ data }) => this.#receive(data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.#failAll(`the search worker failed to start (${event.message || "script error"})`);
    };
    this.#call("init", { manifestUrl: this.manifestUrl });
  }

  #receive(data) {
    if (data.type === "progress") {
      this.onProgress(data);
      return;
    }
    const request = this.pending.get(data.id);
    if (!request) return;
    this.pending.delete(data.id);
    if (data.type === "done") request.resolve(data.value);
    else request.reject(new Error(data.message));
  }

  #failAll(message) {
    for (const request of this.pending.values()) request.reject(new Error(message));
    this.pending.clear();
    this.ready = null;
  }

  #call(type, payload = {}) {
    this.#start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, ...payload });
    });
  }

  /**
   * Starts downloading what semantic search needs (the static encoder: tokenizer and
   * vectors; the transformer: also the model); resolves when search is ready.
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
   */
  async search(query, { topK, filters, mode, minScore } = {}) {
    if (mode !== "lexical") await this.preload();
    const hits = await this.#call("search", { query, options: { topK, filters, mode, minScore } });
    return hits.map((hit) => this.#result(hit));
  }

  /** Plain exact nearest sections by vector (the reference searcher's search_vector). */
  async searchVector(query, { topK } = {}) {
    await this.preload();
    const hits = await this.#call("searchVector", { query, options: { topK } });
    return hits.map((hit) => this.#result(hit));
  }

  /**
   * The query as the site's vectors are scored with: int8 codes (an Int8Array) for
   * int8 vectors, else a vector; null when the static encoder knows none of its tokens.
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

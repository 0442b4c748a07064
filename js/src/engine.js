// The search engine that runs inside a worker: loads a bundle and answers queries.
// Scores come from `this.scorers`, one list of per-chunk scores each. Today there is
// one, semantic; the bundle's lexical index can join it as a second scorer, with
// the Python searcher's fusion (ranking.py) in `search` where the one list is taken.

import { Chunks, checkManifest, fileUrl, parseMatrix } from "./bundle.js";
import { createEmbedder } from "./embed.js";
import { fetchBytes, fetchJson, fetchManifest } from "./fetch.js";
import { scoreAll, topK } from "./scan.js";
import { createEncoder } from "./tokenize.js";

/**
 * `runtime`: `{mjsUrl, wasmUrl, wasmBytes}` of onnxruntime-web's WebAssembly files.
 * `onProgress({phase, loaded, total})` reports downloads (phase "download"), then "start".
 */
export class Engine {
  constructor({ manifestUrl, runtime, onProgress = () => {} }) {
    this.manifestUrl = new URL(manifestUrl).href;
    this.runtime = runtime;
    this.onProgress = onProgress;
    this.loading = null;
  }

  /** Downloads and starts everything once; after a failure the next call tries again. */
  load() {
    this.loading ??= this.#load().catch((error) => {
      this.loading = null;
      throw error;
    });
    return this.loading;
  }

  async #load() {
    const manifest = checkManifest(await fetchManifest(this.manifestUrl), this.manifestUrl);
    const url = (logical) => fileUrl(manifest, logical, this.manifestUrl);
    const sizes = ["chunks", "index", "tokenizer", "model"].map((k) => manifest.files[k].bytes);
    const total = sizes.reduce((a, b) => a + b, this.runtime.wasmBytes);
    let loaded = 0;
    const progress = (n) => {
      loaded += n;
      this.onProgress({ phase: "download", loaded, total });
    };
    const [listing, index, tokenizer, model, wasmBinary] = await Promise.all([
      fetchJson(url("chunks"), progress),
      fetchBytes(url("index"), progress),
      fetchJson(url("tokenizer"), progress),
      fetchBytes(url("model"), progress),
      fetchBytes(this.runtime.wasmUrl, progress),
    ]);
    this.onProgress({ phase: "start", loaded, total });
    const m = manifest.model;
    this.chunks = new Chunks(listing);
    this.matrix = parseMatrix(index, {
      dtype: manifest.quantization.dtype,
      dim: m.dim,
      count: manifest.counts.chunks,
    });
    this.scale = manifest.quantization.scale;
    this.defaults = manifest.search ?? {};
    this.prefix = m.query_prefix ?? "";
    this.embedder = await createEmbedder({
      model: new Uint8Array(model),
      runtime: { mjsUrl: this.runtime.mjsUrl, wasmBinary },
      encode: createEncoder(tokenizer, { maxTokens: m.max_tokens }),
      pooling: m.pooling,
      normalize: m.normalize,
    });
    this.scorers = [{ name: "semantic", scores: (query) => this.#semanticScores(query) }];
    return { chunks: this.chunks.length, pages: this.chunks.pages.length };
  }

  /** The query vector, as the bundle's model makes it (query prefix included). */
  async embed(query) {
    await this.load();
    return this.embedder.embed(this.prefix + query);
  }

  async #semanticScores(query) {
    return scoreAll(this.matrix, await this.embed(query), this.scale);
  }

  /**
   * The `topK` best chunks for `query` that pass `filters`, best first: the reference
   * searcher's `search_vector` (exact scan, ties by chunk number), plus its filters.
   */
  async search(query, { topK: k, filters } = {}) {
    if (!query.trim()) return [];
    await this.load();
    const [scorer] = this.scorers;
    const scores = await scorer.scores(query);
    const accept = makeFilter(filters, this.chunks, this.defaults.filters ?? ["section"]);
    k ??= this.defaults.top_k ?? 10;
    return topK(scores, k, accept).map((id) => ({ ...this.chunks.get(id), score: scores[id] }));
  }

  destroy() {
    this.embedder?.release();
  }
}

/**
 * The reference searcher's filters: `{key: [values]}`, each key one of the bundle's
 * filter keys (`section`, `tags`, configured facets); a chunk passes when its page
 * has one of the values for every key.
 */
export function makeFilter(filters, chunks, allowed) {
  const entries = Object.entries(filters ?? {});
  if (!entries.length) return undefined;
  for (const [key] of entries) {
    if (!allowed.includes(key)) {
      throw new Error(`unknown filter ${JSON.stringify(key)}: this bundle has ${allowed.join(", ")}`);
    }
  }
  const wanted = entries.map(([key, values]) => [key, new Set([values].flat())]);
  return (id) => wanted.every(([key, values]) => chunks.facet(id, key).some((v) => values.has(v)));
}

// The search engine that runs inside a worker: loads a bundle and answers queries
// as mkdocs_semantic/search.py does. The keyword part (chunk list, lexical index)
// loads first and answers on its own while the model downloads.

import { Chunks, checkManifest, fileUrl, parseMatrix } from "./bundle.js";
import { createEmbedder } from "./embed.js";
import { fetchBytes, fetchJson, fetchManifest } from "./fetch.js";
import { LexicalIndex } from "./lexical.js";
import { chunkOrder, fuse, sizePriors } from "./ranking.js";
import { scoreAll, topK } from "./scan.js";
import { createEncoder } from "./tokenize.js";

export const MODES = ["hybrid", "vector", "lexical"];

/**
 * `runtime`: `{mjsUrl, wasmUrl, wasmBytes}` of onnxruntime-web's WebAssembly files.
 * `onProgress({phase, loaded, total})` reports downloads (phase "download"), then "start".
 */
export class Engine {
  constructor({ manifestUrl, runtime, onProgress = () => {} }) {
    this.manifestUrl = new URL(manifestUrl).href;
    this.runtime = runtime;
    this.onProgress = onProgress;
    this.keywordLoading = null;
    this.loading = null;
  }

  /** Manifest, chunk list and keyword index: small, enough for keyword results. */
  loadKeyword() {
    this.keywordLoading ??= this.#loadKeyword().catch((error) => {
      this.keywordLoading = null;
      throw error;
    });
    return this.keywordLoading;
  }

  /** Everything, the model included; after a failure the next call tries again. */
  load() {
    this.loading ??= this.#load().catch((error) => {
      this.loading = null;
      throw error;
    });
    return this.loading;
  }

  async #loadKeyword() {
    const manifest = checkManifest(await fetchManifest(this.manifestUrl), this.manifestUrl);
    const url = (logical) => fileUrl(manifest, logical, this.manifestUrl);
    const [listing, lexical] = await Promise.all([
      fetchJson(url("chunks")),
      fetchJson(url("lexical")),
    ]);
    this.manifest = manifest;
    this.chunks = new Chunks(listing);
    this.lexical = new LexicalIndex(lexical);
    if (this.lexical.count !== this.chunks.length) {
      throw new Error("the keyword index does not match the chunk list: rebuild the site");
    }
    this.defaults = manifest.search ?? {};
    this.pageOfChunk = this.chunks.rows.map((row) => row[0]);
    this.anchors = this.chunks.rows.map((row) => row[1]);
    this.boosts = this.chunks.pages.map((page) => page[4] ?? 1);
    this.priors = sizePriors(this.pageOfChunk, this.chunks.pages.length);
    return { chunks: this.chunks.length, pages: this.chunks.pages.length };
  }

  async #load() {
    const counts = await this.loadKeyword();
    const manifest = this.manifest;
    const url = (logical) => fileUrl(manifest, logical, this.manifestUrl);
    const sizes = ["index", "tokenizer", "model"].map((k) => manifest.files[k].bytes);
    const total = sizes.reduce((a, b) => a + b, this.runtime.wasmBytes);
    let loaded = 0;
    const progress = (n) => {
      loaded += n;
      this.onProgress({ phase: "download", loaded, total });
    };
    const [index, tokenizer, model, wasmBinary] = await Promise.all([
      fetchBytes(url("index"), progress),
      fetchJson(url("tokenizer"), progress),
      fetchBytes(url("model"), progress),
      fetchBytes(this.runtime.wasmUrl, progress),
    ]);
    this.onProgress({ phase: "start", loaded, total });
    const m = manifest.model;
    this.matrix = parseMatrix(index, {
      dtype: manifest.quantization.dtype,
      dim: m.dim,
      count: manifest.counts.chunks,
    });
    this.scale = manifest.quantization.scale;
    this.prefix = m.query_prefix ?? "";
    this.embedder = await createEmbedder({
      model: new Uint8Array(model),
      runtime: { mjsUrl: this.runtime.mjsUrl, wasmBinary },
      encode: createEncoder(tokenizer, { maxTokens: m.max_tokens }),
      pooling: m.pooling,
      normalize: m.normalize,
    });
    return counts;
  }

  /** The query vector, as the bundle's model makes it (query prefix included). */
  async embed(query) {
    await this.load();
    return this.embedder.embed(this.prefix + query);
  }

  /**
   * The reference searcher's `search`: modes `hybrid` (default), `vector`, `lexical`,
   * filters, `minScore` and `topK`, ranked by the page-aware fusion of ranking.js.
   * Results carry `score` (the page's fused score), `sectionScore` (the section's, which
   * orders sections within a page), `vectorScore` and `lexicalScore`.
   */
  async search(query, { topK, filters, mode, minScore } = {}) {
    if (!query.trim()) return [];
    await this.loadKeyword();
    mode ??= this.defaults.mode ?? "hybrid";
    if (!MODES.includes(mode)) {
      throw new Error(`unknown mode ${JSON.stringify(mode)}: use one of ${MODES.join(", ")}`);
    }
    topK ??= this.defaults.top_k ?? 10;
    minScore ??= this.defaults.min_score ?? null;
    const accept = makeFilter(filters, this.chunks, this.defaults.filters ?? ["section"]) ??
      (() => true);
    const orders = [];
    let vectorScores = null;
    let lexicalScores = null;
    if (mode !== "lexical") {
      await this.load();
      vectorScores = scoreAll(this.matrix, await this.embed(query), this.scale);
      orders.push(chunkOrder(vectorScores,
        (id) => accept(id) && (minScore === null || vectorScores[id] >= minScore)));
    }
    if (mode !== "vector") {
      lexicalScores = this.lexical.scores(query);
      orders.push(chunkOrder(lexicalScores, (id) => lexicalScores[id] > 0 && accept(id)));
    }
    const fused = fuse(orders, {
      pageOfChunk: this.pageOfChunk, anchors: this.anchors, priors: this.priors,
      boosts: this.boosts,
      rrfK: this.defaults.rrf_k ?? 60, topK,
    });
    return fused.map(({ chunk, pageScore, sectionScore }) => ({
      ...this.chunks.get(chunk),
      score: pageScore,
      sectionScore,
      vectorScore: vectorScores ? vectorScores[chunk] : null,
      lexicalScore: lexicalScores ? lexicalScores[chunk] / this.lexical.scale : null,
    }));
  }

  /** The reference searcher's `search_vector`: plain exact top-k, ties by chunk number. */
  async searchVector(query, { topK: k = 10 } = {}) {
    await this.load();
    const scores = scoreAll(this.matrix, await this.embed(query), this.scale);
    return topK(scores, k).map((id) => ({ ...this.chunks.get(id), score: scores[id] }));
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

// The search engine that runs inside a worker: reads a bundle (bundle.js's format) and
// answers queries as mkdocs_semantic/search/searcher.py does, loading only what each query
// needs. Keyword results need the manifest, the catalog, the page table, the lexical shards
// of the query's terms and the fragments of the pages shown (both named from the term or
// page alone; other shard lists of a large site add a directory file per lookup). The static query encoder adds the word piece shards of
// the query's words (wordpieces.js; a bundle without them: the tokenizer), the
// table shards of the query's tokens and the vectors: in the exact layout every part; in
// the partitioned one the index, then per query the sign bits of the partitions it
// probes and the int8 rows of the blocks holding its candidates (a filtered query: every
// row of every partition holding an eligible chunk). Only the transformer encoder downloads a model
// (kept across visits, kept.js): the build's files for bert.js, a forward pass of the
// client's own, or for a model that is not a BERT encoder the ONNX file and onnxruntime-web. A site built
// with `query_encoder: progressive` names it the manifest's `idle_encoder`: its first
// queries use the static encoder, and the model, fetched once no answer is under way,
// answers the queries that start after it is ready.

import {
  parsePageTable, parsePartitionBits, parsePartitionIndex, parseRow, parseRowsFile, parseVectorPart,
} from "../bundle/binary.js";
import {
  MAX_QUERY_CHARS, MAX_TOP_K, SEARCH_MODES, checkCatalog, checkManifest, checkPieceShard, exactParts, jsonBody, rowFile, verifyPayload,
} from "../bundle/bundle.js";
import { BundleError } from "../bundle/error.js";
import { PayloadStore, fetchBytes, fetchCatalogCopy, fetchManifest, parseJson, payloadUrl } from "../bundle/fetch.js";
import { isKept, keptBytes } from "../bundle/kept.js";
import { excerptParts, excerptText } from "../text/excerpt.js";
import { LexicalIndex, analyze } from "./lexical.js";
import {
  NAMED_HEADINGS, VECTOR_CHUNKS, chunkOrder, fuse, headingName, keywordWeight, namedSections,
  sectionHeading, sizePriors,
} from "./ranking.js";
import {
  blocksHolding,
  candidateIds,
  chunksOfRows,
  meanScore,
  probedPartitions,
  queryCodes,
  scoreAll,
  scorePartitions,
  signTables,
  topK as bestOf,
  unitLength,
} from "./scan.js";
import { ShardList } from "../bundle/shard-list.js";
import { readQuery } from "./spelling.js";
import { StaticEncoder } from "./static-encoder.js";
import { Vocabulary } from "./vocabulary.js";
import { createEncoder, createTokenIds } from "./tokenize.js";
import { WordPieces } from "./wordpieces.js";
import { FRAME, wordEntry } from "./word-rows.js";
import { guessedWordFiles } from "./guessed-words.js";
import { guessedPieceFiles, piecesHash } from "../bundle/piece-names.js";
import { guessedKeywordFiles } from "./guessed-keywords.js";
import {
  PREFETCH_BATCH, PREFETCH_BITS_BATCH, PREFETCH_BYTES, mayFetchModel, mayPrefetch, prefetch, prefetchOrder,
} from "./prefetch.js";
import { GUESSED_PAGES, askGuessedFragments, firstPages } from "./guessed-fragments.js";
import { ExcerptFiles } from "./fragment-parts.js";

/**
 * `#rank`'s options (see there), and `answer`'s: with `onPartial(answer, info)`.
 * @typedef {object} RankOptions
 * @property {number} [topK]
 * @property {Record<string, string | string[]>} [filters]
 * @property {string} [mode]
 * @property {number} [minScore]
 * @property {AbortSignal} [signal]
 * @property {boolean} [typing]
 * @property {boolean} [asTyped]
 * @property {(answer: any, info: { ranking: "keyword" }) => void} [onPartial]
 */

/**
 * On a set of more than this many probes' worth of chunks, a probe for a query whose
 * reading may still change it can wait for the reading (Engine#bitsWaitForReading), and
 * so do the fragments its keyword ranking guesses (Engine#readingFirst).
 */
const READING_FIRST_PROBES = 2;
/**
 * What a round trip on a reader's network (40 ms) costs in bytes sent (at 20 Mbit/s):
 * the cost model of docs/how-it-works.md.
 */
const ROUND_TRIP_BYTES = 100_000;

/** A kind of file the idle prefetch has none of to read. */
const NOTHING_TO_PREFETCH = Object.freeze({ entries: [], cost: (entry) => entry.bytes });

/**
 * `manifestUrl`: the bundle's manifest.json. `encoder`: "static" or "transformer" (the
 * site's `query_encoder` unless given; given, no idle encoder is fetched). `idleEncoder`:
 * false to never fetch the manifest's `idle_encoder`. `onEncoder(kind)`: called when the
 * idle encoder takes over. `runtime`: `{mjsUrl, wasmUrl, wasmBytes}` of
 * onnxruntime-web's files, used by the transformer only. `onProgress({phase, loaded,
 * total})` reports the transformer's downloads (phase "download"), then "start".
 * `opening`: a promise of `fetchOpening(manifestUrl)` (opening.js) asked for before the
 * engine was made, used by its first read of the catalog (if it fails, the engine asks);
 * `openingQuery`: the query it was asked with, whose word piece files it brings.
 * `pieces`: the hash of the bundle's keyed word piece files, `keywords`, its keyword
 * shards' `<count>:<hashes>`, and `words`, its word rows' `<count>:<hashes>`, as the page says
 * them, so that a query that comes before the catalog asks for its words' files at once.
 */
export class Engine {
  /**
   * @param {{ manifestUrl: string, runtime?: { mjsUrl: string, wasmUrl: string, wasmBytes: number },
   *   encoder?: string, opening?: Promise<any> | null, openingQuery?: string, pieces?: string | null,
   *   keywords?: string | null, words?: string | null, idleEncoder?: boolean,
   *   onProgress?: (progress: { phase: string, loaded: number, total: number }) => void,
   *   onEncoder?: (kind: string) => void }} options
   */
  constructor({ manifestUrl, runtime, encoder, opening = null, openingQuery = "", pieces = null,
    keywords = null, words = null, idleEncoder = true, onProgress = () => {}, onEncoder = () => {} }) {
    this.manifestUrl = new URL(manifestUrl).href;
    this.early = opening; // fetchOpening's promise, used once by #readCatalog
    this.openingQuery = String(openingQuery ?? "");
    this.pagePieces = piecesHash(pieces);
    this.pageKeywords = keywords;
    this.pageWords = words;
    this.runtime = runtime;
    this.encoderKind = encoder;
    this.idleAllowed = idleEncoder !== false && encoder === undefined;
    this.idleKind = null; // the manifest's idle_encoder, when this engine may fetch it
    this.onProgress = onProgress;
    this.onEncoder = onEncoder;
    this.store = new PayloadStore(this.manifestUrl);
    this.opening = null;
    this.pending = new Map(); // what load() and the encoders build once: name -> promise
    this.built = new Set(); // the names in `pending` whose promise has resolved
    this.running = 0; // answers under way
    this.prefetchBudget = PREFETCH_BYTES;
    // what a round trip costs in bytes sent (#bitsWaitForReading)
    this.roundTripBytes = ROUND_TRIP_BYTES;
    // how many pages' fragments each signal's guess asks for before the final ranking
    this.guessedPages = GUESSED_PAGES;
    // whether a word's pieces are asked for beside its rows, before they tell whether the
    // site lacks it: a step spared for bytes, not under Save-Data or on a 2G link
    this.guessPieces = mayPrefetch(globalThis.navigator);
    this.prefetching = Promise.resolve(); // the idle prefetch under way, if any
    this.lastSignTables = null; // the sign tables of the last query the vectors scored
    // set by #readCatalog
    /** @type {any} */ this.manifest = undefined;
    /** @type {any} */ this.catalog = undefined;
    /** @type {Record<string, any>} */ this.defaults = undefined; // the manifest's `search`
    /** @type {any} */ this.encoder = undefined; // the catalog's query encoder and its `kind`
    /** @type {ShardList} */ this.fragments = undefined;
    /** @type {LexicalIndex} */ this.lexical = undefined;
    /** @type {Vocabulary | undefined} */ this.vocabulary = undefined;
    // set by #open, from the page table
    /** @type {Int32Array} */ this.starts = undefined;
    /** @type {Int32Array} */ this.pageOfChunk = undefined;
    /** @type {Int32Array} */ this.sections = undefined;
    /** @type {ExcerptFiles} */ this.excerpts = undefined;
    /** @type {number[]} */ this.priors = undefined;
  }

  /** Manifest, catalog and page table: all that planning and ranking need. Returns the counts. */
  open() {
    this.opening ??= this.#open().catch((error) => {
      this.opening = null;
      throw error;
    });
    return this.opening;
  }

  async #open() {
    await this.#catalog();
    const { pages, chunks } = this.manifest.counts;
    const { starts, pageOfChunk, sections } = await this.store.get(this.catalog.pageTable,
      (buffer) => parsePageTable(buffer, { pages, chunks, name: this.catalog.pageTable.name }));
    const parts = this.catalog.fragmentParts;
    const excerpts = new ExcerptFiles({
      fragments: this.fragments, starts, name: this.manifest.catalog.name,
      parts: parts && { chunks: parts.chunks, list: this.#shardList(parts.parts) },
    });
    Object.assign(this, { starts, pageOfChunk, sections, excerpts, priors: sizePriors(pageOfChunk, pages) });
    return { pages, chunks };
  }

  /**
   * Manifest and catalog: what names every other file, so that a query asks for its
   * first files beside the page table rather than after it.
   */
  #catalog() {
    this.cataloging ??= this.#readCatalog().catch((error) => {
      this.cataloging = null;
      throw error;
    });
    return this.cataloging;
  }

  async #readCatalog() {
    // The catalog's copy under its stable name comes beside the manifest; it is used
    // when it is the catalog the manifest names (not during a deploy, between the two).
    // Both may have been asked for before the engine was (`opening`), once.
    const early = await this.early?.catch(() => null);
    this.early = null;
    for (const { name, buffer } of early?.guessed ?? []) this.store.offer(name, buffer);
    const copy = early ? Promise.resolve(early.copy) : fetchCatalogCopy(this.manifestUrl);
    const manifest = checkManifest(early ? early.manifest : await fetchManifest(this.manifestUrl),
      this.manifestUrl);
    const parse = (buffer) => parseJson(buffer, manifest.catalog.name);
    const current = await copy.then((buffer) => buffer && verifyPayload(buffer, manifest.catalog)).catch(() => null);
    const catalog = checkCatalog(
      current ? parse(current) : await this.store.get({ ...manifest.catalog }, parse),
      manifest, manifest.catalog.name);
    const kind = this.encoderKind ?? manifest.query_encoder;
    if (!catalog.encoders[kind]) {
      throw new BundleError(
        `this site has no ${kind} query encoder (it has ${Object.keys(catalog.encoders).join(", ")})` +
          (kind === "transformer" ? ": build it with query_encoder: transformer" : ""));
    }
    Object.assign(this, {
      manifest, catalog,
      defaults: manifest.search,
      encoder: { kind, ...catalog.encoders[kind] },
      fragments: this.#shardList(catalog.fragments),
      lexical: new LexicalIndex(catalog.lexical, {
        shards: this.#shardList(catalog.lexical.shards),
        pageStarts: async () => (await this.open(), this.starts),
        load: (file) => this.store.json(file),
      }),
      vocabulary: catalog.vocabulary && new Vocabulary({
        shards: this.#shardList(catalog.vocabulary.shards), spelling: this.#shardList(catalog.vocabulary.spelling),
        load: (file) => this.store.json(file),
      }),
    });
    this.idleKind = this.idleAllowed ? manifest.idle_encoder : null;
    // a model kept from an earlier visit costs no download: it starts at once
    const idle = this.idleKind && catalog.encoders[this.idleKind];
    const model = idle && (idle.weights?.layers ?? idle.model);
    if (model) isKept(payloadUrl(model.name, this.manifestUrl)).then((kept) => kept && this.#fetchIdleEncoder());
  }

  /** Fetches the idle encoder (quietly: no download progress); it takes over when ready. */
  #fetchIdleEncoder() {
    if (!this.idleKind || this.pending.has("transformer")) return;
    this.#transformer({ quiet: true }).then(() => this.#useIdleEncoder(), () => {}); // tried again at the next idle
  }

  /**
   * The idle encoder answers from now on, once it is ready and no answer is under way
   * (an answer keeps the encoder it started with).
   */
  #useIdleEncoder() {
    if (!this.idleKind || this.running || this.encoder.kind === this.idleKind || !this.built.has("transformer")) return;
    this.encoder = { kind: this.idleKind, ...this.catalog.encoders[this.idleKind] };
    this.onEncoder(this.idleKind);
  }

  /**
   * What the query encoder needs before its first query: for the static encoder the
   * tokenizer and the vectors (no model); for the transformer also the model and
   * onnxruntime-web, with download progress. After a failure the next call tries again.
   */
  async load() {
    const counts = await this.open();
    await (this.encoder.kind === "static"
      ? Promise.all([this.#staticEncoder(), this.#vectors()])
      : this.#transformer());
    return counts;
  }

  #once(key, make) {
    let promise = this.pending.get(key);
    if (!promise) {
      promise = make();
      this.pending.set(key, promise);
      promise.then(() => this.built.add(key), () => this.pending.delete(key));
    }
    return promise;
  }

  /**
   * Exact layout: every part. Partitioned: the index (partitions load per query).
   * @param {(bytes: number) => void} [onBytes]
   */
  #vectors(onBytes) {
    return this.#once("vectors", async () => {
      const set = this.catalog.vectors[this.encoder.vectors];
      if (set.layout === "partitioned") {
        // A set every query probes whole lists its bits files in the catalog: asked for
        // now, beside the index and the query's table rows, not a step after the index.
        for (const file of set.bits ?? []) this.store.get(file).catch(() => {});
        const index = await this.store.get(set.index, (buffer) => parsePartitionIndex(buffer, {
          partitions: set.partitions, dim: set.dim, idBytes: set.idBytes, name: set.index.name,
        }), onBytes);
        if (set.bits && set.bits.some((file, p) => file.name !== index.bitsFiles[p].name ||
            file.bytes !== index.bitsFiles[p].bytes)) {
          throw new BundleError(`the catalog's bits files are not the ones ${set.index.name} names: rebuild the site`);
        }
        const partitioned = { ...set, ...index, chunks: this.manifest.counts.chunks };
        // A set no larger than a query probes is probed whole by every query: its bits
        // files are read now (those the catalog lists are on their way already; a
        // bundle written without the list asks for them here).
        if (index.sizes.reduce((a, b) => a + b, 0) <= set.probeRows) {
          index.sizes.forEach((_, p) => this.#partitionBits(partitioned, p).catch(() => {}));
        }
        return partitioned;
      }
      await this.open();
      const parts = await Promise.all(exactParts(set, this.starts, this.manifest.catalog.name).map(async (part) => ({
        rows: part.rows,
        data: await this.store.get(part, (buffer) => parseVectorPart(buffer, { ...set, rows: part.rows }), onBytes),
      })));
      return { dtype: set.dtype, dim: set.dim, scale: set.scale, parts };
    });
  }

  /** Partition `p`'s bits file: `{ids, rowOf, firsts, bits, blocks}`. */
  #partitionBits(set, p) {
    return this.#once(`bits:${p}`, async () => {
      // asked for at once; read once the page table (its chunks are named by page) is in
      const [buffer] = await Promise.all([this.store.get(set.bitsFiles[p]), this.open()]);
      return parsePartitionBits(buffer, {
        dim: set.dim, chunks: set.sizes[p], rows: set.distinct[p], blocks: set.blocks[p],
        idBytes: set.idBytes, starts: this.starts, name: set.bitsFiles[p].name,
      });
    });
  }

  /** `part` with the int8 rows of its blocks among `read` (the others null). */
  async #withRows(part, read, wanted) {
    const blockRows = await Promise.all(part.blocks.map((block) => (read.includes(block)
      ? this.#rowBlock(block) : null)));
    return { ...part, blockRows, wanted };
  }

  /** A partition's row block (`{name, bytes, sha256, start, rows}`): its int8 rows. */
  #rowBlock(block) {
    return this.store.get(block, (buffer) => parseRowsFile(buffer, block));
  }

  /** The facets payload: `pages` (and `partitions`) per filter key and value. */
  #facets() {
    return this.#once("facets", () => this.store.json(this.catalog.facets));
  }

  /** A catalog shard list, its directory files read through the payload store. */
  #shardList(value) {
    return new ShardList(value, { loadJson: (file) => this.store.json(file) });
  }

  /** A word piece file's or shard's pieces, `{piece: id}`, read once. */
  #pieceShard(entry) {
    return this.store.get(entry, async (buffer) => checkPieceShard(
      parseJson(await jsonBody(buffer, entry.name), entry.name), entry.name));
  }

  /**
   * Before the catalog is read: the word rows and keyed word piece files `query`'s words
   * would read and the keyword shards of its terms, named with the page's hints, asked
   * for now rather than a step after the catalog (the pieces of a word the site lacks
   * would otherwise wait for its rows to tell so).
   */
  #askEarly(query) {
    if (this.catalog) return;
    // the opening, while it is still to come, brings its own query's files
    const opening = this.early ? this.openingQuery : null;
    const guess = (files, hint) => Promise.all([files(query, hint), opening === null ? [] : files(opening, hint)])
      .then(([names, brought]) => {
        for (const name of names) if (!brought.includes(name)) this.store.json({ name }).catch(() => {});
      }, () => {}); // a guess: the engine asks when it needs them
    if (this.pageWords && this.encoderKind !== "transformer") {
      guess(guessedWordFiles, this.pageWords);
    }
    if (this.pagePieces && this.encoderKind !== "transformer" && (!this.pageWords || this.guessPieces)) {
      const coming = new Set(opening === null ? [] : guessedPieceFiles(opening, this.pagePieces));
      for (const name of guessedPieceFiles(query, this.pagePieces)) {
        if (!coming.has(name)) this.#pieceShard({ name }).catch(() => {}); // asked again when needed
      }
    }
    if (this.pageKeywords) guess(guessedKeywordFiles, this.pageKeywords);
  }

  /** The static encoder's tokenizer: its vocabulary by need when the bundle has it in shards. */
  #wordPieces() {
    return this.#once("pieces", async () => {
      const { pieces, maxTokens } = this.catalog.encoders.static;
      return new WordPieces({
        config: pieces.config,
        keyed: pieces.keyed,
        shards: this.#shardList(pieces.shards),
        load: (entry) => this.#pieceShard(entry),
        maxTokens,
      });
    });
  }

  /** The word rows (word-rows.js) of the static `encoder`, its words cut by `pieces`. */
  #wordRows(encoder, pieces) {
    const shards = this.#shardList(encoder.words);
    const read = new Set(); // the shards whose words are known
    return {
      split: (text) => pieces.queryWords(text),
      find: async (word) => {
        const entry = await shards.find(word);
        // its rows say a step later whether the site lacks it: its pieces come beside them
        if (this.guessPieces && word !== FRAME && !read.has(entry.name)) pieces.ask([word]);
        const data = await this.store.json(entry);
        read.add(entry.name);
        return wordEntry(data, word, encoder.dim, entry.name);
      },
      tokenize: (words) => pieces.tokenizeWords(words),
    };
  }

  #staticEncoder() {
    return this.#once("static", async () => {
      const encoder = this.catalog.encoders.static;
      let tokenize;
      let words = null;
      if (encoder.pieces) {
        const pieces = await this.#wordPieces();
        tokenize = (text) => pieces.tokenize(text);
        if (encoder.words) words = this.#wordRows(encoder, pieces);
      } else {
        tokenize = createTokenIds(await this.store.json(encoder.tokenizer), { maxTokens: encoder.maxTokens });
      }
      return new StaticEncoder({
        encoder,
        tokenize,
        words,
        loadRow: (token) => {
          const file = rowFile(token, encoder.rows, encoder.dim);
          return this.store.get(file, (buffer) => parseRow(buffer, encoder.dim, file.name));
        },
      });
    });
  }

  #transformer({ quiet = false } = {}) {
    return this.#once("transformer", async () => {
      const { model, tokenizer, weights } = this.catalog.encoders.transformer;
      const set = this.catalog.vectors[this.encoder.vectors];
      const vectorFiles = set.layout === "partitioned" ? [set.index] : set.parts;
      const modelFiles = weights ? [weights.layers, ...weights.words] : [model];
      const total = [...modelFiles, tokenizer, ...vectorFiles].reduce((n, f) => n + f.bytes,
        weights ? 0 : this.runtime.wasmBytes);
      let loaded = 0;
      const progress = (n) => {
        loaded += n;
        if (!quiet) this.onProgress({ phase: "download", loaded, total });
      };
      const [forward, tokenizerJson] = await Promise.all([
        weights ? this.#ownForwardPass(weights, progress) : this.#onnxForwardPass(model, progress),
        this.store.get(tokenizer, (buffer) => parseJson(buffer, tokenizer.name), progress),
        this.#vectors(progress),
      ]);
      if (!quiet) this.onProgress({ phase: "start", loaded, total });
      const m = this.catalog.model;
      return forward({
        encode: createEncoder(tokenizerJson, { maxTokens: m.maxTokens }),
        pooling: m.pooling,
        normalize: m.normalize,
      });
    });
  }

  /**
   * A model file's bytes, kept across visits (kept.js) and checked against the catalog;
   * kept files of its `stem` beside it that `current` (URLs) does not hold are dropped:
   * an earlier build's.
   */
  #keptModelFile(file, stem, progress, current = new Set()) {
    const url = payloadUrl(file.name, this.manifestUrl);
    return keptBytes(url, () => this.store.get(file, (buffer) => buffer, progress), {
      check: (buffer) => verifyPayload(buffer, file),
      sameKind: (other) => sameFolder(other, url) && stem.test(other) && !current.has(other),
    });
  }

  /** The model's files for bert.js (the build's own forward pass), kept across visits. */
  async #ownForwardPass(weights, progress) {
    const blockUrls = new Set(weights.words.map((f) => payloadUrl(f.name, this.manifestUrl)));
    const [{ createBertEmbedder, parseLayers, parseWordBlock }, layersBuffer, ...blockBuffers] = await Promise.all([
      import("./bert.js"),
      this.#keptModelFile(weights.layers, /\/layers\.[0-9a-f]+\.bin$/, progress),
      ...weights.words.map((file) => this.#keptModelFile(file, /\/words\.[0-9a-f]+\.bin$/, progress, blockUrls)),
    ]);
    const layers = parseLayers(layersBuffer, weights.layers.name);
    const blocks = blockBuffers.map((buffer, i) => parseWordBlock(buffer, layers.config.hidden, weights.words[i].name));
    return (options) => createBertEmbedder({ layers, blocks, ...options });
  }

  /** The ONNX model and onnxruntime-web, for a model bert.js cannot run; kept across visits. */
  async #onnxForwardPass(model, progress) {
    const { wasmUrl } = this.runtime;
    // onnxruntime-web is imported here, so the static path never loads its code.
    const [{ createEmbedder }, modelBytes, wasmBinary] = await Promise.all([
      import("./embed.js"),
      this.#keptModelFile(model, /\/model\.[0-9a-f]+\.onnx$/, progress).then((buffer) => new Uint8Array(buffer)),
      keptBytes(wasmUrl, () => fetchBytes(wasmUrl, progress), {
        // the same file of another client build: client/<hash>/ort-wasm-...wasm
        sameKind: (url) => url.endsWith(wasmUrl.slice(wasmUrl.lastIndexOf("/"))) &&
          new URL("..", url).href === new URL("..", wasmUrl).href,
      }),
    ]);
    return (options) => createEmbedder({
      model: modelBytes, runtime: { mjsUrl: this.runtime.mjsUrl, wasmBinary }, ...options,
    });
  }

  /**
   * The query as the vector set is scored with: int8 codes (Int8Array) for int8
   * vectors, else the vector itself; null when the static encoder knows none of its
   * tokens. The model's query prefix is included.
   */
  async embed(query) {
    await this.open();
    return this.#embedOpen(query);
  }

  /**
   * `embed` once the catalog is open: asks for the encoder's files before it awaits.
   * `onPartial(sum)`: the static encoder's partial sum (StaticEncoder.encode).
   * @param {string} query
   * @param {{ onPartial?: (sum: Int32Array) => void }} [options]
   */
  async #embedOpen(query, { onPartial } = {}) {
    const text = this.catalog.model.queryPrefix + query;
    let vector;
    if (this.encoder.kind === "static") {
      vector = await (await this.#staticEncoder()).encode(text, { onPartial });
    } else {
      vector = await (await this.#transformer()).embed(text);
    }
    if (vector === null) return null;
    if (this.catalog.vectors[this.encoder.vectors].dtype === "i8") return queryCodes(vector);
    // a sum of table rows: unit length makes float scores cosines, like the model's
    return this.encoder.kind === "static" ? unitLength(vector) : vector;
  }

  /**
   * Vector score of every chunk for `query` (`scores`, NaN where not scored: in the
   * partitioned layout all but the query's candidates) and the query's mean score over
   * every chunk (`floor`, the fusion's vector floor), or null when it has no vector.
   * `among`: a filtered query's partitions (those holding an eligible chunk), whose rows
   * are all scored exactly, so a filter misses no match. Once `signal` is aborted (the
   * reader typed on) no further partition file is asked for. `onCandidates(ids)`: the
   * partitioned layout's candidates (every chunk of each candidate row, best sign score
   * first), as soon as they are known, before their rows are read. `go`: null, or a
   * promise that resolves to whether `query` is still wanted: the row blocks of its
   * candidates (not a filtered query's, which every vector reads) wait for it, and none
   * is asked for, nor anything scored (null), once it says no; so do the probe ahead's,
   * unless every bits file it probes was in hand (#probeAhead); so does its probe, on a
   * set of more than two probes' worth of chunks when it lacks many bits
   * (#bitsWaitForReading).
   * @param {string} query
   * @param {{ among?: number[] | null, signal?: AbortSignal, onCandidates?: (ids: number[]) => void,
   *   go?: Promise<boolean> | null }} [options]
   */
  async #vectorScores(query, { among = null, signal, onCandidates, go = null } = {}) {
    const wanted = async () => go === null || await go;
    // The encoder's files first: the table shards wait for the tokenizer, while the
    // vector files wait for nothing (browsers open few connections per host at once).
    const vector = this.#embedOpen(query, {
      onPartial: (sum) => this.#probeAhead(sum, among, signal, go ?? true),
    });
    const [codes, set] = await Promise.all([vector, this.#vectors()]);
    if (codes === null) return null;
    const floor = meanScore(this.catalog.vectors[this.encoder.vectors], this.manifest.counts.chunks, codes);
    if (set.layout !== "partitioned") return { scores: scoreAll(set, codes), floor };
    signal?.throwIfAborted();
    if (among) {
      // every block of the filtered partitions, whatever the vector: nothing waits for `go`
      const parts = await Promise.all(among.map(async (p) => {
        const part = await this.#partitionBits(set, p);
        return this.#withRows(part, part.blocks, null);
      }));
      return { scores: scorePartitions(set, parts, codes), floor };
    }
    const tables = signTables(codes);
    this.lastSignTables = tables; // the idle prefetch reads the bits nearest it first
    const partitions = probedPartitions(set.centroidBits, set.sizes, tables, set.probeRows);
    if (go !== null && this.#bitsWaitForReading(set, partitions) && !(await go)) return null;
    signal?.throwIfAborted(); // the wait may outlast the search
    const { probed, candidates } = await this.#probe(set, tables, partitions);
    signal?.throwIfAborted();
    if (onCandidates) onCandidates(chunksOfRows(probed, candidates));
    if (!(await wanted())) return null; // at once when the probe waited for it
    signal?.throwIfAborted(); // the wait may outlast the search
    const picked = new Set(candidates);
    const parts = await Promise.all(probed.map((part) => ({ part, read: blocksHolding(part, picked) }))
      .filter(({ read }) => read.length).map(({ part, read }) => this.#withRows(part, read, picked)));
    return { scores: scorePartitions(set, parts, codes), floor };
  }

  /**
   * The `partitions` a query's sign `tables` probe (probedPartitions), their bits files
   * read (`probed`), and its candidates among their rows: their first chunks, best first.
   */
  async #probe(set, tables, partitions) {
    const probed = await Promise.all(partitions.map((p) => this.#partitionBits(set, p)));
    return { probed, candidates: candidateIds(probed, tables, set.candidates) };
  }

  /**
   * While a query's words the site does not use wait for their word pieces and then their
   * tokens' rows: asks for the bits of the partitions that the rows of its other words
   * (`sum`) probe and, once they are in, the row blocks of that partial vector's
   * candidates. Those are most of what the whole vector probes and picks (every block
   * it needs for 45-83 % of such clean queries on four sets: docs/decisions/
   * vector-probe.md), so its blocks then come beside the tokens' rows rather than a step
   * after them. Only a guess: the probe itself waits for the whole vector, and asks for
   * what the guess missed. The bits serve a query as typed and as corrected alike, so
   * they wait for no reading, except when the guess lacks many on a set of more than
   * two probes' worth of chunks (#bitsWaitForReading). The blocks wait for `blocks` (a
   * promise of whether the query is still wanted as typed) unless every bits file the
   * guess probes was in hand: then a corrected query, whose vector is whole once its
   * words' rows come, finds the blocks beside them; else it needs more bits, a step
   * later, and asks for its blocks then.
   * @param {Int32Array} sum
   * @param {number[] | null} among
   * @param {AbortSignal | undefined} signal
   * @param {boolean | Promise<boolean>} [blocks]
   */
  async #probeAhead(sum, among, signal, blocks = true) {
    try {
      const set = await this.#vectors();
      const codes = queryCodes(sum);
      if (set.layout !== "partitioned" || among || !codes || signal?.aborted) return;
      const tables = signTables(codes);
      const partitions = probedPartitions(set.centroidBits, set.sizes, tables, set.probeRows);
      const inHand = partitions.every((p) => this.built.has(`bits:${p}`));
      if (blocks !== true && this.#bitsWaitForReading(set, partitions) && !(await blocks)) return;
      if (signal?.aborted) return;
      const { probed, candidates } = await this.#probe(set, tables, partitions);
      if (!(inHand || await blocks) || signal?.aborted) return;
      const wanted = new Set(candidates);
      for (const part of probed) {
        for (const block of blocksHolding(part, wanted)) this.#rowBlock(block).catch(() => {});
      }
    } catch {
      // a guess: the probe asks again
    }
  }

  /**
   * Whether a probe of `partitions` for a query that its reading may still change (a word
   * the site does not use, which a correction replaces) waits for the reading: on a set
   * of more than READING_FIRST_PROBES probes' worth of chunks, when the bits files it
   * lacks (not yet asked for) come to more than a round trip's worth of bytes. There a
   * corrected vector probes many partitions that the typed one and the probe ahead do
   * not, so their bits would be read for nothing, while waiting costs a round only when
   * the reading comes after the vector. Where a probe covers most of the set, its bits
   * serve the corrected query too, and a few missing bits cost less than the round they
   * would save.
   */
  #bitsWaitForReading(set, partitions) {
    if (!this.#readingFirst()) return false;
    let lacking = 0;
    for (const p of partitions) {
      if (!this.pending.has(`bits:${p}`)) lacking += set.bitsFiles[p].bytes;
    }
    return lacking > this.roundTripBytes;
  }

  /**
   * Whether the site's vectors are partitioned in more than READING_FIRST_PROBES probes'
   * worth of chunks: there a query's words as typed and its reading probe different
   * partitions, so what only the typed words pick waits for the reading
   * (#bitsWaitForReading, #rank).
   */
  #readingFirst() {
    const set = this.catalog.vectors[this.encoder.vectors];
    return set.layout === "partitioned" && this.manifest.counts.chunks > READING_FIRST_PROBES * set.probeRows;
  }

  /** Whether the query encoder has all it needs: a query then waits for at most a shard. */
  encoderReady() {
    if (!this.encoder) return false;
    return this.encoder.kind === "static"
      ? this.built.has("static") && this.built.has("vectors")
      : this.built.has("transformer");
  }

  /**
   * The reference searcher's `search` (options below, at `#rank`), progressively: with
   * `onPartial(results, {ranking: "keyword"})`, a search that needs the query encoder
   * while it is still loading first reports the keyword results, unless its final
   * results are ready first. Resolves to the final results. This is the one place
   * that decides what is shown before the final ranking. Once `signal` is aborted
   * nothing more is reported and the search rejects with its reason.
   * @param {string} query
   * @param {RankOptions} [options] `onPartial(results, info)` here
   */
  async search(query, options = {}) {
    const { onPartial } = options;
    return (await this.answer(query, {
      ...options, onPartial: onPartial && ((answer, info) => onPartial(answer.results, info)),
    })).results;
  }

  /**
   * `search`, with the query as searched: `{reading: {typed, text, changes}, results}`
   * (mkdocs_semantic/search/spelling.py): slipped words corrected and, while the reader is
   * still `typing`, a half-typed last word completed; `asTyped`: searched exactly as
   * typed. `onPartial(answer, {ranking})` gets the keyword answer as `search` does.
   * @param {string} query
   * @param {RankOptions} [options]
   */
  async answer(query, options = {}) {
    const text = String(query ?? "");
    const chars = [...text].length; // code points, as the Python readers count
    if (chars > MAX_QUERY_CHARS) {
      throw new RangeError(`the query is ${chars} characters long; at most ${MAX_QUERY_CHARS} are accepted`);
    }
    this.#askEarly(text);
    this.running += 1;
    try {
      // the encoder cannot change while an answer is under way (#useIdleEncoder)
      return { ...await this.#answer(query, options), encoder: this.encoder?.kind };
    } finally {
      this.running -= 1;
      if (!this.running) {
        this.#useIdleEncoder();
        this.#idle();
      }
    }
  }

  /**
   * Once no answer is under way, within PREFETCH_BYTES sent over the engine's life and
   * never on a connection that saves data: the bits files of the partitions no query has
   * read yet (`#unreadBits`) and, for the static encoder, the word-piece shards no query
   * has read yet (`#unreadPieces`), so that a later query's probe and new words wait for
   * no file. A query's probe needs every one of its partitions' bits, so the bits go
   * first only when all of them fit the budget (then no later query waits for bits);
   * otherwise the pieces go first, then the bits nearest the last query with what is
   * left, which spares a later query bytes more than rounds. A new query stops it at its
   * next batch; `prefetching` is the prefetch under way.
   */
  #idle() {
    if (this.idleKind && mayFetchModel(globalThis.navigator)) this.#fetchIdleEncoder();
    if (!this.encoder || this.prefetchBudget <= 0 || !mayPrefetch(globalThis.navigator)) return;
    this.prefetching = this.prefetching.then(async () => {
      if (this.running) return;
      const [bits, pieces] = await Promise.all([this.#unreadBits(), this.#unreadPieces()]);
      for (const { entries, read, cost, batch } of prefetchOrder(bits, pieces, this.prefetchBudget)) {
        if (this.running || this.prefetchBudget <= 0) return;
        this.prefetchBudget -= await prefetch(entries, {
          read, cost, batch, busy: () => this.running > 0, budget: this.prefetchBudget,
        });
      }
    }).catch(() => {}); // a file that failed is asked for again by the query that needs it
  }

  /**
   * The bits files of the partitions no query has read yet, nearest the last query
   * first, as prefetch entries (a bits file costs its size: hosts send binary files as
   * they are); none in the exact layout or before the vectors are open.
   */
  async #unreadBits() {
    if (!this.built.has("vectors")) return NOTHING_TO_PREFETCH;
    const set = await this.#vectors();
    if (set.layout !== "partitioned") return NOTHING_TO_PREFETCH;
    const order = this.lastSignTables
      ? probedPartitions(set.centroidBits, set.sizes, this.lastSignTables, Infinity)
      : Array.from(set.sizes, (_, p) => p);
    return {
      entries: order.filter((p) => !this.pending.has(`bits:${p}`))
        .map((p) => ({ partition: p, bytes: set.bitsFiles[p].bytes })),
      read: (entries) => Promise.all(entries.map(({ partition }) => this.#partitionBits(set, partition)
        .catch(() => {}))), // asked for again by the query that needs it
      cost: (entry) => entry.bytes,
      batch: PREFETCH_BITS_BATCH,
    };
  }

  /**
   * The static encoder's word-piece shards no query has read yet, as prefetch entries: a
   * shard costs its listed bytes (stored deflated: what a host sends).
   */
  async #unreadPieces() {
    if (this.encoder.kind !== "static" || !this.catalog.encoders.static.pieces) return NOTHING_TO_PREFETCH;
    const pieces = await this.#wordPieces();
    const entries = await pieces.unread(); // reads the shard list `everyShard` is made from
    return {
      entries,
      read: (entries) => pieces.read(entries),
      cost: (entry) => entry.bytes,
      batch: PREFETCH_BATCH,
    };
  }

  /**
   * @param {string} query
   * @param {RankOptions} [options]
   */
  async #answer(query, { onPartial, ...options } = {}) {
    const { signal } = options;
    const final = this.#rank(query, options);
    if (!onPartial || !query.trim()) return final;
    final.catch(() => {}); // awaited below, where its error surfaces
    await abortable(this.#catalog(), signal);
    if ((options.mode ?? this.defaults.mode) === "lexical" || this.encoderReady()) return final;
    const keyword = this.#rank(query, { ...options, mode: "lexical" });
    const first = await Promise.race([
      keyword.then((answer) => ({ answer }), () => null), // the final search reports its errors
      final.then(() => null, () => null),
    ]);
    if (first && !signal?.aborted) onPartial(first.answer, { ranking: "keyword" });
    return final;
  }

  /**
   * The query as it is searched (`answer`'s `reading`).
   * @param {string} query
   * @param {{ typing?: boolean, onHeld?: () => void }} [options]
   */
  async read(query, { typing = false, onHeld } = {}) {
    await this.#catalog();
    return readQuery(query, {
      typing,
      onHeld,
      words: this.vocabulary,
      stopwords: this.lexical.stopwords,
      known: async (tokens) => {
        const terms = tokens.map((token) => analyze(token, this.lexical.stopwords));
        const held = await this.lexical.holds(terms.flat());
        let at = 0;
        return terms.map((ts) => held.slice(at, (at += ts.length)).every(Boolean));
      },
      modelWord: async (word) => (this.encoder.kind === "static" && this.catalog.encoders.static.pieces
        ? (await this.#wordPieces()).holds(word)
        : (await this.#modelWords()).has(word)),
    });
  }

  /**
   * The tokens of the query encoder's tokenizer (its `model.vocab`): read only when a
   * query has a word the site does not use and the vocabulary is not in shards.
   */
  #modelWords() {
    return this.#once("modelWords", async () => {
      const json = await this.store.json(this.catalog.encoders[this.encoder.kind].tokenizer);
      const vocab = json?.model?.vocab;
      if (Array.isArray(vocab)) return new Set(vocab.filter(Array.isArray).map((entry) => entry[0]));
      if (vocab && typeof vocab === "object") return new Set(Object.keys(vocab));
      throw new BundleError(`${this.catalog.encoders[this.encoder.kind].tokenizer.name} is not a tokenizer with a vocabulary: rebuild the site`);
    });
  }

  /**
   * The reference searcher's `search`: modes `hybrid` (default), `vector`, `lexical`,
   * filters, `minScore` and `topK`, ranked by the page-aware fusion of ranking.js.
   * Results carry `score` (the page's relevance, 0-1; `minScore` drops pages below it),
   * `sectionScore` (the section's relevance, which orders sections within a page),
   * `vectorScore` and `lexicalScore`. `signal`: an
   * AbortSignal; once aborted the search stops at its next step, rejecting with the
   * signal's reason (downloads it started go on, for the searches after it).
   * @param {string} query
   * @param {RankOptions} [options]
   */
  async #rank(query, { topK, filters, mode, minScore, signal, typing = false, asTyped = false } = {}) {
    if (!query.trim()) return { reading: { typed: query, text: query, changes: [] }, results: [] };
    await abortable(this.#catalog(), signal);
    const opened = this.open(); // the page table comes beside the query's first files
    opened.catch(() => {}); // awaited below, where its error surfaces
    mode ??= this.defaults.mode;
    if (!SEARCH_MODES.includes(mode)) {
      throw new Error(`unknown mode ${JSON.stringify(mode)}: use one of ${SEARCH_MODES.join(", ")}`);
    }
    topK ??= this.defaults.top_k;
    if (!(Number.isInteger(topK) && topK >= 1 && topK <= MAX_TOP_K)) {
      throw new Error(`topK must be between 1 and ${MAX_TOP_K}, got ${topK}`);
    }
    minScore ??= this.defaults.min_score;
    const filtered = Object.keys(filters ?? {}).length > 0;
    const facets = filtered ? await abortable(this.#facets(), signal) : null;
    const among = filtered && this.catalog.vectors[this.encoder.vectors].layout === "partitioned"
      ? filterPartitions(filters, facets.partitions ?? {}) : null;
    // The query as typed is scored while it is read: most queries are searched as typed,
    // and the shards its reading needs are those its keyword scores read anyway. A word
    // the site does not use may be corrected (or, while typing, completed), so what the
    // typed vector (which sums that word's pieces) picks, its candidates' row blocks and
    // their pages' fragments, waits for the reading to keep the typed query
    // (`keepsTyped`: every word held, or the reading done), as do the blocks that the
    // probe ahead (the words the site uses) picks, unless their bits were in hand (see
    // #probeAhead). The bits wait only when a probe lacks many on a set of more than two
    // probes' worth of chunks (#bitsWaitForReading): on a smaller one a corrected query
    // probes mostly the same partitions (holding them cost a step on a quarter of the
    // Python docs' slipped first queries). The keyword ranking's pages wait on such a set
    // only: a correction keeps the other words, whose pages served the corrected query
    // often enough that holding them everywhere cost a step on 13 of MkDocs' 30 slipped
    // first queries. A clean query's words are held (`onHeld`) once its keyword shards
    // are in, which come beside its word rows, so its pages wait for nothing more.
    // The fragments of the pages likely to be shown are asked for beside the candidates'
    // rows, not after the final ranking: the first pages of each signal. None of this
    // waits for the reading when the model embeds the query (below).
    // the filter, once the page table is open: a chunk passes when its page does
    const accepting = () => makeFilter(filters, {
      facets: facets?.pages ?? {}, pageOfChunk: this.pageOfChunk, allowed: this.defaults.filters,
    }) ?? (() => true);
    let keep;
    const keepsTyped = new Promise((resolve) => { keep = resolve; });
    // `readsHeadings`: `order` is the keyword order, whose first sections' headings step
    // 8 reads; their files (a long page's parts the guess leaves out) are asked for too.
    const guess = (order, go, readsHeadings = false) => Promise.all([opened, go]).then(([, wanted]) => {
      if (wanted === false || signal?.aborted) return;
      this.#fetchFragments(firstPages(order, this.pageOfChunk, this.guessedPages));
      if (readsHeadings) this.#fetchDescriptions(firstAccepted(order, accepting(), NAMED_HEADINGS));
    }).catch(() => {}); // a wrong filter fails the search below, not the guess
    const readingFirst = this.#readingFirst();
    const scored = (text, go = null) => Promise.all([
      mode === "lexical" ? null : this.#vectorScores(text, {
        among, signal, go, onCandidates: (ids) => guess(ids, go),
      }),
      mode === "vector" ? null : this.lexical.scores(text, { full: filtered, typed: query }).then((lexical) => {
        // every chunk with a keyword score, best first: the guess's and the ranking's order
        const order = chunkOrder(lexical.scores, (id) => lexical.scores[id] > 0);
        guess(order, readingFirst ? go : null, mode === "hybrid" && headingName(text) !== null);
        return { ...lexical, order };
      }),
    ]);
    // With the model in hand a query's vector costs no file: its candidates' rows and
    // pages come beside its keyword shards, not a step after them (a query the reading
    // corrects then has read the typed one's for nothing: a few kB, now and then).
    const asTypedScores = scored(query, this.encoder.kind === "static" ? keepsTyped : null);
    asTypedScores.catch(() => {}); // awaited below when the query is searched as typed
    const beingRead = asTyped ? Promise.resolve({ typed: query, text: query, changes: [] })
      : this.read(query, { typing, onHeld: () => keep(true) });
    beingRead.then((read) => keep(read.text === query), () => keep(false));
    const reading = await abortable(beingRead, signal);
    const [vector, lexical] = await abortable(
      reading.text === query ? asTypedScores : scored(reading.text), signal);
    await abortable(opened, signal);
    const accept = accepting();
    const vectorScores = vector?.scores ?? null;
    const lexicalScores = lexical?.scores ?? null;
    const signals = [];
    if (vector) {
      // the first VECTOR_CHUNKS of chunkOrder, without sorting every chunk
      const order = bestOf(vectorScores, VECTOR_CHUNKS, (id) => !Number.isNaN(vectorScores[id]) && accept(id));
      signals.push({ scores: vectorScores, order, floor: vector.floor });
    }
    const keywordOrder = lexical ? lexical.order.filter(accept) : [];
    if (lexical) {
      signals.push({
        scores: lexicalScores,
        order: keywordOrder,
        floor: 0,
        ceiling: lexical.possible,
        weight: keywordWeight(reading.text),
      });
    }
    // A name the keyword order's first sections write in their heading goes first
    // (step 8): their headings come with their pages' fragments, which the guess above
    // asked for beside the candidates' rows.
    const name = mode === "hybrid" && lexical ? headingName(reading.text) : null;
    let named = [];
    if (name !== null) {
      const first = keywordOrder.slice(0, NAMED_HEADINGS);
      const shown = await abortable(this.describe(first), signal);
      named = namedSections(first, shown.map((s) => sectionHeading(s.title, s.path)), name);
    }
    const fused = fuse(signals, {
      pageOfChunk: this.pageOfChunk, sections: this.sections, priors: this.priors,
      boosts: this.catalog.boosts, topK, minScore, named,
    });
    const described = await abortable(this.describe(fused.map((r) => r.chunk)), signal);
    const results = fused.map(({ chunk, pageScore, sectionScore }, i) => ({
      ...described[i],
      score: pageScore,
      sectionScore,
      vectorScore: vectorScores && !Number.isNaN(vectorScores[chunk]) ? vectorScores[chunk] : null,
      lexicalScore: lexicalScores ? lexicalScores[chunk] / this.lexical.scale : null,
    }));
    return { reading, results };
  }

  /** The reference searcher's `search_vector`: plain exact top-k, ties by chunk number. */
  async searchVector(query, { topK: k = 10 } = {}) {
    await this.open();
    if (!(Number.isInteger(k) && k >= 1)) throw new Error(`topK must be at least 1, got ${k}`);
    const scores = (await this.#vectorScores(query))?.scores;
    if (!scores) return [];
    const ids = bestOf(scores, k, (id) => !Number.isNaN(scores[id]));
    const described = await this.describe(ids);
    return ids.map((id, i) => ({ ...described[i], score: scores[id] }));
  }

  /**
   * Asks for the fragments files of `pages` that fit the guess's budget
   * (askGuessedFragments): each page's file, or every part of a long page.
   */
  #fetchFragments(pages) {
    return askGuessedFragments(pages, {
      find: (page) => Promise.all(this.excerpts.locations(page).map((at) => this.excerpts.entry(at))),
      asked: (name) => this.store.has(name),
      ask: (entry) => this.store.json(entry).catch(() => {}),
      cost: (page) => this.starts[page + 1] - this.starts[page],
    });
  }

  /** Asks for the files that describe chunks `ids` (describe's), errors left for describe. */
  #fetchDescriptions(ids) {
    for (const id of ids) {
      this.excerpts.entry(this.excerpts.of(id, this.pageOfChunk[id]))
        .then((entry) => entry && this.store.json(entry)).catch(() => {});
    }
  }

  /** What results show of chunks: url, anchor, title, path, section, excerpt, kind. */
  async describe(ids) {
    const files = ids.map((id) => this.excerpts.of(id, this.pageOfChunk[id]));
    const shards = await Promise.all(files.map((at) => this.excerpts.entry(at)));
    return Promise.all(ids.map(async (id, i) => {
      const page = this.pageOfChunk[id];
      const [shard, { from, count }] = [shards[i], files[i]];
      const entry = shard ? (await this.store.json(shard))[0] : undefined;
      const rows = Array.isArray(entry) && entry.length === 4 ? entry[3] : null;
      const row = rows?.[id - from];
      if (!Array.isArray(row) || rows.length !== count || row.length !== 4) {
        throw new BundleError(`${shard?.name ?? "the fragments"} does not describe page ${page}'s chunks: rebuild the site`);
      }
      const [url, title, section] = entry;
      const [anchor, path, excerpt, kind] = row;
      return { id, url, anchor, title, path, section, excerpt: excerptText(excerpt),
        excerptParts: excerptParts(excerpt), kind: kind === "p" ? "page" : "section" };
    }));
  }

  destroy() {
    this.pending.get("transformer")?.then((embedder) => embedder.release(), () => {});
  }
}

/** Whether URLs `a` and `b` are in the same folder. */
function sameFolder(a, b) {
  return new URL(".", a).href === new URL(".", b).href;
}

/** The first `count` chunks of `order` that `accept` passes. */
function firstAccepted(order, accept, count) {
  const out = [];
  for (const id of order) {
    if (out.length === count) break;
    if (accept(id)) out.push(id);
  }
  return out;
}

/**
 * `promise`, or a rejection with `signal`'s reason as soon as it is aborted (what the
 * promise was waiting for goes on, and is kept for later searches).
 */
function abortable(promise, signal) {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/**
 * The partitions holding a chunk that passes `filters` (Searcher.filter_partitions):
 * those the facets payload lists for one of a key's values, under every key.
 */
function filterPartitions(filters, listed) {
  let picked = null;
  for (const [key, values] of Object.entries(filters)) {
    const held = listedFor(listed, key, values);
    picked = picked === null ? held : new Set([...picked].filter((p) => held.has(p)));
  }
  return [...(picked ?? [])].sort((a, b) => a - b);
}

/**
 * The reference searcher's filters: `{key: [values]}`, each key one of the bundle's
 * filter keys (`section`, `tags`, configured facets); a chunk passes when its page has
 * one of the values for every key. Pages come from the facets payload.
 */
export function makeFilter(filters, { facets, pageOfChunk, allowed }) {
  const entries = Object.entries(filters ?? {});
  if (!entries.length) return undefined;
  const wanted = entries.map(([key, values]) => {
    if (!allowed.includes(key)) {
      throw new Error(`unknown filter ${JSON.stringify(key)}: this bundle has ${allowed.join(", ")}`);
    }
    return listedFor(facets, key, values);
  });
  return (id) => wanted.every((pages) => pages.has(pageOfChunk[id]));
}

/** The numbers a facets map (`{key: {value: [numbers]}}`) lists for any of `values`. */
function listedFor(listed, key, values) {
  const held = new Set();
  const byValue = Object.hasOwn(listed, key) ? listed[key] : {};
  for (const value of [values].flat()) {
    if (Object.hasOwn(byValue, value)) for (const n of byValue[value]) held.add(n);
  }
  return held;
}

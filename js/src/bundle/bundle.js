// Reading a search bundle written by mkdocs_semantic/bundle/writer.py (format 11): checks of the
// manifest, the catalog and shard list directories, payload names and URLs, and hashes.
// The binary payloads are binary.js's. Pure functions over parsed JSON and ArrayBuffers,
// so they run in workers and in node tests.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { hex, pageTableBytes, partitionIndexBytes } from "./binary.js";
import { BundleError } from "./error.js";

// The format's constants, written once for Python and this client in constants.json.
// SEARCH_MODES: the ranking modes; MAX_TOP_K: the most results a search may ask for.
export const { FORMAT_VERSION, SCALAR_BYTES, QUERY_ENCODERS, SEARCH_MODES, MAX_TOP_K, MAX_QUERY_CHARS } = constants;
const {
  LEXICAL_VERSION, VOCABULARY_VERSION, PIECES_VERSION, BROWSER_MODEL_VERSION, MAX_PIECE_FILE_BYTES, MAX_KEYED_SHARD_BYTES,
  MAX_DIM, MAX_MODEL_TOKENS, HASH_CHARS, SHARD_HASH_CHARS, ROW_CHECK_BYTES, MAX_CATALOG_COPY_BYTES,
} = constants;

// mkdocs_semantic/bundle/names.py NAME: no "..", no absolute path, no other folders.
const PAYLOAD_NAME = /^(?:[a-z]+\/)?[a-z]+\.([0-9a-f]{16})\.[a-z0-9]+$/;
const CATALOG_NAME = /^catalog\.[0-9a-f]{16}\.json$/;
// names.py ROW_NAME: a query table row, named by its token id and the table's hash.
const ROW_NAME = /^table\/row(0|[1-9][0-9]{0,9})\.([0-9a-f]{16})\.bin$/;
// names.py PIECE_NAME: a keyed word piece file, named by its key and the hash of them all.
const PIECE_NAME = /^pieces\/(s[0-9a-z]|c[0-9a-z]|p)\.([0-9a-f]{16})\.json$/;
// names.py SHARD_NAME: a shard of a shard list (or a directory of them), named by its
// number and its own hash.
const SHARD_STEMS = ["fragments/frag", "text/text", "lexical/lex", "vocabulary/words", "vocabulary/spell", "pieces/piece", "words/word", "parts/part"];
const SHARD_NAME = new RegExp(`^(${[...SHARD_STEMS, ...SHARD_STEMS.map((s) => directoryStem(s))].join("|")})(0|[1-9][0-9]{0,9})\\.([0-9a-f]{${SHARD_HASH_CHARS}})\\.json$`);
/** The stem of a shard list's directories: `index/` and the last part of its stem. */
function directoryStem(stem) {
  return `index/${stem.slice(stem.lastIndexOf("/") + 1)}`;
}
// names.py VECTOR_ROWS_NAME: a vector partition's rows file, named by its block number and
// the hash of the partition's rows.
const VECTOR_ROWS_NAME = /^vectors\/row(0|[1-9][0-9]{0,9})\.([0-9a-f]{16})\.i8$/;
// names.py VECTOR_PACK_NAME: a vector partition's pack of its rows files, named by the
// hash of the partition's rows.
const VECTOR_PACK_NAME = /^vectors\/rows\.([0-9a-f]{16})\.i8$/;
const TABLE_HASH = /^[0-9a-f]{16}$/;
// A keyed list's shard (the keyword index's, a page's fragments, a long page's part, the
// word rows): named by its number and its own hash.
const KEYED_SHARD_NAME = new RegExp(`^(lexical/lex|fragments/frag|parts/part|words/word)(0|[1-9][0-9]{0,9})\\.([0-9a-f]{${SHARD_HASH_CHARS}})\\.json$`);
// A shard list's hashes: each shard's own, SHARD_HASH_CHARS hex digits each, in one string.
const SHARD_HASHES = /^[0-9a-f]*$/;
const MAX_SHARDS = 10 ** 10; // more shards than a name's number may count
/** The keyword index's keyed list: the stem of its shards' names. */
export const LEXICAL_STEM = "lexical/lex";
/** The word rows' keyed list (mkdocs_semantic/bundle/word_rows.py): the stem of its shards' names. */
export const WORDS_STEM = "words/word";

/** Shard `n`'s name in the shard list of stem `stem` whose shards' hashes are `hashes`. */
export function keyedShardName(stem, n, hashes) {
  return shardName(stem, n, hashAt(hashes, n));
}
/** mkdocs_semantic/bundle/shard_lists.py shard_name: shard `n` of `stem`, of hash `hash`. */
function shardName(stem, n, hash) {
  return `${stem}${n}.${hash}.json`;
}
/** shard_lists.py hash_at: the `i`th hash of a list's `hashes`. */
function hashAt(hashes, i) {
  return hashes.slice(i * SHARD_HASH_CHARS, (i + 1) * SHARD_HASH_CHARS);
}
const selfChecked = (name) => [ROW_NAME, PIECE_NAME, SHARD_NAME, VECTOR_ROWS_NAME, VECTOR_PACK_NAME].some((pattern) => pattern.test(name));

/** Type and range checks of untrusted JSON; every failure names the file and the field. */
class Checker {
  constructor(source) {
    this.source = source;
  }

  fail(problem) {
    throw new BundleError(`${this.source}: ${problem}: rebuild the site`);
  }

  get(data, key, where) {
    if (!isObject(data) || !(key in data)) this.fail(`${at(where, key)} is missing`);
    return data[key];
  }

  object(data, key, where) {
    const value = this.get(data, key, where);
    if (!isObject(value)) this.fail(`${at(where, key)} must be an object`);
    return value;
  }

  list(data, key, where) {
    const value = this.get(data, key, where);
    if (!Array.isArray(value)) this.fail(`${at(where, key)} must be a list`);
    return value;
  }

  string(data, key, where) {
    const value = this.get(data, key, where);
    if (typeof value !== "string") this.fail(`${at(where, key)} must be a string`);
    return value;
  }

  int(data, key, where, lo = 0, hi = Number.MAX_SAFE_INTEGER) {
    const value = this.get(data, key, where);
    if (!isInt(value) || value < lo || value > hi) {
      this.fail(`${at(where, key)} is ${show(value)}, not a whole number from ${lo} to ${hi}`);
    }
    return value;
  }

  number(data, key, where, { lo = -Infinity, hi = Infinity, positive = false } = {}) {
    const value = this.get(data, key, where);
    if (typeof value !== "number" || !Number.isFinite(value) || value < lo || value > hi ||
        (positive && !(value > 0))) {
      this.fail(`${at(where, key)} is ${show(value)}, not ${positive ? "a positive number" : `a number from ${lo} to ${hi}`}`);
    }
    return value;
  }

  hex(data, key, where, length) {
    const value = this.string(data, key, where);
    if (!new RegExp(`^[0-9a-f]{${length}}$`).test(value)) this.fail(`${at(where, key)} is not ${length} hex digits`);
    return value;
  }

  name(value, where) {
    if (typeof value !== "string" || !PAYLOAD_NAME.test(value)) {
      this.fail(`${where} lists ${show(value)}, which is not a payload name of this format`);
    }
    return value;
  }

  /** `[name, bytes]` of one payload. */
  file(data, key, where) {
    const entry = this.list(data, key, where);
    if (entry.length !== 2 || !isInt(entry[1]) || entry[1] < 0) this.fail(`${at(where, key)} must be [name, bytes]`);
    this.name(entry[0], at(where, key));
    return { name: entry[0], bytes: entry[1] };
  }

  /** A shard list `[[first key, name, bytes], ...]`, first keys ascending. */
  shards(data, key, where, firstType) {
    return this.entries(this.list(data, key, where), at(where, key), firstType);
  }

  /**
   * A catalog shard list (mkdocs_semantic/bundle/shard_lists.py): `{stem, first, bytes,
   * hashes}`, or `{stem, dirs: {first, bytes, hashes}}` for one in directories. Returns
   * `{entries}` or `{dirs}`, each a list of `{first, name, bytes}`, the names made from
   * the stem, the number and the shard's own hash.
   */
  shardList(data, key, where, firstType, stem) {
    const value = this.get(data, key, where);
    const field = at(where, key);
    const keys = isObject(value) ? Object.keys(value).sort().join() : "";
    if (keys !== "bytes,first,hashes,stem" && keys !== "dirs,stem") this.fail(`${field} must be {stem, first, bytes, hashes} or {stem, dirs}`);
    if (value.stem !== stem) this.fail(`${field} has the stem ${show(value.stem).slice(0, 40)}, not "${stem}"`);
    if ("dirs" in value) {
      const dirs = this.runs(value.dirs, field, firstType, directoryStem(stem), 0);
      if (!dirs.length) this.fail(`${field} has no directories`);
      return { dirs };
    }
    return { entries: this.runs(value, field, firstType, stem, 0) };
  }

  /**
   * A keyed shard list (shard_lists.py write_keyed_list): `{stem, count, hashes, sizes}`,
   * shard `n` named `<stem><n>.<its hash>.json` and holding the keys whose bucketOf is `n`
   * (`by` "hash"), or page `n` (`by` "page"). Returns `{keyed: {stem, hashes, count, by}}`;
   * `sizes` (a payload only whole-bundle readers read) is checked as a name. A packed
   * one (write_packed_list), `{stem, count, hashes, pack, bytes}`, keeps its shards as the
   * records of one file: `keyed` then holds `pack` (`{name, bytes}`), and `sizes` and
   * `offsets`, each shard's.
   */
  keyedList(data, key, where, stem, by) {
    const value = this.get(data, key, where);
    const field = at(where, key);
    const keys = isObject(value) ? Object.keys(value).sort().join() : "";
    const packed = keys === "bytes,count,hashes,pack,stem";
    if (keys !== "count,hashes,sizes,stem" && !packed) this.fail(`${field} must be a keyed list {stem, count, hashes, sizes}`);
    if (value.stem !== stem) this.fail(`${field} has the stem ${show(value.stem).slice(0, 40)}, not "${stem}"`);
    const count = this.int(value, "count", field, by === "hash" ? 1 : 0, MAX_SHARDS);
    const hashes = this.hashes(value.hashes, count, field);
    if (packed) {
      const pack = this.file(value, "pack", field);
      if (!new RegExp(`^${stem}s\\.[0-9a-f]{${HASH_CHARS}}\\.bin$`).test(pack.name)) this.fail(`${field}.pack must be ${stem}s.<hash>.bin`);
      const sizes = value.bytes;
      const offsets = [];
      let total = 0;
      if (Array.isArray(sizes) && sizes.length === count) {
        for (const size of sizes) {
          if (!isInt(size) || size < 1 || size > MAX_KEYED_SHARD_BYTES) break;
          offsets.push(total);
          total += size;
        }
      }
      if (offsets.length !== count || total !== pack.bytes) this.fail(`${field} must list the sizes of its ${count} shards, which make its file`);
      return { keyed: { stem, hashes, count, by, pack, sizes, offsets } };
    }
    const folder = stem.split("/")[0];
    if (!new RegExp(`^${folder}/sizes\\.[0-9a-f]{${HASH_CHARS}}\\.json$`).test(this.file(value, "sizes", field).name)) {
      this.fail(`${field}.sizes must be ${folder}/sizes.<hash>.json`);
    }
    return { keyed: { stem, hashes, count, by } };
  }

  /** `hashes` if it is `count` shards' hashes, as one string. */
  hashes(hashes, count, where) {
    if (typeof hashes !== "string" || hashes.length !== count * SHARD_HASH_CHARS || !SHARD_HASHES.test(hashes)) {
      this.fail(`${where} must list the hashes of its ${count} shards, ${SHARD_HASH_CHARS} hex digits each`);
    }
    return hashes;
  }

  /** `{first, bytes, hashes}` as entries `{first, name, bytes}`, named `stem` from number `from`. */
  runs(value, where, firstType, stem, from) {
    const firsts = isObject(value) ? value.first : undefined;
    const sizes = isObject(value) ? value.bytes : undefined;
    if (!Array.isArray(firsts) || !Array.isArray(sizes) || firsts.length !== sizes.length) {
      this.fail(`${where} must hold lists first and bytes of one length`);
    }
    if (from + firsts.length > MAX_SHARDS) this.fail(`${where} numbers shards past ${MAX_SHARDS}`);
    const hashes = this.hashes(value.hashes, firsts.length, where);
    const kind = firstType === "int" ? "an integer" : "a string";
    return firsts.map((first, i) => {
      if (!(firstType === "int" ? isInt(first) : typeof first === "string")) this.fail(`${where} has a first key ${show(first).slice(0, 40)} that is not ${kind}`);
      if (!isInt(sizes[i]) || sizes[i] < 0) this.fail(`${where} has a size ${show(sizes[i]).slice(0, 40)} that is not a count of bytes`);
      if (i && !(compareKeys(firsts[i - 1], first) < 0)) this.fail(`${where} is not in ascending order`);
      return { first, name: shardName(stem, from + i, hashAt(hashes, i)), bytes: sizes[i] };
    });
  }

  /** `rows` as a shard list `[[first key, name, bytes], ...]`, keys ascending. */
  entries(rows, where, firstType) {
    const out = [];
    for (const row of rows) {
      const ok = Array.isArray(row) && row.length === 3 && isInt(row[2]) && row[2] >= 0 &&
        (firstType === "int" ? isInt(row[0]) : typeof row[0] === "string");
      if (!ok) this.fail(`${where} has a malformed entry ${show(row).slice(0, 80)}`);
      this.name(row[1], where);
      if (out.length && !(compareKeys(out[out.length - 1].first, row[0]) < 0)) {
        this.fail(`${where} is not in ascending order`);
      }
      out.push({ first: row[0], name: row[1], bytes: row[2] });
    }
    return out;
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isInt = (v) => Number.isSafeInteger(v);
const at = (where, key) => (where ? `${where}.${key}` : key);
const BITS_NAME = /^vectors\/bin\.[0-9a-f]{16}\.bin$/; // a partition's bits file
const show = (v) => {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

/**
 * Compares shard keys as Python sorts them: numbers by value, strings by code point
 * (JavaScript's `<` compares UTF-16 units, which differs above U+FFFF).
 */
export function compareKeys(a, b) {
  if (typeof a === "number") return a - b;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (U+D800-DFFF) stands for a code point above every BMP character.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Index of the shard that holds `key` (the last whose first key <= key), or -1. */
export function shardOf(shards, key) {
  let lo = 0;
  let hi = shards.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (compareKeys(shards[mid].first, key) <= 0) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/** A checked manifest.json: refuses any format but this one, naming both versions. */
export function checkManifest(data, source) {
  const format = isObject(data) ? data.format : undefined;
  if (format !== FORMAT_VERSION) {
    throw new BundleError(
      `${source} is bundle format ${show(format)}, but this search client reads format ` +
        `${FORMAT_VERSION}: rebuild the site with the same mkdocs-semantic-search version`,
    );
  }
  const check = new Checker(source);
  const catalog = check.object(data, "catalog");
  const name = check.string(catalog, "name", "catalog");
  if (!CATALOG_NAME.test(name)) check.fail(`catalog.name ${show(name)} is not a catalog file name`);
  const counts = check.object(data, "counts");
  const search = check.object(data, "search");
  const mode = check.string(search, "mode", "search");
  if (!SEARCH_MODES.includes(mode)) check.fail(`search.mode ${show(mode)} is not one of ${SEARCH_MODES.join(", ")}`);
  const minScore = search.min_score ?? null;
  if (minScore !== null) check.number(search, "min_score", "search", { lo: -1, hi: 1 });
  const filters = check.list(search, "filters", "search");
  if (!filters.every((f) => typeof f === "string")) check.fail("search.filters must be a list of strings");
  const encoder = check.string(data, "query_encoder");
  if (!QUERY_ENCODERS.includes(encoder)) check.fail(`query_encoder ${show(encoder)} is not one of ${QUERY_ENCODERS.join(", ")}`);
  const idle = data.idle_encoder ?? null;
  if (idle !== null && (!QUERY_ENCODERS.includes(idle) || idle === encoder)) {
    check.fail(`idle_encoder ${show(idle)} is not an encoder other than the query_encoder`);
  }
  return {
    format,
    generator: check.string(data, "generator"),
    // no catalog is larger than its copy may be: refused before a byte of it is fetched
    catalog: { name, bytes: check.int(catalog, "bytes", "catalog", 0, MAX_CATALOG_COPY_BYTES), sha256: check.hex(catalog, "sha256", "catalog", 64) },
    counts: { pages: check.int(counts, "pages", "counts"), chunks: check.int(counts, "chunks", "counts") },
    search: {
      mode,
      top_k: check.int(search, "top_k", "search", 1, MAX_TOP_K),
      min_score: minScore,
      filters: [...filters],
    },
    query_encoder: encoder,
    idle_encoder: idle,
  };
}

/**
 * The catalog's fields this client reads, checked once so that the engine can trust
 * them; returns them in a convenient shape (shard lists as `{first, name, bytes}`).
 */
export function checkCatalog(data, manifest, source) {
  const check = new Checker(source);
  if (!isObject(data)) check.fail("the catalog must be an object");
  const { pages, chunks } = manifest.counts;
  const model = check.object(data, "model");
  check.string(model, "id", "model");
  const dim = check.int(model, "dim", "model", 1, MAX_DIM);
  const maxTokens = check.int(model, "max_tokens", "model", 16, MAX_MODEL_TOKENS);
  const pooling = check.string(model, "pooling", "model");
  if (pooling !== "mean" && pooling !== "cls") check.fail("model.pooling must be mean or cls");
  if (typeof model.normalize !== "boolean") check.fail("model.normalize must be true or false");
  const queryPrefix = check.string(model, "query_prefix", "model");

  const pageInfo = check.object(data, "pages");
  if (check.int(pageInfo, "count", "pages") !== pages) check.fail("pages.count is not the manifest's page count");
  const boosts = new Float64Array(pages).fill(1);
  for (const [key, boost] of Object.entries(check.object(pageInfo, "boosts", "pages"))) {
    if (!/^\d+$/.test(key) || Number(key) >= pages || typeof boost !== "number" ||
        !Number.isFinite(boost) || !(boost > 0)) {
      check.fail(`pages.boosts has a bad entry ${show(key)}: ${show(boost)}`);
    }
    boosts[Number(key)] = boost;
  }
  const pageTable = check.file(pageInfo, "table", "pages");
  if (pageTable.bytes !== pageTableBytes(pages, chunks)) check.fail(`pages.table must be [name, bytes] of ${pageTableBytes(pages, chunks)} bytes`);
  const facets = check.file(data, "facets", "");

  const fragments = check.keyedList(data, "fragments", "", "fragments/frag", "page");
  if (fragments.keyed.count !== pages) check.fail("fragments does not hold one shard a page");
  // long pages' excerpts in parts (mkdocs_semantic/bundle/fragment_parts.py), if any
  let fragmentParts = null;
  if (data.fragment_parts !== undefined) {
    const parts = check.object(data, "fragment_parts");
    fragmentParts = {
      chunks: check.int(parts, "chunks", "fragment_parts", 1),
      parts: check.keyedList(parts, "parts", "fragment_parts", "parts/part", "page"),
    };
  }

  const lex = check.object(data, "lexical");
  if (check.int(lex, "version", "lexical") !== LEXICAL_VERSION) check.fail(`lexical.version is not ${LEXICAL_VERSION}`);
  const lexical = {
    scale: check.number(lex, "scale", "lexical", { positive: true }),
    count: check.int(lex, "count", "lexical"),
    stopwords: check.list(lex, "stopwords", "lexical"),
    head: check.int(lex, "head", "lexical", 1),
    shards: check.keyedList(lex, "shards", "lexical", LEXICAL_STEM, "hash"),
  };
  if (lexical.count !== chunks) check.fail("lexical.count is not the chunk count");
  if (!lexical.stopwords.every((w) => typeof w === "string")) check.fail("lexical.stopwords must be strings");

  let vocabulary = null;
  if (Object.hasOwn(data, "vocabulary")) {
    const words = check.object(data, "vocabulary");
    if (check.int(words, "version", "vocabulary") !== VOCABULARY_VERSION) check.fail(`vocabulary.version is not ${VOCABULARY_VERSION}`);
    vocabulary = {
      shards: check.shardList(words, "shards", "vocabulary", "string", "vocabulary/words"),
      spelling: check.shardList(words, "spelling", "vocabulary", "string", "vocabulary/spell"),
    };
  }

  const sets = check.list(data, "vectors");
  if (!sets.length) check.fail("vectors lists no vector set");
  const vectors = sets.map((set, i) => {
    const where = `vectors[${i}]`;
    const dtype = check.string(set, "dtype", where);
    if (!(dtype in SCALAR_BYTES)) check.fail(`${where}.dtype must be one of ${Object.keys(SCALAR_BYTES).join(", ")}`);
    const out = {
      dtype,
      scale: check.number(set, "scale", where, { positive: true }),
      dim: check.int(set, "dim", where, 1, MAX_DIM),
    };
    out.sum = checkColumnSums(check, set, where, { dtype, dim: out.dim, chunks });
    if (check.string(set, "metric", where) !== "ip") check.fail(`${where}.metric is not ip, the only one this version reads`);
    const layout = check.string(set, "layout", where);
    if (layout === "partitioned") return { ...out, ...checkPartitioned(check, set, where, { dim: out.dim, chunks }) };
    if (layout !== "exact") {
      check.fail(`${where}.layout ${show(layout)} is not exact or partitioned, the layouts this version reads`);
    }
    out.layout = "exact";
    out.parts = check.shards(set, "parts", where, "int");
    if (pages && (!out.parts.length || out.parts[0].first !== 0 || out.parts[out.parts.length - 1].first >= pages)) {
      check.fail(`${where}.parts does not cover every page`);
    }
    return out;
  });

  const encoders = check.object(data, "encoders");
  for (const key of ["query_encoder", "idle_encoder"]) {
    const kind = manifest[key];
    if (kind !== null && kind !== undefined && !Object.hasOwn(encoders, kind)) {
      check.fail(`the manifest's ${key} ${show(kind)} is not in the catalog`);
    }
  }
  const checked = {};
  for (const [kind, encoder] of Object.entries(encoders)) {
    const where = `encoders.${kind}`;
    if (!QUERY_ENCODERS.includes(kind)) check.fail(`${where} is an encoder this version does not know`);
    const out = {
      vectors: check.int(encoder, "vectors", where, 0, sets.length - 1),
      tokenizer: check.file(encoder, "tokenizer", where),
    };
    if (kind === "transformer") {
      if (Object.hasOwn(encoder, "weights")) out.weights = checkWeights(check, encoder, where);
      if (!out.weights || Object.hasOwn(encoder, "model")) out.model = check.file(encoder, "model", where);
    }
    if (kind === "static") {
      out.maxTokens = check.int(encoder, "max_tokens", where, 1, MAX_MODEL_TOKENS);
      if (check.string(encoder, "dtype", where) !== "i8") check.fail(`${where}.dtype must be i8`);
      out.scale = check.number(encoder, "scale", where, { positive: true });
      out.dim = check.int(encoder, "dim", where, 1, MAX_DIM);
      if (out.dim !== vectors[out.vectors].dim) check.fail(`${where}.dim differs from its vector set's`);
      out.rows = checkRows(check, encoder, where, out.dim);
      if (Object.hasOwn(encoder, "pieces")) out.pieces = checkPieces(check, encoder, where);
      if (Object.hasOwn(encoder, "words")) {
        if (!out.pieces) check.fail(`${where}.words needs the word pieces (pieces)`);
        out.words = check.keyedList(encoder, "words", where, WORDS_STEM, "hash");
      }
    }
    checked[kind] = out;
  }
  return {
    model: { dim, maxTokens, pooling, normalize: model.normalize, queryPrefix },
    pageTable,
    boosts,
    facets,
    fragments,
    fragmentParts,
    lexical,
    vocabulary,
    vectors,
    encoders: checked,
  };
}

/**
 * `encoders.static.rows` (mkdocs_semantic/bundle/table.py): the table's hash, its token
 * ids as gaps and the pack of its rows (a checked record of `dim` values per id); returns
 * `{table, ids, pack}`, the ids ascending in a Uint32Array.
 */
function checkRows(check, encoder, where, dim) {
  const rows = check.object(encoder, "rows", where);
  if (typeof rows.table !== "string" || !TABLE_HASH.test(rows.table)) {
    check.fail(`${where}.rows.table must be ${HASH_CHARS} hex digits`);
  }
  const gaps = rows.ids;
  if (!Array.isArray(gaps)) check.fail(`${where}.rows.ids must be a list`);
  const ids = new Uint32Array(gaps.length);
  let id = 0;
  gaps.forEach((gap, i) => {
    id += gap;
    if (!Number.isSafeInteger(gap) || gap < (i ? 1 : 0) || id >= 2 ** 32) {
      check.fail(`${where}.rows.ids must list ascending token ids as gaps`);
    }
    ids[i] = id;
  });
  const pack = check.file(rows, "pack", `${where}.rows`);
  if (!pack.name.startsWith("table/") || pack.bytes !== ids.length * (dim + ROW_CHECK_BYTES)) {
    check.fail(`${where}.rows.pack must be the table's pack of ${ids.length} records`);
  }
  return { table: rows.table, ids, pack };
}

/**
 * Token `token`'s row, a record of the table's pack: `{name, bytes, pack, offset}`, `name`
 * the row's own (its record is checked under it); null when the table has no row for it.
 */
export function rowFile(token, rows, dim) {
  let low = 0;
  let high = rows.ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (rows.ids[middle] < token) low = middle + 1;
    else high = middle;
  }
  if (rows.ids[low] !== token) return null;
  const bytes = dim + ROW_CHECK_BYTES;
  return { name: `table/row${token}.${rows.table}.bin`, bytes, pack: rows.pack, offset: low * bytes };
}

/** The browser model's files (mkdocs_semantic/bundle/browser_model.py). */
function checkWeights(check, encoder, where) {
  const weights = check.object(encoder, "weights", where);
  const at = `${where}.weights`;
  if (check.int(weights, "version", at) !== BROWSER_MODEL_VERSION) {
    check.fail(`${at}.version is not ${BROWSER_MODEL_VERSION}: rebuild the site, or update the client`);
  }
  const blocks = check.list(weights, "words", at);
  let last = -1;
  const words = blocks.map((block, i) => {
    if (!Array.isArray(block) || block.length !== 2 || !Number.isInteger(block[0]) || block[0] <= last) {
      check.fail(`${at}.words is not a list of [first id, file] in order`);
    }
    last = block[0];
    return check.file({ file: block[1] }, "file", `${at}.words[${i}]`);
  });
  if (!words.length) check.fail(`${at}.words is empty`);
  return { layers: check.file(weights, "layers", at), words };
}

/**
 * `encoders.static.pieces` (mkdocs_semantic/bundle/wordpieces.py): the tokenizer's
 * settings, the hash that names the keyed files (keys of PIECE_KEY_CHARS: a piece's first
 * two characters, a continuation piece's `##` and its first), and the shard list of
 * every key's pieces.
 */
function checkPieces(check, encoder, where) {
  const pieces = check.object(encoder, "pieces", where);
  if (check.int(pieces, "version", `${where}.pieces`) !== PIECES_VERSION) {
    check.fail(`${where}.pieces.version is not ${PIECES_VERSION}`);
  }
  const config = check.object(pieces, "config", `${where}.pieces`);
  const model = check.object(config, "model", `${where}.pieces.config`);
  if (model.type !== "WordPiece") check.fail(`${where}.pieces.config.model is not a WordPiece model`);
  if (!Array.isArray(config.added_tokens ?? [])) check.fail(`${where}.pieces.config.added_tokens must be a list`);
  const keyed = check.object(pieces, "keyed", `${where}.pieces`);
  const hash = check.string(keyed, "hash", `${where}.pieces.keyed`);
  if (!TABLE_HASH.test(hash)) check.fail(`${where}.pieces.keyed.hash is not ${HASH_CHARS} hex digits`);
  const shards = check.shardList(pieces, "shards", `${where}.pieces`, "string", "pieces/piece");
  return { config, keyed: hash, shards };
}

/**
 * The exact layout's parts with their rows (`rows`, `firstChunk`), now that the page
 * table gives each page's chunks; refuses a part whose size does not fit them.
 */
export function exactParts(set, starts, source) {
  const pages = starts.length - 1;
  return set.parts.map((part, p) => {
    const end = p + 1 < set.parts.length ? set.parts[p + 1].first : pages;
    const rows = starts[end] - starts[part.first];
    if (!(rows >= 0) || part.bytes !== rows * set.dim * SCALAR_BYTES[set.dtype]) {
      new Checker(source).fail(`${part.name} should hold ${rows} vectors of ${set.dim} ${set.dtype}`);
    }
    return { ...part, firstChunk: starts[part.first], rows };
  });
}

/**
 * The entries `{first, name, bytes}` of shard list directory `name` (its parsed JSON
 * `data`, `{at, first, bytes}`: `at` the number of its first shard).
 */
export function checkDirectory(data, name) {
  const check = new Checker(name);
  const match = SHARD_NAME.exec(name);
  const stem = match?.[1].startsWith("index/") ? SHARD_STEMS.find((s) => directoryStem(s) === match[1]) : null;
  if (!stem) check.fail("it is not a directory's name");
  if (!isObject(data) || !isInt(data.at) || data.at < 0 || !Array.isArray(data.first) || !data.first.length) {
    check.fail("it is not a shard list directory");
  }
  return check.runs(data, "the directory", typeof data.first[0] === "number" ? "int" : "string", stem, data.at);
}


/**
 * A word piece shard (mkdocs_semantic/bundle/wordpieces.py checked_piece_shard): `{pieces,
 * ids}`, the ids as the first then the gaps; returns `{piece: id}`.
 */
export function checkPieceShard(data, source) {
  const check = new Checker(source);
  const pieces = isObject(data) && data.pieces;
  const gaps = isObject(data) && data.ids;
  const ok = Array.isArray(pieces) && Array.isArray(gaps) && pieces.length === gaps.length &&
    pieces.every((p) => typeof p === "string" && p) &&
    gaps.every((g, i) => isInt(g) && (i ? g > 0 : g >= 0));
  if (!ok) check.fail("it does not list word pieces with ascending ids");
  const vocab = Object.create(null);
  let id = 0;
  pieces.forEach((piece, i) => {
    id += gaps[i];
    vocab[piece] = id;
  });
  return vocab;
}

/**
 * `sum`: each dimension's sum over the stored rows (bundle_format._check_column_sums):
 * whole numbers within chunks * 128 for int8, finite numbers otherwise.
 */
function checkColumnSums(check, set, where, { dtype, dim, chunks }) {
  const sums = check.list(set, "sum", where);
  const whole = dtype === "i8";
  const limit = 128 * chunks;
  const ok = sums.length === dim && sums.every((x) => (whole
    ? isInt(x) && Math.abs(x) <= limit
    : typeof x === "number" && Number.isFinite(x)));
  if (!ok) check.fail(`${where}.sum must list ${dim} ${whole ? `whole numbers within ${limit}` : "finite numbers"}, one per dimension`);
  return Float64Array.from(sums);
}

/**
 * A partitioned vector set (mkdocs_semantic/bundle/format.py _check_partitioned): int8,
 * `partitions` (how many), `probe_rows` and `candidates`, `id_bytes` (1, 2 or 4: the
 * bytes of a page number or position in a bits file), and the `index` and `centroids`
 * payloads, their sizes those of that many partitions; `bits`, when a query probes every
 * partition, their bits files (else null).
 */
function checkPartitioned(check, set, where, { dim, chunks }) {
  if (set.dtype !== "i8") check.fail(`${where}.dtype must be i8 in the partitioned layout`);
  const partitions = check.int(set, "partitions", where, chunks ? 1 : 0, Math.max(chunks, 0));
  const probeRows = check.int(set, "probe_rows", where, 1);
  const candidates = check.int(set, "candidates", where, 1, MAX_TOP_K);
  const idBytes = check.int(set, "id_bytes", where, 1, 4);
  if (idBytes === 3) check.fail(`${where}.id_bytes must be 1, 2 or 4`);
  const index = check.file(set, "index", where);
  const expected = partitionIndexBytes(partitions, dim);
  if (index.bytes !== expected) check.fail(`${where}.index must be [name, ${expected}] for ${partitions} partitions of ${dim} dims`);
  const centroids = check.file(set, "centroids", where);
  if (centroids.bytes !== partitions * dim) check.fail(`${where}.centroids must be [name, ${partitions * dim}] for ${partitions} partitions of ${dim} dims`);
  let bits = null;
  if (set.bits !== undefined) {
    const listed = check.list(set, "bits", where);
    if (chunks > probeRows) check.fail(`${where}.bits lists bits files, but a query probes only some of its ${chunks} chunks`);
    if (listed.length !== partitions || !listed.every((entry) => Array.isArray(entry) &&
        entry.length === 2 && BITS_NAME.test(entry[0]) && isInt(entry[1]) && entry[1] > 0)) {
      check.fail(`${where}.bits must list [name, bytes] of each of its ${partitions} partitions' bits files (vectors/bin.<hash>.bin)`);
    }
    bits = listed.map(([name, bytes]) => ({ name, bytes }));
  }
  return { layout: "partitioned", partitions, probeRows, candidates, idBytes, index, bits, parts: [] };
}

/**
 * Absolute URL of a payload, resolved against the manifest's URL; refuses a name that
 * is not a payload name or a URL outside the manifest's folder.
 */
export function payloadUrl(name, manifestUrl) {
  if (typeof name !== "string" || !(PAYLOAD_NAME.test(name) || selfChecked(name) || CATALOG_NAME.test(name))) {
    throw new BundleError(`${show(name)} is not a payload name of this format: rebuild the site`);
  }
  const folder = new URL("./", manifestUrl);
  const url = new URL(name, folder);
  if (url.origin !== folder.origin || !url.pathname.startsWith(folder.pathname) || url.search || url.hash) {
    throw new BundleError(`${name} leaves the bundle folder ${folder.href}: rebuild the site`);
  }
  return url.href;
}

/** The body of a self-checked payload that verifyPayload passed: its check cut off. */
export function selfCheckedBody(buffer, name) {
  return selfChecked(name) ? buffer.slice(0, buffer.byteLength - ROW_CHECK_BYTES) : buffer;
}

/**
 * The JSON bytes of a payload that verifyPayload passed (names.py deflated): a
 * self-checked JSON payload's body inflated, never past MAX_KEYED_SHARD_BYTES; any
 * other's bytes as they are. A BundleError when they do not inflate.
 */
export async function jsonBody(buffer, name) {
  const body = selfCheckedBody(buffer, name);
  if (!(name.endsWith(".json") && selfChecked(name))) return body;
  const fail = (why) => new BundleError(`${name} ${why}: rebuild the site`);
  try {
    const reader = new Blob([body]).stream().pipeThrough(new DecompressionStream("deflate")).getReader();
    return await readBounded(reader, MAX_KEYED_SHARD_BYTES,
      () => fail(`inflates to more than the ${MAX_KEYED_SHARD_BYTES} bytes any such file may hold`));
  } catch (error) {
    throw error instanceof BundleError ? error : fail("is not deflated JSON");
  }
}

/**
 * Everything a stream's `reader` gives, as one ArrayBuffer, with `onBytes(n)` called as
 * each chunk comes; past `limit` bytes the stream is cancelled and `tooLarge()` thrown.
 * @param {ReadableStreamDefaultReader<Uint8Array>} reader
 * @param {number} limit
 * @param {() => Error} tooLarge
 * @param {(bytes: number) => void} [onBytes]
 * @returns {Promise<ArrayBuffer>}
 */
export async function readBounded(reader, limit, tooLarge, onBytes = () => {}) {
  const parts = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    parts.push(value);
    onBytes(value.byteLength);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out.buffer;
}

/** Whether a self-checked payload ends with the start of the SHA-256 of its name and body. */
async function selfCheckHolds(buffer, name) {
  const bytes = new Uint8Array(buffer);
  const end = bytes.length - ROW_CHECK_BYTES;
  const label = new TextEncoder().encode(name);
  const signed = new Uint8Array(label.length + end);
  signed.set(label);
  signed.set(bytes.subarray(0, end), label.length);
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", signed));
  return digest.subarray(0, ROW_CHECK_BYTES).every((byte, i) => byte === bytes[end + i]);
}

/**
 * The most bytes a payload whose size no list gives may have: a keyed word piece file's
 * MAX_PIECE_FILE_BYTES, a keyed list's shard's MAX_KEYED_SHARD_BYTES; -1 for any other.
 */
export function unlistedLimit(name) {
  if (PIECE_NAME.test(name)) return MAX_PIECE_FILE_BYTES;
  return KEYED_SHARD_NAME.test(name) ? MAX_KEYED_SHARD_BYTES : -1;
}

/**
 * The shard of a keyed list of `count` shards that holds `key` (shard_lists.py
 * bucket_of): the first four bytes of the SHA-256 of its UTF-8, big-endian, modulo.
 */
export async function bucketOf(key, count) {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return new DataView(digest).getUint32(0) % count;
}

/** Lowercase hex of the SHA-256 of `buffer` (SubtleCrypto, in browsers and node). */
export async function sha256Hex(buffer) {
  return hex(new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", buffer)));
}

/**
 * `buffer` if it is what `name` promises: `bytes` long, its sha256 starting with the
 * name's hash (or equal to `sha256`, for the catalog); a self-checked payload (a table
 * row, keyed word piece file, shard list or keyed list shard, vector rows file or pack) ending
 * with the start of the sha256 of its name and body (names.py self_check), and at most
 * its unlistedLimit when its size is not known (`bytes` undefined). Throws a BundleError
 * otherwise.
 * @param {ArrayBuffer} buffer
 * @param {{ name: string, bytes?: number, sha256?: string }} payload
 * @returns {Promise<ArrayBuffer>}
 */
export async function verifyPayload(buffer, { name, bytes, sha256 }) {
  const size = bytes ?? unlistedLimit(name);
  if (bytes === undefined ? buffer.byteLength > size : buffer.byteLength !== bytes) {
    throw new BundleError(`${name} is ${buffer.byteLength} bytes, the bundle says ${bytes ?? `at most ${size}`} (truncated or changed): rebuild the site`);
  }
  if (!sha256 && selfChecked(name)) {
    if (buffer.byteLength <= ROW_CHECK_BYTES || !(await selfCheckHolds(buffer, name))) {
      throw new BundleError(`${name} does not match its hash (changed or corrupt): rebuild the site`);
    }
    return buffer;
  }
  const digest = await sha256Hex(buffer);
  const expected = sha256 ?? PAYLOAD_NAME.exec(name)?.[1];
  if (!expected || !(sha256 ? digest === expected : digest.startsWith(expected.slice(0, HASH_CHARS)))) {
    throw new BundleError(`${name} does not match its hash (changed or corrupt): rebuild the site`);
  }
  return buffer;
}

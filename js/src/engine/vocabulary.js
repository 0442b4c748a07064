// The site's words with how many chunks use each (mkdocs_semantic/bundle/vocabulary.py),
// read by shard: a prefix's words come from the few shards its range falls in, and the
// words a slip may be corrected to from the few spelling shards (words in spelling
// order: first letter, length, the rest) that hold them.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { BundleError } from "../bundle/error.js";
import { splitParts } from "../text/terms.js";

const { MIN_WORD, MAX_WORD, MAX_IDENTIFIER } = constants;
const SEPARATOR = /[._:-]/;
const LETTERS = /^\p{L}+$/u;
const TOP_KEY = "\uffff";

/**
 * The vocabulary form of a token (lowercased), or null when it is not a word: a
 * CamelCase identifier (`HTTPException`) is a name, searched by its parts and whole.
 */
export function vocabularyWord(token, stopwords) {
  const word = token.toLowerCase();
  // letters only, none outside the Basic Multilingual Plane (no surrogate pairs)
  if (!LETTERS.test(word) || /[\ud800-\udfff]/.test(word) || splitParts(token).length !== 1) return null;
  if (word.length < MIN_WORD || word.length > MAX_WORD || stopwords.has(word)) return null;
  return word;
}

/**
 * The vocabulary key of a code name (`HTTPException`, `root_path`, `log-level`: parts at
 * CamelCase or . _ : -), lowercased, or null when the token is no such name.
 */
export function identifierKey(token) {
  const key = token.toLowerCase();
  if (key.length < MIN_WORD || key.length > MAX_IDENTIFIER || /[\ud800-\udfff]/.test(key)) return null;
  if (!/\p{L}/u.test(key)) return null;
  return splitParts(token).length > 1 || SEPARATOR.test(key) ? key : null;
}

/**
 * Whether the token at `start` of `text` is written as a long flag: right after `--`
 * that follows no letter, digit, `_` or `-` (`--workers`, not `a--b` or `---x`).
 */
export function afterLongDashes(text, start) {
  return text.slice(Math.max(start - 2, 0), start) === "--" && (start === 2 || !/[\p{L}\p{N}_-]/u.test(text[start - 3]));
}

/** An entry is a word (what slips are corrected to) rather than a code name. */
export const isWord = ({ key, form }) => form === key && LETTERS.test(key);

/** Where a word sits in spelling order: its first letter, its length, the rest. */
export const spellingKey = (word) => `${word[0]}${String(word.length).padStart(2, "0")}${word.slice(1)}`;

/**
 * The spelling-order ranges [low, high) holding every word within `limit` edits of
 * `word` (lowercased, two letters at least) that starts with its first letter, or with
 * its second then first.
 */
export function spellingRanges(word, limit) {
  const low = Math.max(word.length - limit, MIN_WORD);
  const high = Math.min(word.length + limit, MAX_WORD);
  const pad = (n) => String(n).padStart(2, "0");
  const ranges = [[`${word[0]}${pad(low)}`, `${word[0]}${pad(high)}${TOP_KEY}`]];
  if (word[1] !== word[0]) {
    for (let n = low; n <= high; n++) ranges.push([`${word[1]}${pad(n)}${word[0]}`, `${word[1]}${pad(n)}${word[0]}${TOP_KEY}`]);
  }
  return ranges;
}

export class Vocabulary {
  /**
   * `shards`: a ShardList of the vocabulary's shards; `spelling`: a ShardList of its
   * spelling shards; `load(file)`: a shard's parsed JSON.
   */
  constructor({ shards, spelling, load }) {
    this.shards = shards;
    this.spelling = spelling;
    this.load = load;
    this.parsed = new Map(); // shard name -> promise of {keys, entries}
  }

  /** The entries `{key, count, form, flag}` whose key k is low <= k < high, ascending. */
  between(low, high) {
    return this.#between(this.shards, checkShard, low, high);
  }

  /**
   * The site's words that `word` (lowercased) may be corrected to within `limit` edits:
   * those within `limit` letters of its length that start with its first letter, or
   * with its second then first.
   */
  async correctable(word, limit) {
    const ranges = spellingRanges(word, limit);
    return (await Promise.all(ranges.map(([low, high]) => this.#between(this.spelling, checkSpellingShard, low, high)))).flat();
  }

  /** The entries whose key starts with one of `prefixes`. */
  async starting(prefixes) {
    const unique = [...new Set(prefixes)];
    return (await Promise.all(unique.map((p) => this.between(p, p + TOP_KEY)))).flat();
  }

  async #between(list, check, low, high) {
    const entries = await list.between(low, high);
    const shards = await Promise.all(entries.map((entry) => this.#shard(entry, check)));
    const out = [];
    for (const { keys, entries: held } of shards) {
      for (let i = lowerBound(keys, low), end = lowerBound(keys, high); i < end; i++) out.push(held[i]);
    }
    return out;
  }

  #shard(entry, check) {
    let shard = this.parsed.get(entry.name);
    if (!shard) {
      shard = this.load(entry).then((data) => check(data, entry.name));
      shard.catch(() => this.parsed.delete(entry.name));
      this.parsed.set(entry.name, shard);
    }
    return shard;
  }
}

function checkShard(data, name) {
  const { words, counts, forms, flags } = data ?? {};
  const ok = Array.isArray(words) && Array.isArray(counts) && words.length === counts.length &&
    Array.isArray(forms) && Array.isArray(flags) &&
    flags.every((f, i) => Number.isSafeInteger(f) && f >= 0 && f < words.length && (i === 0 || flags[i - 1] < f)) &&
    words.every((w, i) => typeof w === "string" && (i === 0 || words[i - 1] < w)) &&
    counts.every((c) => Number.isSafeInteger(c) && c > 0) &&
    forms.every((f) => Array.isArray(f) && f.length === 2 && Number.isSafeInteger(f[0]) &&
      f[0] >= 0 && f[0] < words.length && typeof f[1] === "string");
  if (!ok) throw new BundleError(`${name} is not a vocabulary shard of words in order with their counts: rebuild the site`);
  const spelled = new Map(forms);
  const flagged = new Set(flags);
  return {
    keys: words,
    entries: words.map((key, i) => ({ key, count: counts[i], form: spelled.get(i) ?? key, flag: flagged.has(i) })),
  };
}

function checkSpellingShard(data, name) {
  const { words, counts } = data ?? {};
  const keys = Array.isArray(words) && words.every((w) => typeof w === "string" && LETTERS.test(w)) ? words.map(spellingKey) : null;
  const ok = keys && Array.isArray(counts) && words.length === counts.length &&
    keys.every((k, i) => i === 0 || keys[i - 1] < k) && counts.every((c) => Number.isSafeInteger(c) && c > 0);
  if (!ok) throw new BundleError(`${name} is not a spelling shard of words in spelling order with their counts: rebuild the site`);
  return { keys, entries: words.map((key, i) => ({ key, count: counts[i], form: key, flag: false })) };
}

/** The first position in sorted `words` whose word is not below `key`. */
function lowerBound(words, key) {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

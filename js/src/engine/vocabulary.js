// The site's words with how many chunks use each (mkdocs_semantic/bundle/vocabulary.py),
// read by shard: a prefix's words come from the few shards its range falls in.

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

export class Vocabulary {
  /** `shards`: a ShardList of the vocabulary's shards; `load(file)`: a shard's parsed JSON. */
  constructor({ shards, load }) {
    Object.assign(this, { shards, load });
    this.parsed = new Map(); // shard name -> promise of {words, counts}
  }

  /** The entries `{key, count, form, flag}` whose key k is low <= k < high, ascending. */
  async between(low, high) {
    const entries = await this.shards.between(low, high);
    const shards = await Promise.all(entries.map((entry) => this.#shard(entry)));
    const out = [];
    for (const { words, counts, forms, flags } of shards) {
      for (let i = lowerBound(words, low), end = lowerBound(words, high); i < end; i++) {
        out.push({ key: words[i], count: counts[i], form: forms.get(i) ?? words[i], flag: flags.has(i) });
      }
    }
    return out;
  }

  /** The entries whose key starts with one of `prefixes`. */
  async starting(prefixes) {
    const unique = [...new Set(prefixes)];
    return (await Promise.all(unique.map((p) => this.between(p, p + TOP_KEY)))).flat();
  }

  #shard(entry) {
    let shard = this.parsed.get(entry.name);
    if (!shard) {
      shard = this.load(entry).then((data) => checkShard(data, entry.name));
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
  return { words, counts, forms: new Map(forms), flags: new Set(flags) };
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

// Keyword search over the bundle's lexical index: the spec is mkdocs_semantic/bundle/lexical.py.
// The analyzer must turn text into exactly the terms Python makes; scores are integer
// sums of the postings' stored BM25 quanta, so both sides rank identically.

import snowball from "snowball-stemmers";
import { BundleError } from "../bundle/error.js";
import { casedWords } from "../text/cased-words.js";
import { analyzeWith } from "../text/terms.js";

let porter;
const stems = new Map();

/** Snowball's Porter stemmer (the same generated algorithm as Python's snowballstemmer). */
export function stem(word) {
  let result = stems.get(word);
  if (result === undefined) {
    porter ??= snowball.newStemmer("porter");
    result = porter.stem(word);
    stems.set(word, result);
  }
  return result;
}

/** Text -> index terms: compounds whole (lowercased) plus stemmed parts; stop words out. */
export function analyze(text, stopwords) {
  return analyzeWith(text, stopwords, stem);
}

/**
 * The bundle's keyword index, in shards of terms (`catalog.lexical`): a query loads only
 * the shards its terms fall into. `shards`: a ShardList of them; `pageStarts()` resolves
 * to each page's first chunk (the page table's `starts`); `load(file)` returns a
 * shard's or a tail's parsed JSON. A shard is `{terms, postings, tails}`, each posting
 * list flat as [page delta, local, quantum, ...]; a term found in many chunks lists its
 * head there, and `tails` ([term number, name, bytes]) the file of the rest, which only
 * a filtered query reads (mkdocs_semantic/bundle/lexical.py). Forms that sections write
 * with a capital letter are keys too, listing the sections that write them.
 */
export class LexicalIndex {
  constructor({ scale, count, stopwords }, { shards, pageStarts, load }) {
    this.scale = scale;
    this.count = count;
    this.shards = shards;
    this.pageStarts = pageStarts;
    this.load = load;
    this.stopwords = new Set(stopwords);
    this.parsed = new Map(); // shard name -> Map(term -> {head, tail})
  }

  /** The query's distinct index terms, in order. */
  terms(query) {
    return [...new Set(analyze(query, this.stopwords))];
  }

  async #postingsOf(shard) {
    let postings = this.parsed.get(shard.name);
    if (!postings) {
      const data = await this.load(shard);
      const { terms, postings: lists, tails } = data ?? {};
      if (!Array.isArray(terms) || !Array.isArray(lists) || terms.length !== lists.length || !Array.isArray(tails)) {
        throw new BundleError(`${shard.name} is not a keyword index shard: rebuild the site`);
      }
      postings = new Map(terms.map((term, i) => [term, { head: lists[i], tail: null }]));
      for (const entry of tails) {
        const ok = Array.isArray(entry) && entry.length === 3 && Number.isInteger(entry[0]) &&
          entry[0] >= 0 && entry[0] < terms.length && Number.isInteger(entry[2]) && entry[2] >= 0;
        if (!ok) throw new BundleError(`${shard.name} lists a malformed tail: rebuild the site`);
        postings.get(terms[entry[0]]).tail = { name: entry[1], bytes: entry[2] };
      }
      this.parsed.set(shard.name, postings);
    }
    return postings;
  }

  /** For each term, whether the index has it (reading the shards that would). */
  async holds(terms) {
    return Promise.all(terms.map(async (term) => {
      const shard = await this.shards.find(term);
      return Boolean(shard) && (await this.#postingsOf(shard)).has(term);
    }));
  }

  /**
   * Quantized BM25 of every chunk for `query` (`scores`, a Float64Array of integers),
   * from the terms' heads, or with `full` from every posting (a filtered query); and
   * `possible`, the best score a chunk could get: the sum over the query's terms of each
   * one's highest stored score (LexicalIndex.possible). Each of the query's `casedWords`
   * that some section writes asks for it: each of its terms keeps half its score (rounded
   * up) in a section that writes none of the query's cased words holding that term; when
   * `query` is a reading of what the reader `typed`, only the words typed so count.
   */
  async scores(query, { full = false, typed = null } = {}) {
    const total = new Float64Array(this.count);
    let possible = 0;
    const terms = this.terms(query);
    const asTyped = typed === null ? null : new Set(casedWords(typed));
    const cased = casedWords(query).filter((word) => asTyped?.has(word) ?? true);
    const listsOf = async (key) => {
      const shard = await this.shards.find(key);
      const entry = shard ? (await this.#postingsOf(shard)).get(key) : undefined;
      if (!entry) return [];
      return full && entry.tail ? [entry.head, await this.load(entry.tail)] : [entry.head];
    };
    const [starts, lists, written] = await Promise.all([
      this.pageStarts(), Promise.all(terms.map(listsOf)), Promise.all(cased.map(listsOf))]);
    const listsOfTerm = new Map(terms.map((term, t) => [term, lists[t]]));
    for (let t = 0; t < terms.length; t++) {
      let highest = 0;
      for (const flat of lists[t]) highest = Math.max(highest, this.#add(terms[t], flat, total, starts));
      possible += highest;
    }
    // a term of the cased words is halved once, where no section writes one of those
    // words holding it as typed; a word no section writes asks nothing
    const kept = new Map();
    for (let w = 0; w < cased.length; w++) {
      if (!written[w].length) continue;
      for (const term of analyze(cased[w], this.stopwords)) {
        if (!kept.has(term)) kept.set(term, new Float64Array(this.count));
        for (const flat of written[w]) this.#add(cased[w], flat, kept.get(term), starts);
      }
    }
    for (const [term, holders] of kept) {
      const own = new Float64Array(this.count);
      for (const flat of listsOfTerm.get(term) ?? []) this.#add(term, flat, own, starts);
      for (let chunk = 0; chunk < this.count; chunk++) {
        if (!holders[chunk]) total[chunk] -= Math.floor(own[chunk] / 2);
      }
    }
    return { scores: total, possible };
  }

  /** Adds a flat posting list's quanta to `total`; returns its highest quantum. */
  #add(term, flat, total, starts) {
    if (!Array.isArray(flat) || flat.length % 3) {
      throw new BundleError(`the postings of ${JSON.stringify(term)} are malformed: rebuild the site`);
    }
    const pages = starts.length - 1;
    let highest = 0;
    for (let i = 0, page = 0; i < flat.length; i += 3) {
      page += flat[i];
      const chunk = starts[page] + flat[i + 1];
      if (!(page >= 0 && page < pages && flat[i + 1] >= 0 && chunk < starts[page + 1])) {
        throw new BundleError(`the postings of ${JSON.stringify(term)} name a chunk that does not exist: rebuild the site`);
      }
      total[chunk] += flat[i + 2];
      highest = Math.max(highest, flat[i + 2]);
    }
    return highest;
  }
}

// Keyword search over the bundle's lexical index: the spec is mkdocs_semantic/lexical.py.
// The analyzer must turn text into exactly the terms Python makes; scores are integer
// sums of the postings' stored BM25 quanta, so both sides rank identically.

import snowball from "snowball-stemmers";

const TOKEN = /[\p{L}\p{N}_](?:[\p{L}\p{N}_.:-]*[\p{L}\p{N}_])?/gu;
const SEPARATORS = /[._:-]+/;
const CAMEL = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;
const ASCII_ALNUM = /^[A-Za-z0-9]+$/;
export const LEXICAL_VERSION = 1;

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

/** Parts of an identifier: at . _ : - and at CamelCase boundaries (ASCII only). */
export function splitParts(token) {
  const parts = [];
  for (const piece of token.split(SEPARATORS)) {
    if (!piece) continue;
    if (ASCII_ALNUM.test(piece)) parts.push(...(piece.match(CAMEL) ?? [piece]));
    else parts.push(piece);
  }
  return parts;
}

/** Text -> index terms: compounds whole (lowercased) plus stemmed parts; stop words out. */
export function analyze(text, stopwords) {
  const terms = [];
  for (const [raw] of text.matchAll(TOKEN)) {
    const parts = splitParts(raw);
    let words;
    if (parts.length > 1) {
      terms.push(raw.toLowerCase());
      words = parts.map((p) => p.toLowerCase());
    } else {
      words = [raw.toLowerCase()];
    }
    for (const word of words) {
      if (stopwords.has(word)) continue;
      const term = stem(word);
      if (term) terms.push(term);
    }
  }
  return terms;
}

/** The lexical index of a bundle: `{version, count, scale, stopwords, terms, postings}`. */
export class LexicalIndex {
  constructor(data) {
    if (data?.version !== LEXICAL_VERSION) {
      throw new Error(
        `lexical index version ${JSON.stringify(data?.version)}, expected ${LEXICAL_VERSION}: ` +
          "rebuild the site with the same mkdocs-semantic-search version",
      );
    }
    this.count = data.count;
    this.scale = data.scale;
    this.stopwords = new Set(data.stopwords);
    this.termIds = new Map(data.terms.map((term, i) => [term, i]));
    this.postings = data.postings;
  }

  /** Quantized BM25 of every chunk for `query` (Float64Array of integers). */
  scores(query) {
    const total = new Float64Array(this.count);
    for (const term of new Set(analyze(query, this.stopwords))) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const flat = this.postings[id];
      for (let i = 0, doc = 0; i < flat.length; i += 2) {
        doc += flat[i];
        total[doc] += flat[i + 1];
      }
    }
    return total;
  }
}

// The keyword index's analyzer without its stemmer (mkdocs_semantic/bundle/lexical.py
// analyze): the engine gives it Snowball's Porter stemmer, the page's opening a smaller
// one that only guesses which shards a first query reads.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };

export const TOKEN = /[\p{L}\p{N}_](?:[\p{L}\p{N}_.:-]*[\p{L}\p{N}_])?/gu;
const SEPARATORS = /[._:-]+/;
const CAMEL = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;
const ASCII_ALNUM = /^[A-Za-z0-9]+$/;

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

/**
 * Text -> index terms: compounds whole (lowercased) plus the `stem` of each part; words
 * in `stopwords` (a Set) left out.
 */
export function analyzeWith(text, stopwords, stem) {
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

/** Whether `text` holds a letter that lowercasing changes. */
const capitalized = (text) => text !== text.toLowerCase();

/**
 * The words a query that names something types with deliberate capitals
 * (mkdocs_semantic/bundle/lexical.py cased_words): in a query of at most NAME_WORDS
 * tokens, those with a capital after their first letter, or the one token of a
 * one-token query with any capital. Distinct, in order.
 */
export function casedWords(query) {
  const tokens = [...String(query).matchAll(TOKEN)].map(([raw]) => raw);
  if (tokens.length === 1) return capitalized(tokens[0]) ? [tokens[0]] : [];
  if (tokens.length > constants.NAME_WORDS) return [];
  return [...new Set(tokens.filter((token) => capitalized([...token].slice(1).join(""))))];
}

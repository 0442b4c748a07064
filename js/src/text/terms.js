// The keyword index's analyzer without its stemmer (mkdocs_semantic/bundle/lexical.py
// analyze): the engine gives it Snowball's Porter stemmer, the page's opening a smaller
// one that only guesses which shards a first query reads.

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

// Which words of a text to mark for a query. Pure: the DOM and Material renderers
// both start from `splitMatches`.

const WORD = /[\p{L}\p{N}]+/gu;
const STOPWORDS = new Set(
  ("a an and are as at be by can do does for from has have how i if in into is it its me my " +
    "of on or our so that the their them then there these this to up was we what when where " +
    "which who why will with you your").split(" "),
);

/** A crude English stem, enough to match "browsers" with "browser" and "caching" with "cache". */
export function stem(word) {
  for (const suffix of ["ing", "ies", "es", "ed", "s", "e"]) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) {
      return word.slice(0, -suffix.length);
    }
  }
  return word;
}

/** The query's words worth marking: lower case, no stop words, stemmed. */
export function queryTerms(query) {
  const terms = new Set();
  for (const [word] of query.toLowerCase().matchAll(WORD)) {
    if (word.length > 1 && !STOPWORDS.has(word)) terms.add(stem(word));
  }
  return [...terms];
}

/** `text` cut into `[{text, match}]` pieces; a word matches when its stem starts with a term. */
export function splitMatches(text, terms) {
  const pieces = [];
  let at = 0;
  if (terms.length) {
    for (const found of text.matchAll(WORD)) {
      const word = stem(found[0].toLowerCase());
      if (!terms.some((term) => word.startsWith(term))) continue;
      if (found.index > at) pieces.push({ text: text.slice(at, found.index), match: false });
      pieces.push({ text: found[0], match: true });
      at = found.index + found[0].length;
    }
  }
  if (at < text.length) pieces.push({ text: text.slice(at), match: false });
  return pieces;
}

/** Which terms occur in `text` at all. */
export function matchedTerms(text, terms) {
  const found = new Set();
  for (const piece of splitMatches(text, terms)) {
    if (!piece.match) continue;
    const word = stem(piece.text.toLowerCase());
    for (const term of terms) if (word.startsWith(term)) found.add(term);
  }
  return found;
}

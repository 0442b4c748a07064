// The query table's rows summed per word of the site (mkdocs_semantic/bundle/word_rows.py):
// a keyed list whose shard of a word is named from the word alone, so a query's rows are
// asked for as soon as its words are known, without its tokens. Each shard holds
// `{word: [tokens, row]}`, `row` the base64 of the little-endian int16 sum of the word's
// tokens' rows (none when no token of it has a row); the key "" holds the special tokens
// every query has.

import { BundleError } from "../bundle/error.js";

/** The key of the tokens every query has (word_rows.py FRAME). */
export const FRAME = "";

/**
 * `word`'s entry in a word rows shard (its parsed JSON `data`): `{tokens, row}` (`row` an
 * Int16Array of `dim`, or null), or null when the shard does not hold the word; a
 * BundleError naming `name` when the shard or the entry is malformed.
 */
export function wordEntry(data, word, dim, name) {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new BundleError(`${name} is not a word rows shard: rebuild the site`);
  }
  if (!Object.hasOwn(data, word)) return null;
  const value = data[word];
  const good = Array.isArray(value) && (value.length === 1 || value.length === 2) &&
    Number.isSafeInteger(value[0]) && value[0] >= 0;
  const row = good && value.length === 2 ? decodeRow(value[1], dim) : null;
  if (!good || (value.length === 2 && !row)) {
    throw new BundleError(`${name} holds a malformed row for ${JSON.stringify(word).slice(0, 40)}: rebuild the site`);
  }
  return { tokens: value[0], row };
}

/** An Int16Array of `dim` from base64 of little-endian int16, or null when it is not one. */
function decodeRow(text, dim) {
  if (typeof text !== "string" || text.length !== 4 * Math.ceil((2 * dim) / 3)) return null;
  let binary;
  try {
    binary = atob(text);
  } catch {
    return null;
  }
  if (binary.length !== 2 * dim) return null;
  const view = new DataView(Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer);
  return Int16Array.from({ length: dim }, (_, d) => view.getInt16(2 * d, true));
}

/**
 * A query's integer vector from the rows of its words (Int32Array), null when none of
 * its tokens has a row, or undefined when the words cannot give it exactly (its text
 * holds an added token's text, or its tokens are more than `maxTokens`, which the
 * tokenizer would cut) or their rows could not be read: then the caller encodes it
 * token by token, which needs none of them.
 * `words`: `{split(text) -> words | null, find(word) -> promise of {tokens, row} | null,
 * tokenize(words) -> promise of each word's token ids}`; `loadRow(token)`: a token's
 * row (Int8Array) or a promise of it; `held(token)`: whether the table has its row.
 * `onPartial(sum)`: when some words are not the site's, told the sum of the others'
 * rows (the frame's included) before their word pieces are read, so that what the
 * vector will need can be asked for meanwhile.
 */
export async function encodeByWords(text, { words, loadRow, held, dim, maxTokens, onPartial }) {
  const split = words.split(text);
  if (!split || split.length >= maxTokens) return undefined; // a word is a token at least
  const distinct = [...new Set([FRAME, ...split])];
  let found;
  try {
    found = new Map(await Promise.all(distinct.map(async (word) => /** @type {[string, any]} */ (
      [word, await words.find(word)]))));
  } catch {
    return undefined; // a shard missing or damaged: the tokens' own rows give the same sum
  }
  if (!found.get(FRAME)) return undefined; // a bundle's word rows always hold it
  const sum = new Int32Array(dim);
  let any = false;
  const add = (row) => {
    for (let d = 0; d < dim; d++) sum[d] += row[d];
    any = true;
  };
  for (const word of [FRAME, ...split]) {
    const row = found.get(word)?.row;
    if (row) add(row);
  }
  const missing = distinct.filter((word) => !found.get(word));
  if (missing.length) onPartial?.(Int32Array.from(sum));
  const ids = new Map(missing.length ? (await words.tokenize(missing)).map((tokens, i) => [missing[i], tokens]) : []);
  let tokens = found.get(FRAME).tokens;
  for (const word of split) tokens += found.get(word)?.tokens ?? ids.get(word).length;
  if (tokens > maxTokens) return undefined;
  const rows = new Map(); // token -> its row, asked for at once
  for (const list of ids.values()) for (const id of list) if (held(id) && !rows.has(id)) rows.set(id, loadRow(id));
  for (const word of split) {
    if (!found.get(word)) for (const id of ids.get(word)) if (rows.has(id)) add(await rows.get(id));
  }
  return any ? sum : null;
}

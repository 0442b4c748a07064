// The static query encoder (mkdocs_semantic/search/query_encoder.py): the query's tokens each
// add their row of the bundle's token table; no model runs. Only the rows of the query's
// own tokens are downloaded, each a record of the table's pack read by its byte range and
// checked under the row's own name (bundle/table.py), or, where the bundle has them, the
// summed rows of the query's words (word-rows.js).

import { encodeByWords } from "./word-rows.js";

export class StaticEncoder {
  /**
   * `encoder`: the catalog's checked `encoders.static` (its `rows.ids`, the token ids the
   * table has, ascending); `tokenize(text) -> ids` or a promise of them (special tokens
   * included, already cut to max_tokens); `loadRow(token)` -> its Int8Array row;
   * `words`: the word rows as encodeByWords reads them, or null.
   */
  constructor({ encoder, tokenize, loadRow, words = null }) {
    this.tokenize = tokenize;
    this.loadRow = loadRow;
    this.words = words;
    this.dim = encoder.dim;
    this.maxTokens = encoder.maxTokens;
    this.held = encoder.rows.ids;
  }

  /**
   * The query's integer vector (Int32Array, an exact sum), or null when no token is known.
   * `onPartial(sum)`: told the sum of the rows of the words the site uses while those it
   * does not use still wait for their word pieces (encodeByWords).
   * @param {string} text
   * @param {{ onPartial?: (sum: Int32Array) => void }} [options]
   */
  async encode(text, { onPartial } = {}) {
    if (this.words) {
      const vector = await encodeByWords(text, {
        words: this.words, loadRow: this.loadRow, held: (id) => indexOf(this.held, id) >= 0,
        dim: this.dim, maxTokens: this.maxTokens, onPartial,
      });
      if (vector !== undefined) return vector;
    }
    const ids = (await this.tokenize(text)).filter((id) => indexOf(this.held, id) >= 0);
    if (!ids.length) return null;
    const rows = new Map(); // token -> its row (the store fetches each once)
    for (const id of ids) if (!rows.has(id)) rows.set(id, this.loadRow(id));
    const sum = new Int32Array(this.dim);
    for (const id of ids) {
      const row = await rows.get(id);
      for (let d = 0; d < this.dim; d++) sum[d] += row[d];
    }
    return sum;
  }
}

function indexOf(sorted, value) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === value) return mid;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

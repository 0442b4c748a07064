// The static query encoder (mkdocs_semantic/search/query_encoder.py): the query's tokens each
// add their row of the bundle's token table; no model runs. Only the rows of the query's
// own tokens are downloaded, each a file named by its token id (bundle/table.py).

export class StaticEncoder {
  /**
   * `encoder`: the catalog's checked `encoders.static` (its `rows.ids`, the token ids the
   * table has, ascending); `tokenize(text) -> ids` or a promise of them (special tokens
   * included, already cut to max_tokens); `loadRow(token)` -> its Int8Array row.
   */
  constructor({ encoder, tokenize, loadRow }) {
    Object.assign(this, { tokenize, loadRow });
    this.dim = encoder.dim;
    this.held = encoder.rows.ids;
  }

  /** The query's integer vector (Int32Array, an exact sum), or null when no token is known. */
  async encode(text) {
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

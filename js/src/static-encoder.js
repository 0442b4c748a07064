// The static query encoder (mkdocs_semantic/query_encoder.py): the query's tokens each
// add their row of the bundle's token table; no model runs. Only the table shards the
// query's token ids fall into are downloaded.

import { shardOf } from "./bundle.js";

export class StaticEncoder {
  /**
   * `encoder`: the catalog's checked `encoders.static`; `tokenize(text) -> ids` (special
   * tokens included, already cut to max_tokens); `loadShard(shard)` -> `{ids, rows}`.
   */
  constructor({ encoder, tokenize, loadShard }) {
    Object.assign(this, { tokenize, loadShard });
    this.shards = encoder.shards;
    this.dim = encoder.dim;
  }

  /** The query's integer vector (Int32Array, an exact sum), or null when no token is known. */
  async encode(text) {
    const ids = this.tokenize(text);
    const tables = new Map();
    for (const id of ids) {
      const at = shardOf(this.shards, id);
      if (at >= 0 && !tables.has(at)) tables.set(at, this.loadShard(this.shards[at]));
    }
    const sum = new Int32Array(this.dim);
    let known = false;
    for (const id of ids) {
      const at = shardOf(this.shards, id);
      if (at < 0) continue;
      const { ids: tokens, rows } = await tables.get(at);
      const row = indexOf(tokens, id);
      if (row < 0) continue;
      known = true;
      for (let d = 0, base = row * this.dim; d < this.dim; d++) sum[d] += rows[base + d];
    }
    return known ? sum : null;
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

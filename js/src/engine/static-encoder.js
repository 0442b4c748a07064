// The static query encoder (mkdocs_semantic/search/query_encoder.py): the query's tokens each
// add their row of the bundle's token table; no model runs. Only the table shards the
// query's token ids fall into are downloaded.

export class StaticEncoder {
  /**
   * `encoder`: the catalog's checked `encoders.static`; `shards`: a ShardList of its
   * table shards; `tokenize(text) -> ids` or a promise of them (special tokens included,
   * already cut to max_tokens); `loadShard(shard)` -> `{ids, rows}`.
   */
  constructor({ encoder, shards, tokenize, loadShard }) {
    Object.assign(this, { shards, tokenize, loadShard });
    this.dim = encoder.dim;
  }

  /** The query's integer vector (Int32Array, an exact sum), or null when no token is known. */
  async encode(text) {
    const ids = await this.tokenize(text);
    const shards = await Promise.all(ids.map((id) => this.shards.find(id)));
    const tables = new Map(); // shard name -> its parsed rows (the store fetches it once)
    for (const shard of shards) {
      if (shard && !tables.has(shard.name)) tables.set(shard.name, this.loadShard(shard));
    }
    const sum = new Int32Array(this.dim);
    let known = false;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!shards[i]) continue;
      const { ids: tokens, rows } = await tables.get(shards[i].name);
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

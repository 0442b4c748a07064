// Exact scan of the stored vectors: the spec is mkdocs_semantic/search.py.
// score = dot(query, stored_row) / scale; highest first, ties by chunk number.

/** Scores of every row (Float64Array, one per chunk). */
export function scoreAll(matrix, query, scale) {
  const { rows, dim, data } = matrix;
  const scores = new Float64Array(rows);
  for (let r = 0, base = 0; r < rows; r++, base += dim) {
    let dot = 0;
    for (let d = 0; d < dim; d++) dot += data[base + d] * query[d];
    scores[r] = dot / scale;
  }
  return scores;
}

/** Ids of the `k` best scores, best first; `accept(id)` filters (all by default). */
export function topK(scores, k, accept = () => true) {
  const best = []; // sorted: better first
  for (let id = 0; id < scores.length; id++) {
    const s = scores[id];
    if (best.length === k && !(s > scores[best[k - 1]])) continue; // ties keep the lower id
    if (!accept(id)) continue;
    let at = best.length;
    while (at > 0 && s > scores[best[at - 1]]) at--;
    best.splice(at, 0, id);
    if (best.length > k) best.pop();
  }
  return best;
}

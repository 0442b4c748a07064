// Exact scan of the stored vectors: the spec is mkdocs_semantic/search.py and
// mkdocs_semantic/query_encoder.py. int8: the query becomes int8 codes, each score is an
// exact integer dot product divided once by (scale * |codes|); f16/f32: dot / scale.

/**
 * int8 codes of a query vector: its largest component maps to 127, halves round up
 * (floor(x * (127 / peak) + 0.5), as query_codes computes it); null for a zero vector.
 */
export function queryCodes(vector) {
  let peak = 0;
  for (const x of vector) peak = Math.max(peak, Math.abs(x));
  if (peak === 0) return null;
  const factor = 127 / peak;
  return Int8Array.from(vector, (x) => Math.floor(x * factor + 0.5));
}

/** |codes|: an exact integer sum, then IEEE sqrt (codes_norm). */
export function codesNorm(codes) {
  let sum = 0;
  for (const c of codes) sum += c * c;
  return Math.sqrt(sum);
}

/**
 * Scores of every row of a vector set (Float64Array, one per chunk), in chunk order.
 * `parts`: `[{rows, data}]` in order (Int8Array for i8, Float32Array otherwise).
 */
export function scoreAll({ dtype, dim, scale, parts }, query) {
  const total = parts.reduce((n, part) => n + part.rows, 0);
  const scores = new Float64Array(total);
  const divisor = dtype === "i8" ? codesNorm(query) * scale : scale;
  let at = 0;
  for (const { rows, data } of parts) {
    for (let r = 0, base = 0; r < rows; r++, base += dim) {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += data[base + d] * query[d];
      scores[at++] = divisor ? dot / divisor : dot;
    }
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

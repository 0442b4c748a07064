// Scans of the stored vectors: the spec is mkdocs_semantic/search.py,
// mkdocs_semantic/query_encoder.py and mkdocs_semantic/partitions.py. int8: the query
// becomes int8 codes, each score is an exact integer dot product divided once by
// (scale * |codes|); f16/f32: dot / scale. The exact layout scores every row; the
// partitioned one the rows of the partitions probed (NaN for the others).

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

/** `vector` scaled to length 1 (Float64Array); a zero vector stays zero (search.py's embed). */
export function unitLength(vector) {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum) || 1;
  return Float64Array.from(vector, (x) => x / norm);
}

/** |codes|: an exact integer sum, then IEEE sqrt (codes_norm). */
export function codesNorm(codes) {
  let sum = 0;
  for (const c of codes) sum += c * c;
  return Math.sqrt(sum);
}

/**
 * The query's mean score over every stored row, from the set's column sums
 * (VectorSet.mean_score): int8, the exact integer dot product of the codes with the
 * sums / (rows * (scale * |codes|)); f16/f32, the dot product summed in dimension
 * order, / rows / scale.
 */
export function meanScore({ dtype, scale, sum }, rows, query) {
  if (!rows) return 0;
  let dot = 0;
  for (let d = 0; d < sum.length; d++) dot += sum[d] * query[d];
  if (dtype !== "i8") return dot / rows / scale;
  const norm = codesNorm(query);
  return dot / (rows * (norm ? scale * norm : 1));
}

/**
 * Scores of every row of a vector set (Float64Array, one per chunk), in chunk order.
 * `parts`: `[{rows, data}]` in order (Int8Array for i8, Float32Array otherwise).
 */
export function scoreAll({ dtype, dim, scale, parts }, query) {
  const total = parts.reduce((n, part) => n + part.rows, 0);
  const scores = new Float64Array(total);
  const divisor = dtype === "i8" ? codesNorm(query) * scale : scale;
  if (dtype === "i8") return scoreInt8(parts, dim, Int32Array.from(query), divisor, scores);
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

/**
 * int8 rows: each dot product in int32 arithmetic, which is exact (|dot| is at most
 * dim * 127 * 128, far below 2^31) and lets the engine keep it in integer registers.
 * The same inner loop is written out in each int8 scan below, not called: on 37,680 rows
 * of dim 384 a shared function made the exact scan about 10 % slower in Node 20.
 */
function scoreInt8(parts, dim, codes, divisor, scores) {
  let at = 0;
  for (const { rows, data } of parts) {
    for (let r = 0, base = 0; r < rows; r++, base += dim) {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot = (dot + data[base + d] * codes[d]) | 0;
      scores[at++] = divisor ? dot / divisor : dot;
    }
  }
  return scores;
}

/**
 * The partitions a query scans, nearest first (partitions.probed): partitions ordered by
 * the integer dot product of their centroid's int8 codes with the query's codes,
 * descending, ties by number; the first `probe`, then the next ones while twice their
 * dot product reaches the best one, `probeMax` at most; all of them when `every`.
 */
export function probedPartitions(centroids, dim, codes, { probe, probeMax, every = false }) {
  const count = centroids.length / dim;
  const dots = new Int32Array(count);
  const wide = Int32Array.from(codes);
  for (let c = 0, base = 0; c < count; c++, base += dim) {
    let dot = 0;
    for (let d = 0; d < dim; d++) dot = (dot + centroids[base + d] * wide[d]) | 0;
    dots[c] = dot;
  }
  const order = Array.from({ length: count }, (_, c) => c).sort((a, b) => dots[b] - dots[a] || a - b);
  if (every) return order;
  let n = Math.min(probe, count);
  while (n < Math.min(probeMax, count) && 2 * dots[order[n]] >= dots[order[0]]) n++;
  return order.slice(0, n);
}

/**
 * Scores of the rows of some partitions (`[{ids, data}]`, int8) in chunk order: a
 * Float64Array of `chunks` entries, NaN where no partition given holds the chunk.
 */
export function scorePartitions({ dim, scale, chunks }, partitions, codes) {
  const scores = new Float64Array(chunks).fill(NaN);
  const divisor = codesNorm(codes) * scale;
  const wide = Int32Array.from(codes);
  for (const { ids, data } of partitions) {
    for (let r = 0, base = 0; r < ids.length; r++, base += dim) {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot = (dot + data[base + d] * wide[d]) | 0;
      scores[ids[r]] = divisor ? dot / divisor : dot;
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

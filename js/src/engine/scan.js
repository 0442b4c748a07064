// Scans of the stored vectors: the spec is mkdocs_semantic/bundle/vectors/store.py,
// mkdocs_semantic/search/query_encoder.py and mkdocs_semantic/bundle/vectors/partitions.py. int8: the query
// becomes int8 codes, each score is an exact integer dot product divided once by
// (scale * |codes|); f16/f32: dot / scale. The exact layout scores every row; the
// partitioned one its candidates, found by sign scores (NaN for the others).

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

/** `vector` scaled to length 1 (Float64Array); a zero vector stays zero (search/searcher.py's embed). */
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
 * Per byte position of a sign code and per byte value, that byte's share of the sign
 * score (partitions.sign_scores): the sum of the codes over its set bits minus the sum
 * over the others. An Int32Array of ceil(dim / 8) x 256.
 */
export function signTables(codes) {
  const width = Math.ceil(codes.length / 8);
  const tables = new Int32Array(width * 256);
  for (let b = 0; b < width; b++) {
    for (let value = 0; value < 256; value++) {
      let sum = 0;
      for (let bit = 0; bit < 8; bit++) {
        const d = 8 * b + bit;
        if (d < codes.length) sum += (value >> bit) & 1 ? codes[d] : -codes[d];
      }
      tables[b * 256 + value] = sum;
    }
  }
  return tables;
}

/** The sign score of each of the `rows` codes in `bits` (rows x width bytes). */
export function signScores(bits, rows, tables) {
  const width = tables.length / 256;
  const scores = new Int32Array(rows);
  for (let r = 0, base = 0; r < rows; r++, base += width) {
    let sum = 0;
    for (let b = 0; b < width; b++) sum += tables[b * 256 + bits[base + b]];
    scores[r] = sum;
  }
  return scores;
}

/**
 * The partitions a query probes, nearest first (partitions.probed): ordered by their
 * centroid's sign score, descending, ties by number; taken until they hold at least
 * `probeRows` rows (all of them on a smaller set).
 */
export function probedPartitions(centroidBits, sizes, tables, probeRows) {
  const scores = signScores(centroidBits, sizes.length, tables);
  const order = Array.from(sizes, (_, p) => p).sort((a, b) => scores[b] - scores[a] || a - b);
  let held = 0;
  let n = 0;
  while (n < order.length && held < probeRows) held += sizes[order[n++]];
  return order.slice(0, n);
}

/**
 * The `count` best distinct rows of the probed partitions (`[{firsts, bits}]`: each
 * row's first chunk and sign bits) by sign score, ties by first chunk
 * (VectorSet.candidate_rows): their first chunks, best first.
 */
export function candidateIds(partitions, tables, count) {
  const firsts = [];
  const scores = [];
  for (const { firsts: rowFirsts, bits } of partitions) {
    const partScores = signScores(bits, rowFirsts.length, tables);
    for (let r = 0; r < rowFirsts.length; r++) {
      firsts.push(rowFirsts[r]);
      scores.push(partScores[r]);
    }
  }
  const order = firsts.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || firsts[a] - firsts[b]);
  return order.slice(0, count).map((i) => firsts[i]);
}

/**
 * Exact scores of some rows of some partitions (`[{ids, rowOf, firsts, blocks, blockRows,
 * wanted}]`: `blocks` the partition's row blocks (`{start, rows}`), `blockRows` each
 * block's int8 rows (null for a block not read), `wanted` a Set of the first chunks of
 * the rows to score, or null for all), given to every chunk that has a scored row, in
 * chunk order: a Float64Array of `chunks` entries, NaN where no row was scored.
 */
export function scorePartitions({ dim, scale, chunks }, partitions, codes) {
  const scores = new Float64Array(chunks).fill(NaN);
  const divisor = codesNorm(codes) * scale;
  const wide = Int32Array.from(codes);
  for (const { ids, rowOf, firsts, blocks, blockRows, wanted } of partitions) {
    const rowScores = new Float64Array(firsts.length).fill(NaN);
    blocks.forEach(({ start, rows: count }, j) => {
      const rows = blockRows[j];
      for (let r = start, base = 0; r < start + count; r++, base += dim) {
        if (wanted && !wanted.has(firsts[r])) continue;
        if (!rows) throw new Error(`the rows of block ${j} were not read`);
        let dot = 0;
        for (let d = 0; d < dim; d++) dot = (dot + rows[base + d] * wide[d]) | 0;
        rowScores[r] = divisor ? dot / divisor : dot;
      }
    });
    for (let i = 0; i < ids.length; i++) {
      const score = rowScores[rowOf ? rowOf[i] : i];
      if (!Number.isNaN(score)) scores[ids[i]] = score;
    }
  }
  return scores;
}

/**
 * `candidates` (first chunks of rows, in order), each followed by the other chunks that
 * share its row, in chunk order (`partitions`: `[{ids, rowOf, firsts}]`): a chunk stored
 * once for several identical ones (copied pages) ranks on each of their pages.
 */
export function chunksOfRows(partitions, candidates) {
  const wanted = new Set(candidates);
  const sharing = new Map(); // first chunk -> every chunk of its row
  for (const { ids, rowOf, firsts } of partitions) {
    if (!rowOf) continue; // every row holds one chunk
    for (let i = 0; i < ids.length; i++) {
      const first = firsts[rowOf[i]];
      if (!wanted.has(first)) continue;
      if (!sharing.has(first)) sharing.set(first, []);
      sharing.get(first).push(ids[i]);
    }
  }
  return candidates.flatMap((first) => sharing.get(first) ?? [first]);
}

/** The blocks of a partition (`{blocks, firsts}`) holding a row whose first chunk is in `wanted`. */
export function blocksHolding({ blocks, firsts }, wanted) {
  return blocks.filter(({ start, rows }) => {
    for (let r = start; r < start + rows; r++) if (wanted.has(firsts[r])) return true;
    return false;
  });
}

/**
 * Ids of the `k` best scores, best first; `accept(id)` filters (all by default).
 * @param {ArrayLike<number>} scores
 * @param {number} k
 * @param {(id: number) => boolean} [accept]
 * @returns {number[]}
 */
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

// A sequence's token vectors -> one sentence vector, as mkdocs_semantic/model/onnx.py
// pools them: the mean over the attention mask (or the CLS token), then unit length.

/** One sequence's token vectors [seq, dim] -> one vector. */
export function pool(hidden, seq, dim, mask, pooling) {
  const out = new Float32Array(dim);
  if (pooling === "cls") {
    out.set(hidden.subarray(0, dim));
    return out;
  }
  let weight = 0;
  for (let t = 0; t < seq; t++) {
    if (!mask[t]) continue;
    weight += mask[t];
    const row = t * dim;
    for (let d = 0; d < dim; d++) out[d] += hidden[row + d] * mask[t];
  }
  const divisor = Math.max(weight, 1e-9);
  for (let d = 0; d < dim; d++) out[d] /= divisor;
  return out;
}

export function l2normalize(vector) {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.max(Math.sqrt(sum), 1e-12);
  return vector.map((x) => x / norm);
}

// Token ids -> a sentence vector with a BERT encoder's forward pass of our own, over the
// files the build writes (mkdocs_semantic/bundle/browser_model.py): no WebAssembly
// runtime to download. The same maths as mkdocs_semantic/model/bert_forward.py, which
// the build holds to onnxruntime's answers; tests/model/test_browser_forward.py holds
// this one to them.

import { BundleError } from "../bundle/error.js";
import { DENSE_WASM } from "./dense-wasm.js";
import { l2normalize, pool } from "./pooling.js";

const MAGIC = "SBM1";

/**
 * The layers file -> { config, tensor(name) }: a tensor is { values, scale, shape }
 * (values Int8Array with a Float32Array scale, or Float32Array with scale null).
 */
export function parseLayers(buffer, name) {
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  const fail = (why) => {
    throw new BundleError(`${name} ${why}: rebuild the site`);
  };
  if (bytes.length < 8 || String.fromCharCode(...bytes.subarray(0, 4)) !== MAGIC) {
    fail("is not a model layers file");
  }
  const headLength = view.getUint32(4, true);
  if (8 + headLength > bytes.length) fail("is cut short");
  let config;
  try {
    config = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headLength)));
  } catch {
    fail("has a header that is not JSON");
  }
  const start = Math.ceil((8 + headLength) / 4) * 4;
  const count = (shape) => shape.reduce((n, d) => n * d, 1);
  const tensors = new Map();
  for (const [key, [dtype, shape, offset, scaleOffset, scaleShape]] of Object.entries(config.tensors ?? {})) {
    const n = count(shape);
    const end = start + offset + n * (dtype === "i8" ? 1 : 4);
    if (end > bytes.length || (scaleOffset !== null && start + scaleOffset + count(scaleShape) * 4 > bytes.length)) {
      fail(`is cut short (${key})`);
    }
    tensors.set(key, {
      shape,
      values: dtype === "i8" ? new Int8Array(buffer, start + offset, n) : new Float32Array(buffer, start + offset, n),
      scale: scaleOffset === null ? null : new Float32Array(buffer, start + scaleOffset, count(scaleShape)),
    });
  }
  return {
    config,
    tensor(key) {
      const found = tensors.get(key);
      if (!found) fail(`lacks ${key}`);
      return found;
    },
  };
}

/** A word block -> { ids: Uint32Array, scales: Float32Array, rows: Int8Array }. */
export function parseWordBlock(buffer, hidden, name) {
  const count = buffer.byteLength >= 4 ? new DataView(buffer).getUint32(0, true) : -1;
  if (count < 0 || buffer.byteLength !== 4 + count * (8 + hidden)) {
    throw new BundleError(`${name} is not a word block of ${hidden} dimensions: rebuild the site`);
  }
  return {
    ids: new Uint32Array(buffer, 4, count),
    scales: new Float32Array(buffer, 4 + 4 * count, count),
    rows: new Int8Array(buffer, 4 + 8 * count, count * hidden),
  };
}

/** erf to within 1.5e-7 (Abramowitz and Stegun 7.1.26). */
function erf(x) {
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return sign * y;
}

/**
 * x[n, in] W into a new y[n, out] in JavaScript, W in x out with its scale: eight rows
 * of W at a time, for every token while they are in cache (each pass over a row of y
 * adds eight of its products). Where WebAssembly SIMD is missing.
 */
function jsProduct(x, n, weight) {
  const [inDim, outDim] = weight.shape;
  const w = weight.values;
  const y = new Float32Array(n * outDim);
  let i = 0;
  for (; i + 8 <= inDim; i += 8) {
    const r0 = i * outDim, r1 = r0 + outDim, r2 = r1 + outDim, r3 = r2 + outDim;
    const r4 = r3 + outDim, r5 = r4 + outDim, r6 = r5 + outDim, r7 = r6 + outDim;
    for (let t = 0; t < n; t++) {
      const at = t * outDim;
      const xt = t * inDim + i;
      const x0 = x[xt], x1 = x[xt + 1], x2 = x[xt + 2], x3 = x[xt + 3];
      const x4 = x[xt + 4], x5 = x[xt + 5], x6 = x[xt + 6], x7 = x[xt + 7];
      for (let j = 0; j < outDim; j++) {
        y[at + j] += x0 * w[r0 + j] + x1 * w[r1 + j] + x2 * w[r2 + j] + x3 * w[r3 + j] +
          x4 * w[r4 + j] + x5 * w[r5 + j] + x6 * w[r6 + j] + x7 * w[r7 + j];
      }
    }
  }
  for (; i < inDim; i++) {
    const row = i * outDim;
    for (let t = 0; t < n; t++) {
      const xi = x[t * inDim + i];
      const at = t * outDim;
      for (let j = 0; j < outDim; j++) y[at + j] += xi * w[row + j];
    }
  }
  const scale = columnScales(weight);
  for (let t = 0; t < n; t++) {
    for (let j = 0; j < outDim; j++) y[t * outDim + j] *= scale[j];
  }
  return y;
}

/** A dense weight's scale, one per column (all 1 for float32 weights). */
function columnScales({ shape, scale }) {
  const outDim = shape[1];
  if (scale !== null && scale.length === outDim) return scale;
  return new Float32Array(outDim).fill(scale === null ? 1 : scale[0]);
}

/**
 * The same product with dense.wat's SIMD kernel, over `weights` (copied once into its
 * memory as float32, 4 bytes a weight) for up to `maxTokens` tokens:
 * product(x, n, weight) -> y, or
 * null where the browser lacks WebAssembly SIMD or may not compile it (a
 * Content-Security-Policy without 'wasm-unsafe-eval').
 */
export function simdProduct(weights, maxTokens) {
  let instance;
  try {
    const bytes = Uint8Array.from(atob(DENSE_WASM), (c) => c.charCodeAt(0));
    if (typeof WebAssembly !== "object" || !WebAssembly.validate(bytes)) return null;
    instance = new WebAssembly.Instance(new WebAssembly.Module(bytes));
  } catch {
    return null;
  }
  if (!weights.every((w) => w.shape[1] % 16 === 0)) return null;
  const align = (n) => Math.ceil(n / 16) * 16;
  const at = new Map();
  let end = 0;
  for (const weight of weights) {
    at.set(weight, end);
    end = align(end + weight.values.length * 4);
  }
  const widest = Math.max(...weights.flatMap((w) => w.shape));
  const xAt = end;
  const yAt = align(xAt + maxTokens * widest * 4);
  const memory = instance.exports.memory;
  memory.grow(Math.ceil((yAt + maxTokens * widest * 4) / 65536) - memory.buffer.byteLength / 65536);
  for (const weight of weights) { // as float32, the scale folded in
    const [inDim, outDim] = weight.shape;
    const scaled = new Float32Array(memory.buffer, at.get(weight), weight.values.length);
    const scale = columnScales(weight);
    for (let i = 0; i < inDim; i++) {
      for (let j = 0; j < outDim; j++) scaled[i * outDim + j] = weight.values[i * outDim + j] * scale[j];
    }
  }
  return (x, n, weight) => {
    const [inDim, outDim] = weight.shape;
    new Float32Array(memory.buffer, xAt, n * inDim).set(x.subarray(0, n * inDim));
    instance.exports.matmul(xAt, n, inDim, outDim, at.get(weight), yAt);
    return new Float32Array(memory.buffer, yAt, n * outDim).slice();
  };
}

/** y[n, out] = x W + b, `product(x, n, W)` giving x W (W's scale applied). */
function dense(product, x, n, weight, bias) {
  const outDim = weight.shape[1];
  const y = product(x, n, weight);
  for (let t = 0; t < n; t++) {
    for (let j = 0; j < outDim; j++) y[t * outDim + j] += bias[j];
  }
  return y;
}

/** x = LayerNorm(x + residual) in place, row by row. */
function addNorm(x, residual, n, dim, gamma, beta, eps) {
  for (let t = 0; t < n; t++) {
    const at = t * dim;
    let mean = 0;
    for (let d = 0; d < dim; d++) {
      if (residual) x[at + d] += residual[at + d];
      mean += x[at + d];
    }
    mean /= dim;
    let variance = 0;
    for (let d = 0; d < dim; d++) {
      const c = x[at + d] - mean;
      variance += c * c;
    }
    const inv = 1 / Math.sqrt(variance / dim + eps);
    for (let d = 0; d < dim; d++) x[at + d] = (x[at + d] - mean) * inv * gamma[d] + beta[d];
  }
}

function attention(q, k, v, n, heads, size) {
  const hidden = heads * size;
  const out = new Float32Array(n * hidden);
  const scores = new Float64Array(n);
  const norm = 1 / Math.sqrt(size);
  for (let h = 0; h < heads; h++) {
    const off = h * size;
    for (let t = 0; t < n; t++) {
      let max = -Infinity;
      for (let s = 0; s < n; s++) {
        let dot = 0;
        for (let d = 0; d < size; d++) dot += q[t * hidden + off + d] * k[s * hidden + off + d];
        scores[s] = dot * norm;
        if (scores[s] > max) max = scores[s];
      }
      let sum = 0;
      for (let s = 0; s < n; s++) sum += (scores[s] = Math.exp(scores[s] - max));
      for (let s = 0; s < n; s++) {
        const p = scores[s] / sum;
        for (let d = 0; d < size; d++) out[t * hidden + off + d] += p * v[s * hidden + off + d];
      }
    }
  }
  return out;
}

/**
 * The encoder over `layers` (parseLayers) and its word `blocks` (parseWordBlock):
 * hiddenStates(ids) -> Float32Array [ids kept, hidden] and the ids it ran on (those
 * without a word row dropped, as the static encoder drops a token its table lacks).
 * `simd: false` multiplies in JavaScript even where WebAssembly SIMD runs (`simd` says
 * which the encoder uses).
 */
export function createBert(layers, blocks, { simd = true } = {}) {
  const { config } = layers;
  const { hidden, heads, eps } = config;
  // a token's word row: its block and its row there (-1: no row), read in place
  const blockOf = new Int32Array(config.vocab).fill(-1);
  const rowOf = new Int32Array(config.vocab);
  blocks.forEach((block, b) => block.ids.forEach((id, row) => {
    if (id < config.vocab) [blockOf[id], rowOf[id]] = [b, row];
  }));
  const t = (key) => layers.tensor(key);
  const position = t("embeddings.position_embeddings.weight");
  const types = t("embeddings.token_type_embeddings.weight");
  const dense32 = (tensor) => tensor.values; // float32 parameters (biases, norms)
  const layer = (i, key) => t(`encoder.layer.${i}.${key}`);
  const DENSE = ["attention.self.query", "attention.self.key", "attention.self.value",
    "attention.output.dense", "intermediate.dense", "output.dense"];
  const denseWeights = Array.from({ length: config.layers }, (_, i) => DENSE.map((key) => layer(i, `${key}.weight`))).flat();
  const product = (simd && simdProduct(denseWeights, position.shape[0])) || jsProduct;

  function hiddenStates(allIds) {
    const ids = allIds.filter((id) => id >= 0 && id < config.vocab && blockOf[id] >= 0)
      .slice(0, position.shape[0]);
    const n = ids.length;
    const x = new Float32Array(n * hidden);
    for (let p = 0; p < n; p++) {
      const { rows, scales } = blocks[blockOf[ids[p]]];
      const row = rowOf[ids[p]];
      const ws = scales[row];
      const ps = position.scale ? position.scale[p] : 1;
      for (let d = 0; d < hidden; d++) {
        x[p * hidden + d] = rows[row * hidden + d] * ws + position.values[p * hidden + d] * ps +
          types.values[d] * (types.scale ? types.scale[0] : 1);
      }
    }
    addNorm(x, null, n, hidden, dense32(t("embeddings.LayerNorm.weight")), dense32(t("embeddings.LayerNorm.bias")), eps);
    let h = x;
    for (let i = 0; i < config.layers; i++) {
      const linear = (input, key) => dense(product, input, n, layer(i, `${key}.weight`), dense32(layer(i, `${key}.bias`)));
      const context = attention(linear(h, "attention.self.query"), linear(h, "attention.self.key"),
        linear(h, "attention.self.value"), n, heads, hidden / heads);
      const attended = linear(context, "attention.output.dense");
      addNorm(attended, h, n, hidden, dense32(layer(i, "attention.output.LayerNorm.weight")),
        dense32(layer(i, "attention.output.LayerNorm.bias")), eps);
      const inner = linear(attended, "intermediate.dense");
      for (let j = 0; j < inner.length; j++) inner[j] = inner[j] * 0.5 * (1 + erf(inner[j] / Math.SQRT2));
      const out = linear(inner, "output.dense");
      addNorm(out, attended, n, hidden, dense32(layer(i, "output.LayerNorm.weight")),
        dense32(layer(i, "output.LayerNorm.bias")), eps);
      h = out;
    }
    return { states: h, ids };
  }

  return { hiddenStates, hidden, simd: product !== jsProduct };
}

/** embed(text) -> the sentence vector, as embed.js's onnxruntime-web embedder gives it. */
export function createBertEmbedder({ layers, blocks, encode, pooling, normalize }) {
  const bert = createBert(layers, blocks);
  async function embed(text) {
    const { states, ids } = bert.hiddenStates(encode(text).ids);
    const vector = pool(states, ids.length, bert.hidden, ids.map(() => 1), pooling);
    return normalize ? l2normalize(vector) : vector;
  }
  return { embed, release: () => {} };
}

// Token ids -> a sentence vector with onnxruntime-web: single-threaded WebAssembly,
// the wasm execution provider only. Same maths as mkdocs_semantic/model/onnx.py:
// first output, mean pooling over the attention mask (or the CLS token), L2 norm.

import * as ort from "onnxruntime-web/wasm";
import { l2normalize, pool } from "./pooling.js";

/**
 * `runtime.mjsUrl` is ort-wasm-simd-threaded.mjs (absolute URL); `runtime.wasmBinary`
 * its .wasm bytes, fetched by the caller so that download progress can be shown.
 */
export async function createEmbedder({ model, runtime, encode, pooling, normalize }) {
  if (typeof WebAssembly !== "object") {
    throw new Error("this browser cannot run WebAssembly, which semantic search needs");
  }
  ort.env.wasm.numThreads = 1; // GitHub Pages cannot send the headers that threads need
  ort.env.wasm.proxy = false; // already inside a worker
  ort.env.wasm.wasmPaths = { mjs: runtime.mjsUrl };
  ort.env.wasm.wasmBinary = runtime.wasmBinary;
  ort.env.logLevel = "error";
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ["wasm"],
    graphOptimizationLevel: "all",
  });
  const inputs = new Set(session.inputNames);
  if (!inputs.has("input_ids")) {
    throw new Error(`the model has inputs ${session.inputNames.join(", ")}; it needs input_ids`);
  }
  const output = session.outputNames[0];

  async function embed(text) {
    const { ids, typeIds } = encode(text);
    const shape = [1, ids.length];
    const tensor = (values) => new ort.Tensor("int64", BigInt64Array.from(values, BigInt), shape);
    const mask = ids.map(() => 1);
    const feeds = { input_ids: tensor(ids) };
    if (inputs.has("attention_mask")) feeds.attention_mask = tensor(mask);
    if (inputs.has("token_type_ids")) feeds.token_type_ids = tensor(typeIds);
    const result = await session.run(feeds);
    const out = result[output];
    let vector;
    try {
      vector = out.dims.length === 3
        ? pool(out.data, out.dims[1], out.dims[2], mask, pooling)
        : Float32Array.from(/** @type {Float32Array} */ (out.data).subarray(0, out.dims[1]));
    } finally {
      for (const t of Object.values(result)) t.dispose?.();
    }
    return normalize ? l2normalize(vector) : vector;
  }

  return { embed, release: () => session.release() };
}

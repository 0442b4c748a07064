// Where onnxruntime-web's WebAssembly files sit: beside the worker script, copied
// there by the build. __WASM_BYTES__ is the .wasm size, filled in by the build so the
// progress bar knows the total before the download starts.

/* global __WASM_BYTES__ */
export function runtimeFiles(workerUrl) {
  return {
    mjsUrl: new URL("ort-wasm-simd-threaded.mjs", workerUrl).href,
    wasmUrl: new URL("ort-wasm-simd-threaded.wasm", workerUrl).href,
    wasmBytes: __WASM_BYTES__,
  };
}

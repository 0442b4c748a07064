// What the client finds on the page, or is given by the build, that no library declares:
// for the type check of src/ (tsconfig.json). Nothing here is code.

/** The size of onnxruntime-web's .wasm file in bytes, written in by the build (build.mjs). */
declare const __WASM_BYTES__: number;

interface Window {
  /** Set once search is attached to the page (api/auto.js, api/material.js), so that
   * Material's instant navigation does not attach it again. */
  __mkdocsSemanticSearch?: {
    client?: import("../src/api/semantic.js").SemanticSearch;
    detach: () => void;
  };
  /** Material for MkDocs' observable of the pages it shows (instant navigation). */
  document$?: { subscribe?: (next: () => void) => { unsubscribe(): void } };
  /** Bootstrap's, in the mkdocs theme. */
  bootstrap?: { Modal?: { getOrCreateInstance(element: Element): { hide(): void } } };
}

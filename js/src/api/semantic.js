// Public API of the browser client (an ES module):
//
//   import * as semantic from ".../semantic.js";
//   semantic.init({ manifest: "/semantic/manifest.json" }); // optional on built pages
//   const results = await semantic.search("run code at startup", { topK: 5 });
//
// Nothing is downloaded before `preload()` or the first `search()`.

import { SemanticSearch } from "./client.js";
import { HINTS } from "../engine/opening.js";

export { SemanticSearch };

// Every export as semantic.d.ts declares it (for the type check: tsconfig.json)
/** @typedef {typeof import("./semantic.js")} Api */

/** @type {SemanticSearch | null} */
let current = null;

/**
 * Where the built pages say the bundle is: `<meta name="semantic-search" content=...>`,
 * and the hints that name the files a first query reads first (SemanticSearch):
 * `data-pieces`, `data-keywords`, `data-pages`, `data-words` and `data-index`.
 * @param {Document} [doc]
 * @returns {ReturnType<Api["pageOptions"]>}
 */
export function pageOptions(doc = document) {
  const meta = /** @type {HTMLMetaElement | null} */ (doc.querySelector('meta[name="semantic-search"]'));
  if (!meta) return {};
  return {
    manifest: new URL(meta.content, doc.baseURI).href,
    siteRoot: new URL(meta.dataset.siteRoot ?? "../", doc.baseURI).href,
    ui: meta.dataset.ui,
    ...Object.fromEntries(HINTS.map((key) => [key, meta.dataset[key] ?? null])),
  };
}

/**
 * Sets the bundle to search (`manifest`, `siteRoot`) and `onProgress`; downloads nothing.
 * The page's hints name its own bundle's files: another `manifest` goes without them.
 * @param {import("./semantic.js").ClientOptions} [options]
 * @returns {SemanticSearch}
 */
export function init(options = {}) {
  current?.destroy();
  const page = pageOptions();
  const other = options.manifest && page.manifest && new URL(options.manifest, document.baseURI).href !== page.manifest;
  const own = other ? { siteRoot: page.siteRoot, ui: page.ui } : page;
  current = new SemanticSearch({ ...own, ...options });
  return current;
}

function client() {
  return current ?? init();
}

/** @type {Api["preload"]} */
export const preload = () => client().preload();
/** @type {Api["search"]} */
export const search = (query, options) => client().search(query, options);
/** @type {Api["answer"]} */
export const answer = (query, options) => client().answer(query, options);
/** @type {Api["searchVector"]} */
export const searchVector = (query, options) => client().searchVector(query, options);
/** @type {Api["embed"]} */
export const embed = (query) => client().embed(query);

/** @type {Api["destroy"]} */
export function destroy() {
  current?.destroy();
  current = null;
}

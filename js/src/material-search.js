// What Material's search worker loads on the first real query (the worker itself
// stays small, because Material starts it on every page load): the engine, and
// the conversion of our results to Material's result groups.

import { Engine } from "./engine.js";
import { toItems } from "./material-items.js";
import { describeProgress } from "./progress.js";
import { runtimeFiles } from "./runtime.js";

/**
 * Returns `search(query, show, signal)`: calls `show(items, "keyword")` with keyword
 * results while the query encoder loads (first query only), then `show(items,
 * "hybrid")`; `onProgress(text)`. Aborting `signal` stops the search (the typing has
 * moved on): it rejects with an AbortError.
 */
export function createSearch({ manifestUrl, workerUrl, onProgress }) {
  const engine = new Engine({
    manifestUrl,
    runtime: runtimeFiles(workerUrl),
    onProgress: (progress) => onProgress(describeProgress(progress).text),
  });
  let modelReady = false;
  return async (query, show, signal) => {
    const hybrid = engine.search(query, { signal }).then((results) => {
      modelReady = true;
      return results;
    });
    if (!modelReady) {
      const lexical = engine.search(query, { mode: "lexical", signal });
      lexical.catch(() => {}); // when the hybrid results win, its outcome no longer matters
      const keyword = await Promise.race([lexical, hybrid.then(() => null, () => null)]);
      if (keyword && !modelReady) show(toItems(keyword, query), "keyword");
    }
    show(toItems(await hybrid, query), "hybrid");
  };
}

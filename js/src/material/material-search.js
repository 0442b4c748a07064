// What Material's search worker loads on the first real query (the worker itself
// stays small, because Material starts it on every page load): the engine, and
// the conversion of our results to Material's result groups.

import { Engine } from "../engine/engine.js";
import { toItems } from "./material-items.js";
import { describeProgress } from "../text/progress.js";
import { runtimeFiles } from "../engine/runtime.js";

/**
 * Returns `search(query, show, signal)`: the engine's progressive search, calling
 * `show(items, "keyword")` with keyword results while the query encoder loads, then
 * `show(items, "hybrid")`; `onProgress(text)`. Aborting `signal` stops the search
 * (the typing has moved on): nothing more is shown and it rejects with its reason.
 */
export function createSearch({ manifestUrl, workerUrl, onProgress }) {
  const engine = new Engine({
    manifestUrl,
    runtime: runtimeFiles(workerUrl),
    onProgress: (progress) => onProgress(describeProgress(progress).text),
  });
  return async (query, show, signal) => {
    const results = await engine.search(query, {
      signal,
      onPartial: (keyword) => show(toItems(keyword, query), "keyword"),
    });
    show(toItems(results, query), "hybrid");
  };
}

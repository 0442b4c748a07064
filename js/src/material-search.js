// What Material's search worker loads on the first real query (the worker itself
// stays small, because Material starts it on every page load): the engine, and
// the conversion of our results to Material's result groups.

import { Engine } from "./engine.js";
import { toItems } from "./material-items.js";
import { describeProgress } from "./progress.js";
import { runtimeFiles } from "./runtime.js";

const TOP_K = 10;

/** Returns `search(query) -> Material items`; `onProgress(text)` while loading. */
export function createSearch({ manifestUrl, workerUrl, onProgress }) {
  const engine = new Engine({
    manifestUrl,
    runtime: runtimeFiles(workerUrl),
    onProgress: (progress) => onProgress(describeProgress(progress).text),
  });
  return async (query) => toItems(await engine.search(query, { topK: TOP_K }), query);
}

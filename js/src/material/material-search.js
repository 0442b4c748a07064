// What Material's search worker loads on the first real query (the worker itself
// stays small, because Material starts it on every page load): the engine, and
// the conversion of our results to Material's result groups.

import { Engine } from "../engine/engine.js";
import { toItems } from "./material-items.js";
import { describeProgress } from "../text/progress.js";
import { runtimeFiles } from "../engine/runtime.js";

/**
 * Returns `search(query, show, signal, {asTyped})`: the engine's progressive search as
 * you type (slips corrected, a half-typed last word completed; `asTyped`: neither),
 * calling `show(items, "keyword", reading)` with keyword results while the query
 * encoder loads, then `show(items, "hybrid", reading)`; `onProgress(text)`. Aborting
 * `signal` stops the search (the typing has moved on): nothing more is shown and it
 * rejects with its reason.
 */
export function createSearch({ manifestUrl, workerUrl, opening, openingQuery = "", pieces = null, keywords = null,
  words = null, onProgress }) {
  const engine = new Engine({
    manifestUrl,
    opening,
    openingQuery,
    pieces,
    keywords,
    words,
    runtime: runtimeFiles(workerUrl),
    onProgress: (progress) => onProgress(describeProgress(progress).text),
  });
  return async (query, show, signal, { asTyped = false } = {}) => {
    const { reading, results } = await engine.answer(query, {
      signal,
      typing: true,
      asTyped,
      onPartial: (keyword) => show(toItems(keyword.results, keyword.reading.text), "keyword", keyword.reading),
    });
    show(toItems(results, reading.text), "hybrid", reading);
  };
}

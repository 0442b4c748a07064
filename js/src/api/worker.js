// The module worker behind semantic.js: query encoding and scanning off the main thread.
// Requests: {id, type: "init" | "load" | "answer" | "searchVector" | "embed", ...}, and
// after init {type: "opening", manifest, copy, guessed} (manifest null when the page could
// not fetch it: the engine then asks itself); answers
// {id, type: "done", value} or {id, type: "error", message}; plus {type: "progress"} and
// {type: "encoder", kind} (a progressive site's model took over).
// An answer with `partial: true` may first answer {id, type: "partial", value, ranking}
// (keyword results while the query encoder loads); {type: "abort", id} stops a request.
//
// It is also the engine's one file in a built client: it exports what Material's search
// worker imports (material-search.js), and listens for requests only when it is the
// worker's own script.

import { Engine } from "../engine/engine.js";
import { runtimeFiles } from "../engine/runtime.js";

export { Engine, runtimeFiles };

let engine = null;
let opened = null; // resolves the engine's `opening` with the page's {manifest, copy} (or null)
const running = new Map(); // request id -> AbortController

const handlers = {
  init({ manifestUrl, pieces, keywords, words, openingQuery, idleEncoder }) {
    engine?.destroy();
    opened?.(null);
    engine = new Engine({
      manifestUrl,
      pieces,
      keywords,
      words,
      openingQuery,
      idleEncoder,
      opening: new Promise((resolve) => { opened = resolve; }),
      runtime: runtimeFiles(self.location.href),
      onProgress: (progress) => self.postMessage({ type: "progress", ...progress }),
      onEncoder: (kind) => self.postMessage({ type: "encoder", kind }),
    });
    return true;
  },
  load: () => engine.load(),
  answer: ({ id, query, options, partial }, signal) => engine.answer(query, {
    ...options,
    signal,
    onPartial: partial
      ? (value, { ranking }) => self.postMessage({ id, type: "partial", value, ranking })
      : undefined,
  }),
  searchVector: ({ query, options }) => engine.searchVector(query, options),
  embed: ({ query }) => engine.embed(query), // a typed array (or null), cloned as such
};

async function receive({ data }) {
  const { id, type } = data;
  if (type === "opening") { // what the page fetched for the engine meanwhile (after init)
    opened?.(data.manifest ? { manifest: data.manifest, copy: data.copy, guessed: data.guessed ?? [] } : null);
    opened = null;
    return;
  }
  if (type === "abort") {
    running.get(id)?.abort(new DOMException("the search was superseded", "AbortError"));
    return;
  }
  const controller = new AbortController();
  running.set(id, controller);
  try {
    if (!handlers[type]) throw new Error(`unknown request ${type}`);
    if (type !== "init" && !engine) throw new Error("the worker got a request before init");
    self.postMessage({ id, type: "done", value: await handlers[type](data, controller.signal) });
  } catch (error) {
    self.postMessage({ id, type: "error", message: error.message ?? String(error) });
  } finally {
    running.delete(id);
  }
}

if (globalThis.self?.location?.href === import.meta.url) self.onmessage = receive;

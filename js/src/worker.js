// The module worker behind semantic.js: query encoding and scanning off the main thread.
// Requests: {id, type: "init" | "load" | "search" | "searchVector" | "embed", ...}; answers
// {id, type: "done", value} or {id, type: "error", message}; plus {type: "progress"}.

import { Engine } from "./engine.js";
import { runtimeFiles } from "./runtime.js";

let engine = null;

const handlers = {
  init({ manifestUrl }) {
    engine?.destroy();
    engine = new Engine({
      manifestUrl,
      runtime: runtimeFiles(self.location.href),
      onProgress: (progress) => self.postMessage({ type: "progress", ...progress }),
    });
    return true;
  },
  load: () => engine.load(),
  search: ({ query, options }) => engine.search(query, options),
  searchVector: ({ query, options }) => engine.searchVector(query, options),
  embed: ({ query }) => engine.embed(query), // a typed array (or null), cloned as such
};

self.onmessage = async ({ data }) => {
  const { id, type } = data;
  try {
    if (!handlers[type]) throw new Error(`unknown request ${type}`);
    if (type !== "init" && !engine) throw new Error("the worker got a request before init");
    self.postMessage({ id, type: "done", value: await handlers[type](data) });
  } catch (error) {
    self.postMessage({ id, type: "error", message: error.message ?? String(error) });
  }
};

// A search worker for Material for MkDocs, speaking its protocol (SETUP, READY,
// QUERY, RESULT; see integrations/search/worker/message in Material's source), so
// Material's own result list, highlighting and keyboard handling show our results.
// Built as a classic script: Material starts its worker with `new Worker(url)`.
// The plugin points Material's `__config.search` here, with `?manifest=<url>`.

import { CHANNEL } from "./material-page.js";

const SETUP = 0;
const READY = 1;
const QUERY = 2;
const RESULT = 3;

const here = new URL(self.location.href);
const manifestUrl = new URL(here.searchParams.get("manifest") ?? "manifest.json", here).href;
const channel = new BroadcastChannel(CHANNEL);
let search = null; // loaded on the first query that is not empty
let latest = null; // the newest query not yet answered
let current = null; // the query being answered
let stop = null; // aborts the search of `current`
let busy = false;

function announce(type, text) {
  channel.postMessage({ type, text, query: latest ?? current });
}

// Material sends SETUP with its own index once it has downloaded it. The plugin keeps
// it from downloading that index (it drops the search form's name, which Material
// looks for first), so this worker is ready at once, and ready again on a SETUP that
// a customized page may still send (Material listens for the first READY only).
self.postMessage({ type: READY });

self.onmessage = ({ data }) => {
  if (data.type === SETUP) {
    self.postMessage({ type: READY });
  } else if (data.type === QUERY) {
    latest = data.data;
    stop?.abort(); // its results would not be shown: stop its work for the newer query
    if (!busy) drain();
  }
};

/** Answers `query` through `show(items)`, keyword results first while the model loads. */
async function answer(query, show, signal) {
  if (!query.trim()) return show([]);
  if (!search) {
    const { createSearch } = await import("./material-search.js");
    search = createSearch({
      manifestUrl,
      workerUrl: here.href,
      onProgress: (text) => announce("progress", text),
    });
  }
  return search(query, show, signal);
}

async function drain() {
  busy = true;
  while (latest !== null) {
    current = latest;
    latest = null;
    const controller = new AbortController();
    stop = controller;
    try {
      // A newer query supersedes this one: its results are then not shown.
      await answer(current, (items, ranking = "hybrid") => {
        if (latest !== null) return;
        self.postMessage({ type: RESULT, data: { items } });
        channel.postMessage({ type: "results", ranking, query: current });
      }, controller.signal);
    } catch (error) {
      if (!controller.signal.aborted) announce("error", `Semantic search is unavailable: ${error.message}`);
    }
  }
  busy = false;
}

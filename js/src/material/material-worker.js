// A search worker for Material for MkDocs, speaking its protocol (SETUP, READY,
// QUERY, RESULT; see integrations/search/worker/message in Material's source), so
// Material's own result list, highlighting and keyboard handling show our results.
// Built as a classic script: Material starts its worker with `new Worker(url)`.
// The plugin points Material's `__config.search` here, with `?manifest=<url>` (and
// the hints that name the files a first query reads first: `&pieces=<hash>`, the keyed
// word piece files; `&keywords=<count>:<hashes>`, the keyword shards; `&pages=<hash>`, the
// page table; `&words=<count>:<hashes>`, the word rows; `&index=<hash>`, the vector index).
//
// Material sends a QUERY when a key is released; our page script (material-page.js)
// also sends the box's text on every input event, over a BroadcastChannel, so the
// search starts when the key goes down. Each new text aborts the search before it;
// only the newest text's answers are posted, each announced on the channel first
// (query, ranking, each group's locations), so the page can tell which text a list is for.

import { CHANNEL, sameQuery } from "./channel.js";
import { HINTS, fetchOpening } from "../engine/opening.js";

const SETUP = 0;
const READY = 1;
const QUERY = 2;
const RESULT = 3;

const here = new URL(self.location.href);
const manifestUrl = new URL(here.searchParams.get("manifest") ?? "manifest.json", here).href;
// the page's hints (semantic.js pageOptions)
const hints = Object.fromEntries(HINTS.map((key) => [key, here.searchParams.get(key)]));
const channel = new BroadcastChannel(CHANNEL);
let search = null; // a promise of the engine's search, loaded on the first query that is not empty
let current = null; // the newest text's search: {query, controller}

function announce(type, text) {
  channel.postMessage({ type, text, query: current?.query ?? "" });
}

// Material sends SETUP with its own index once it has downloaded it. The plugin keeps
// it from downloading that index (it drops the search form's name, which Material
// looks for first), so this worker is ready at once, and ready again on a SETUP that
// a customized page may still send (Material listens for the first READY only).
self.postMessage({ type: READY });

self.onmessage = ({ data }) => {
  if (data.type === SETUP) self.postMessage({ type: READY });
  else if (data.type === QUERY) start(data.data);
};
channel.onmessage = ({ data }) => {
  if (data.type === "typed") start(data.text, { asTyped: Boolean(data.asTyped) });
};

/**
 * Starts answering `query` unless it is the text being answered already; `asTyped`:
 * the reader asked for its words as typed ("search instead for"), kept for that text.
 */
function start(query, { asTyped = false } = {}) {
  const same = current && sameQuery(current.query, query);
  if (same && (current.asTyped || !asTyped)) return; // the same text, typed and then sent
  current?.controller.abort();
  const mine = { query: query.trim(), asTyped: asTyped || Boolean(same && current.asTyped),
    controller: new AbortController() };
  current = mine;
  answer(mine).catch((error) => {
    if (current === mine) announce("error", `Semantic search is unavailable: ${error.message}`);
  });
}

async function answer(mine) {
  const show = (items, ranking, reading = null) => {
    if (current !== mine) return; // a newer text supersedes this one
    const locations = items.map((group) => group.map((document) => document.location));
    // what the page says above the list: the query as searched, when a slip was corrected
    const searched = reading?.changes.some((change) => change.kind === "corrected") ? reading.text : null;
    channel.postMessage({ type: "results", ranking, query: mine.query, locations, searched });
    self.postMessage({ type: RESULT, data: { items } });
  };
  if (!mine.query) return show([], "hybrid");
  search ??= loadSearch(mine.query);
  return (await search)(mine.query, show, mine.controller.signal, { asTyped: mine.asTyped });
}

/**
 * The engine's search, loaded once (a failed load is tried again by the next query);
 * `query`: the first query, whose word piece files come beside the catalog.
 */
async function loadSearch(query) {
  try {
    // material-search.js imports the engine from the built client's worker.js (js/build.mjs):
    // asked for at once, both arrive in one round trip rather than one after the other;
    // the manifest and catalog come beside them.
    const opening = fetchOpening(manifestUrl, { query, ...hints });
    opening.catch(() => {}); // the engine asks again
    const [{ createSearch }] = await Promise.all([
      import("./material-search.js"), import(new URL("worker.js", here).href)]);
    return createSearch({
      manifestUrl,
      opening,
      openingQuery: query,
      pieces: hints.pieces,
      keywords: hints.keywords,
      words: hints.words,
      workerUrl: here.href,
      onProgress: (text) => announce("progress", text),
    });
  } catch (error) {
    search = null;
    throw error;
  }
}

// What Material's search worker (material-worker.js) and the page script beside it
// (material-page.js) share: the BroadcastChannel they talk over, and when two texts
// ask the same. The worker imports this and not the page script, which works on the DOM.
//
// Page -> worker: {type: "typed", text} on every input event; {type: "typed", text,
// asTyped: true} when the reader asks for the words as typed.
// Worker -> page: {type: "results", ranking, query, locations, searched} before each
// answer it posts to Material (`searched`: the query as searched when a slip was
// corrected, else null); {type: "progress" | "error", text, query}.

export const CHANNEL = "mkdocs-semantic-search";

/** Whether two texts ask the same: Material trims what it sends. */
export function sameQuery(a, b) {
  return a.trim() === b.trim();
}

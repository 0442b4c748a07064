// The fragments a query asks for before its final ranking: those of the pages each signal
// puts first, so that the results' excerpts are on their way beside the candidates' rows.

/**
 * Pages whose fragments a query asks for before its final ranking, from each signal's
 * order, and the bytes of them it may ask for (on fastapi-docs' queries this held every
 * page shown 49 times in 50, at 30 kB sent against 12 kB shown: bench/query_rounds.py).
 */
export const GUESSED_PAGES = 10;
export const GUESSED_BYTES = 64_000;

/** The first `count` distinct pages of the chunks `order` (best first). */
export function firstPages(order, pageOfChunk, count) {
  const pages = new Set();
  for (const id of order) {
    pages.add(pageOfChunk[id]);
    if (pages.size >= count) break;
  }
  return [...pages];
}

/**
 * Looks up the fragments files of `pages` all at once (`find(page)`: its shard entry
 * `{name, bytes}`, which on a large site reads a directory first), then asks, with
 * `ask(entry)`, for those not `asked(name)` yet that fit in `budget` bytes together, in
 * the pages' order (a long page's file may be large; it is left for the final ranking).
 * A lookup that fails is skipped: its error surfaces where the file is read.
 */
export async function askGuessedFragments(pages, { find, asked, ask, budget = GUESSED_BYTES }) {
  const entries = await Promise.all(pages.map((page) => find(page).catch(() => null)));
  let left = budget;
  for (const entry of entries) {
    if (!entry || asked(entry.name) || entry.bytes > left) continue;
    left -= entry.bytes;
    ask(entry);
  }
}

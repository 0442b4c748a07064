// The fragments a query asks for before its final ranking: those of the pages each signal
// puts first, so that the results' excerpts are on their way beside the candidates' rows.

/**
 * Pages whose fragments a query asks for before its final ranking, from each signal's
 * order, and how many of their chunks it may ask for (a page's file sends about 135-150
 * bytes a chunk: some 55 kB). docs/decisions/guessed-excerpts.md weighs other counts.
 */
export const GUESSED_PAGES = 10;
export const GUESSED_CHUNKS = 400;

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
 * Looks up the fragments files of `pages` all at once (`find(page)`: the entries `{name}`
 * of the files describing it: its own, or a long page's parts), then asks, with
 * `ask(entry)`, for those not `asked(name)` yet of the pages whose `cost(page)` (their
 * chunks) fit in `budget` together, in the pages' order. A long page that does not fit
 * (release notes) is left for the final ranking, which reads only the parts it shows. A
 * page whose files were all asked for costs nothing; a lookup that fails is skipped: its
 * error surfaces where the file is read.
 */
export async function askGuessedFragments(pages, { find, asked, ask, cost, budget = GUESSED_CHUNKS }) {
  const found = await Promise.all(pages.map((page) => find(page).catch(() => null)));
  let left = budget;
  found.forEach((entries, i) => {
    const wanted = (entries ?? []).filter((entry) => entry && !asked(entry.name));
    const spent = wanted.length ? cost(pages[i]) : Infinity;
    if (spent > left) return;
    left -= spent;
    for (const entry of wanted) ask(entry);
  });
}

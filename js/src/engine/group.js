// Results in rank order -> pages in the order of their best section; and a result's link.

/** A section's link: its page's URL and its anchor, if any (chunk.py `href`). */
export const href = (url, anchor) => (anchor ? `${url}#${anchor}` : url);

export function groupByPage(results, pageOf = (result) => result.url) {
  const groups = new Map();
  for (const result of results) {
    const page = pageOf(result);
    if (!groups.has(page)) groups.set(page, { url: page, title: result.title, hits: [] });
    groups.get(page).hits.push(result);
  }
  return [...groups.values()];
}

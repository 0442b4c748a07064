// Results in rank order -> pages in the order of their best section.
export function groupByPage(results, pageOf = (result) => result.url) {
  const groups = new Map();
  for (const result of results) {
    const page = pageOf(result);
    if (!groups.has(page)) groups.set(page, { url: page, title: result.title, hits: [] });
    groups.get(page).hits.push(result);
  }
  return [...groups.values()];
}

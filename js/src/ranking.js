// Page-aware fusion of rankings: the spec (and its reasons) is mkdocs_semantic/ranking.py.

export const PAGE_DEPTH = 100;
export const PER_PAGE = 3;
const TYPICAL_QUANTILE = 0.9;
const SIZE_MARGIN = 4;

/** Per-page size prior: 1 except for pages several times larger than nearly all others. */
export function sizePriors(pageOfChunk, pages) {
  const sizes = new Array(pages).fill(0);
  for (const page of pageOfChunk) sizes[page]++;
  const present = sizes.filter((n) => n > 0).sort((a, b) => a - b);
  if (!present.length) return sizes.map(() => 1);
  const typical = Math.max(1, present[Math.floor(TYPICAL_QUANTILE * (present.length - 1))]);
  return sizes.map((n) => Math.min(1, Math.sqrt((SIZE_MARGIN * typical) / Math.max(n, 1))));
}

/** Chunk numbers passing `eligible(id)`, score descending, ties by number. */
export function chunkOrder(scores, eligible) {
  const ids = [];
  for (let id = 0; id < scores.length; id++) if (eligible(id)) ids.push(id);
  return ids.sort((a, b) => scores[b] - scores[a] || a - b);
}

/**
 * Fuses each signal's chunk order into `[{chunk, pageScore, sectionScore}]`, best first.
 * `sections[chunk]` is the chunk's section number (its first piece's chunk number): of
 * the pieces of one long section only the best is listed.
 */
export function fuse(orders, { pageOfChunk, sections, priors, boosts, rrfK, topK }) {
  const pageScore = new Map();
  const sectionScore = new Map();
  for (const order of orders) {
    const seenPages = new Set();
    order.forEach((chunk, index) => {
      const rank = index + 1;
      sectionScore.set(chunk, (sectionScore.get(chunk) ?? 0) + 1 / (rrfK + rank));
      const page = pageOfChunk[chunk];
      if (!seenPages.has(page) && seenPages.size < PAGE_DEPTH) {
        seenPages.add(page);
        const pageRank = seenPages.size;
        pageScore.set(page, (pageScore.get(page) ?? 0) + priors[page] / (rrfK + pageRank / boosts[page]));
      }
    });
  }
  const sectionsOf = new Map();
  const bySection = [...sectionScore.keys()].sort(
    (a, b) => sectionScore.get(b) - sectionScore.get(a) || a - b,
  );
  const listed = new Set(); // one piece per long section
  for (const chunk of bySection) {
    const page = pageOfChunk[chunk];
    const key = sections[chunk];
    if (listed.has(key)) continue;
    listed.add(key);
    if (!sectionsOf.has(page)) sectionsOf.set(page, []);
    sectionsOf.get(page).push(chunk);
  }
  const pagesInOrder = [...pageScore.keys()].sort(
    (a, b) => pageScore.get(b) - pageScore.get(a) || a - b,
  );
  const results = [];
  for (const page of pagesInOrder) {
    for (const chunk of sectionsOf.get(page).slice(0, PER_PAGE)) {
      results.push({ chunk, pageScore: pageScore.get(page), sectionScore: sectionScore.get(chunk) });
      if (results.length === topK) return results;
    }
  }
  return results;
}

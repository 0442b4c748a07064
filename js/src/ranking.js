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
 * the pieces of one long section only the best is listed. Every score is the same sum,
 * in the same order, as ranking.py's: signal by signal, 0 plus each term. Section scores
 * are ordered only on the pages listed, as ranking.py does.
 */
export function fuse(orders, { pageOfChunk, sections, priors, boosts, rrfK, topK }) {
  const pages = priors.length;
  const pageScore = new Float64Array(pages);
  const pageSeen = new Uint8Array(pages);
  const sectionScore = new Float64Array(pageOfChunk.length); // 0: no signal ranked it
  for (const order of orders) {
    const seenPages = new Uint8Array(pages);
    let pageRank = 0;
    for (let index = 0; index < order.length; index++) {
      const chunk = order[index];
      sectionScore[chunk] += 1 / (rrfK + index + 1);
      const page = pageOfChunk[chunk];
      if (!seenPages[page] && pageRank < PAGE_DEPTH) {
        seenPages[page] = 1;
        pageSeen[page] = 1;
        pageRank += 1;
        pageScore[page] += priors[page] / (rrfK + pageRank / boosts[page]);
      }
    }
  }
  const pagesInOrder = [];
  for (let page = 0; page < pages; page++) if (pageSeen[page]) pagesInOrder.push(page);
  pagesInOrder.sort((a, b) => pageScore[b] - pageScore[a] || a - b);
  const starts = pageStarts(pageOfChunk, pages);
  const results = [];
  for (const page of pagesInOrder) {
    const ranked = [];
    for (let chunk = starts[page]; chunk < starts[page + 1]; chunk++) {
      if (sectionScore[chunk] > 0) ranked.push(chunk);
    }
    ranked.sort((a, b) => sectionScore[b] - sectionScore[a] || a - b);
    const listed = new Set(); // one piece per long section
    for (const chunk of ranked) {
      if (listed.has(sections[chunk])) continue;
      listed.add(sections[chunk]);
      results.push({ chunk, pageScore: pageScore[page], sectionScore: sectionScore[chunk] });
      if (results.length === topK) return results;
      if (listed.size === PER_PAGE) break;
    }
  }
  return results;
}

/** First chunk of each page (and the chunk count last); chunks are in page order. */
function pageStarts(pageOfChunk, pages) {
  const starts = new Int32Array(pages + 1).fill(pageOfChunk.length);
  for (let chunk = pageOfChunk.length - 1; chunk >= 0; chunk--) starts[pageOfChunk[chunk]] = chunk;
  for (let page = pages - 1; page >= 0; page--) starts[page] = Math.min(starts[page], starts[page + 1]);
  return starts;
}

// Page-aware fusion of rankings: the spec (and its reasons) is mkdocs_semantic/search/ranking.py.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { casedWords } from "../text/cased-words.js";

// Written once for search/ranking.py and this file in constants.json. VECTOR_CHUNKS: the vector
// signal's first chunks that take part in the fusion.
export const { PAGE_DEPTH, VECTOR_CHUNKS, PER_PAGE, NAMED_HEADINGS } = constants;
const { TYPICAL_QUANTILE, SIZE_MARGIN, NAME_WORDS, NAME_KEYWORD_WEIGHT } = constants;

// A word shaped like code (search/ranking.py's CODE_SHAPED), and the quotes around it.
const CODE_SHAPED = /[_.:-][A-Za-z0-9_]|^[-!@$<]|[a-z][A-Z]|[A-Z]{2}[a-z]|^[A-Z][A-Z0-9_]+$|\(\)/;
const QUOTES = /^[`'"*]+|[`'"*]+$/g;

/** Whether `query` names something: at most NAME_WORDS words, one shaped like code. */
export function namesAThing(query) {
  const words = query.split(/\s+/).filter(Boolean);
  return words.length > 0 && words.length <= NAME_WORDS
    && words.some((word) => CODE_SHAPED.test(word.replace(QUOTES, "")));
}

/** The keyword signal's weight in the fusion for `query` (search/ranking.py, step 4). */
export const keywordWeight = (query) => (namesAThing(query) ? NAME_KEYWORD_WEIGHT : 1);

const NAME_QUOTES = /^[`'"]+|[`'"]+$/g;
/** `text`'s words (split at \s, as search/ranking.py's SPACES), one space between them. */
const words = (text) => text.split(/\s+/).filter(Boolean).join(" ");

/**
 * The name a query types, for step 8 of search/ranking.py: when it names something
 * (namesAThing, or casedWords), the query without quotes around it, a trailing `()`,
 * backticks (headings are read without theirs) or extra spaces; null for any other query.
 */
export function headingName(query) {
  if (!(namesAThing(query) || casedWords(query).length)) return null;
  let inner = words(query).replace(NAME_QUOTES, "");
  if (inner.endsWith("()")) inner = inner.slice(0, -2);
  return words(inner.replaceAll("`", "")) || null;
}

/** Whether `heading`, its backticks dropped, writes `name` as typed, as whole words. */
export function writesName(heading, name) {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
  return new RegExp(`(?<![A-Za-z0-9_-])${escaped}(?![A-Za-z0-9_-])`).test(heading.replaceAll("`", ""));
}

/** A section's own heading: the last of its heading path, or its page's title. */
export const sectionHeading = (title, path) => (path.length ? path[path.length - 1] : title);

/**
 * Step 8's sections: of `order`'s first NAMED_HEADINGS chunks, whose headings
 * (sectionHeading) `headings` gives in the same order, those that write `name`.
 */
export function namedSections(order, headings, name) {
  if (name === null) return [];
  return order.slice(0, NAMED_HEADINGS).filter((chunk, i) => writesName(headings[i], name));
}

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
 * Fuses the signals `[{scores, order, floor, ceiling, weight}]` (`order` from chunkOrder;
 * a page's score in a signal is (its best chunk's score - floor) / (ceiling - floor),
 * clipped to 0-1, `ceiling` null meaning the score of the signal's first page; `weight`
 * 1 unless given) into
 * `[{chunk, pageScore, sectionScore}]`, best first; both scores are relevances in 0-1.
 * `sections[chunk]` is the chunk's section number (its first piece's chunk number): of
 * the pieces of one long section only the best is listed. `minScore` (or null) drops
 * pages below that relevance. `named`: step 8's sections (namedSections): the
 * best-ranked page holding one goes first, with the first page's relevance, and its
 * best-ranked such section first on it, with that page's best section's. Every score is the same
 * arithmetic, in the same order, as search/ranking.py's: weight * min(1, max(0, (score - floor) / (ceiling - floor))), sums
 * signal by signal from 0, then / the sum of the weights * prior * boost. Section scores are ordered only on
 * the pages listed.
 */
export function fuse(signals, { pageOfChunk, sections, priors, boosts, topK, minScore = null, named = [] }) {
  const pages = priors.length;
  const takingPart = signals.filter((signal) => signal.order.length > 0);
  const pageSum = new Float64Array(pages);
  const pageSeen = new Uint8Array(pages);
  const sectionSum = new Float64Array(pageOfChunk.length);
  const chunkSeen = new Uint8Array(pageOfChunk.length);
  for (const { scores, order, floor, ceiling = null, weight = 1 } of takingPart) {
    const listed = []; // [page, its best chunk's score], the first PAGE_DEPTH pages
    const seenPages = new Uint8Array(pages);
    for (const chunk of order) {
      const page = pageOfChunk[chunk];
      if (seenPages[page]) continue;
      seenPages[page] = 1;
      listed.push([page, scores[chunk]]);
      if (listed.length === PAGE_DEPTH) break;
    }
    const span = (ceiling ?? listed[0][1]) - floor;
    for (const [page, best] of listed) {
      pageSum[page] += span > 0 ? weight * unit((best - floor) / span) : weight;
      pageSeen[page] = 1;
    }
    for (const chunk of order) {
      sectionSum[chunk] += span > 0 ? weight * unit((scores[chunk] - floor) / span) : weight;
      chunkSeen[chunk] = 1;
    }
  }
  let count = 0;
  for (const { weight = 1 } of takingPart) count += weight;
  const key = new Float64Array(pages);
  const pagesInOrder = [];
  for (let page = 0; page < pages; page++) {
    if (!pageSeen[page]) continue;
    key[page] = pageSum[page] / count * priors[page] * boosts[page];
    pagesInOrder.push(page);
  }
  pagesInOrder.sort((a, b) => key[b] - key[a] || a - b);
  const ordered = named.filter((chunk) => chunkSeen[chunk]);
  const namedPages = new Set(ordered.map((chunk) => pageOfChunk[chunk]));
  const leadPage = pagesInOrder.find((page) => namedPages.has(page)) ?? -1;
  const topScore = pagesInOrder.length ? Math.min(1, key[pagesInOrder[0]]) : 0;
  if (leadPage >= 0) {
    pagesInOrder.splice(0, pagesInOrder.length, leadPage, ...pagesInOrder.filter((p) => p !== leadPage));
  }
  const starts = pageStarts(pageOfChunk, pages);
  const results = [];
  for (const page of pagesInOrder) {
    const pageScore = page === leadPage ? topScore : Math.min(1, key[page]);
    if (minScore !== null && pageScore < minScore) break; // relevance only falls from here
    let ranked = [];
    for (let chunk = starts[page]; chunk < starts[page + 1]; chunk++) {
      if (chunkSeen[chunk]) ranked.push(chunk);
    }
    const own = (chunk) => sectionSum[chunk] / count;
    ranked.sort((a, b) => own(b) - own(a) || a - b);
    let section = own;
    if (page === leadPage) [ranked, section] = leadFirst(ranked, own, ordered);
    const listed = new Set(); // one piece per long section
    for (const chunk of ranked) {
      if (listed.has(sections[chunk])) continue;
      listed.add(sections[chunk]);
      results.push({ chunk, pageScore, sectionScore: section(chunk) });
      if (results.length === topK) return results;
      if (listed.size === PER_PAGE) break;
    }
  }
  return results;
}

/**
 * Step 8 on its page: `ranked` (its sections, best first) with the best-ranked `named`
 * section first, and the section scores (`own`) with that one given the first one's.
 * @param {number[]} ranked
 * @param {(chunk: number) => number} own
 * @param {number[]} named
 * @returns {[number[], (chunk: number) => number]}
 */
function leadFirst(ranked, own, named) {
  const lead = ranked.find((chunk) => named.includes(chunk));
  const best = own(ranked[0]);
  return [[lead, ...ranked.filter((chunk) => chunk !== lead)],
    (chunk) => (chunk === lead ? best : own(chunk))];
}

/** Clipped to 0-1 (max, then min: search/ranking.py's _unit). */
const unit = (x) => Math.min(1, Math.max(0, x));

/** First chunk of each page (and the chunk count last); chunks are in page order. */
function pageStarts(pageOfChunk, pages) {
  const starts = new Int32Array(pages + 1).fill(pageOfChunk.length);
  for (let chunk = pageOfChunk.length - 1; chunk >= 0; chunk--) starts[pageOfChunk[chunk]] = chunk;
  for (let page = pages - 1; page >= 0; page--) starts[page] = Math.min(starts[page], starts[page + 1]);
  return starts;
}

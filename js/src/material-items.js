// Our ranked sections -> the result groups Material's search list renders.

import { groupByPage, href } from "./group.js";
import { matchedTerms, queryTerms, splitMatches } from "./highlight.js";

/** Our ranked sections -> Material's groups: the page first, then its sections. */
export function toItems(results, query) {
  const terms = queryTerms(query);
  return groupByPage(results).map((group) => {
    const top = group.hits.find((hit) => !hit.anchor);
    const hasSections = group.hits.some((hit) => hit.anchor);
    const page = {
      location: group.url,
      title: markup(group.title, terms),
      text: top ? markup(top.excerpt, terms) : "",
      // Material's Enter opens the best-scored link of the first group: the page
      // heading leads there only when no section of it matched.
      score: top && !hasSections ? sectionScore(top) : 0,
      terms: termFlags(`${group.title} ${top?.excerpt ?? ""}`, terms),
    };
    const sections = group.hits.filter((hit) => hit.anchor).map((hit) => {
      const heading = hit.path.length ? hit.path.join(" › ") : hit.title;
      return {
        location: href(hit.url, hit.anchor),
        title: markup(heading, terms),
        text: markup(hit.excerpt, terms),
        score: sectionScore(hit),
        terms: termFlags(`${heading} ${hit.excerpt}`, terms),
      };
    });
    return [page, ...sections];
  });
}

// All sections of a page share its page score; their own fused score orders them.
const sectionScore = (hit) => hit.sectionScore ?? hit.score;

// Material inserts title and text as HTML. This is the one place where page text
// becomes markup: every piece is escaped, and only our own <mark> tags are added.
function markup(text, terms) {
  return splitMatches(text, terms)
    .map((piece) => piece.match ? `<mark data-md-highlight>${escapeHtml(piece.text)}</mark>` : escapeHtml(piece.text))
    .join("");
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// Only terms found are listed: Material strikes through terms marked false, which
// would be noise for results found by meaning.
function termFlags(text, terms) {
  return Object.fromEntries([...matchedTerms(text, terms)].map((term) => [term, true]));
}

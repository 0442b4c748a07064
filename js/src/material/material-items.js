// Our ranked sections -> the result groups Material's search list renders.

import { hitWindow } from "../text/excerpt.js";
import { groupByPage, href } from "../engine/group.js";
import { matchedTerms, queryTerms, splitMatches } from "../text/highlight.js";

/**
 * Our ranked sections -> Material's groups: the page first, then its sections.
 *
 * `terms` lists only the query's terms a result holds: Material strikes through terms
 * marked false, which would be noise for results found by meaning. Its
 * search.highlight puts the terms marked true into the link's `?h=`, an empty one when
 * there are none: a result found by meaning alone lists the query's terms instead, which
 * the opened page marks where it has them.
 */
export function toItems(results, query) {
  const terms = queryTerms(query);
  // What `?h=` carries when a result holds none of the terms: the terms, or for a query
  // of stop words only, its words.
  const words = terms.length ? terms : query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const termFlags = (text) => {
    const found = matchedTerms(text, terms);
    return Object.fromEntries([...(found.size ? found : words)].map((term) => [term, true]));
  };
  return groupByPage(results).map((group) => {
    // The page's lead, or a part of the page under no heading but the page title.
    const top = group.hits.find((hit) => !hit.path.length);
    const hasSections = group.hits.some((hit) => hit !== top);
    const topShown = top ? hitWindow(top, terms) : [];
    const page = {
      location: group.url,
      title: markup(group.title, terms),
      text: top ? excerptMarkup(topShown, terms) : "",
      // Material's Enter opens the best-scored link of the first group: the page
      // heading leads there only when no section of it matched.
      score: top && !hasSections ? sectionScore(top) : 0,
      terms: termFlags(`${group.title} ${plainText(topShown)}`),
    };
    const sections = group.hits.filter((hit) => hit !== top).map((hit) => {
      const heading = hit.path.length ? hit.path.join(" › ") : hit.title;
      const shown = hitWindow(hit, terms);
      return {
        location: href(hit.url, hit.anchor),
        title: markup(heading, terms),
        text: excerptMarkup(shown, terms),
        score: sectionScore(hit),
        terms: termFlags(`${heading} ${plainText(shown)}`),
      };
    });
    return [page, ...sections];
  });
}

// All sections of a page share its page score; their own fused score orders them.
const sectionScore = (hit) => hit.sectionScore ?? hit.score;

// Material inserts title and text as HTML. This is the one place where page text
// becomes markup: every piece is escaped, and only our own <mark>, <code> and <p> are added.
function markup(text, terms) {
  return splitMatches(text, terms)
    .map((piece) => piece.match ? `<mark data-md-highlight>${escapeHtml(piece.text)}</mark>` : escapeHtml(piece.text))
    .join("");
}

// The excerpt window (hitWindow), code in <code>, in a paragraph as Material shows a
// section's text.
function excerptMarkup(parts, terms) {
  const html = parts.map((part) => part.code ? `<code>${markup(part.text, terms)}</code>` : markup(part.text, terms));
  return `<p>${html.join("")}</p>`;
}

const plainText = (parts) => parts.map((part) => part.text).join("");

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}


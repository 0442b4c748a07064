// Names typed with capitals (mkdocs_semantic/bundle/cased_forms.py): the words a query
// that names something types with deliberate capitals, which the keyword index's forms
// answer (engine/lexical.js).

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { TOKEN } from "./terms.js";

/** Whether `text` holds a letter that lowercasing changes. */
const capitalized = (text) => text !== text.toLowerCase();

/**
 * In a query of at most NAME_WORDS tokens, those with a capital after their first letter,
 * or the one token of a one-token query with any capital. Distinct, in order.
 */
export function casedWords(query) {
  const tokens = [...String(query).matchAll(TOKEN)].map(([raw]) => raw);
  if (tokens.length === 1) return capitalized(tokens[0]) ? [tokens[0]] : [];
  if (tokens.length > constants.NAME_WORDS) return [];
  return [...new Set(tokens.filter((token) => capitalized([...token].slice(1).join(""))))];
}

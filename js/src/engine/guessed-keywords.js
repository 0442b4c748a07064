// The keyword shards a first query reads, named by the page before the engine and the
// catalog are there. The page's hint (`<count>:<hashes>`, from the catalog the build
// wrote) names the keyed list: shard n is lexical/lex<n>.<its hash>.json and holds the
// terms whose bucketOf is n (mkdocs_semantic/bundle/shard_lists.py). The stemmer here is a
// small Porter stemmer standing in for the engine's Snowball one (25 kB): they agree on
// nearly every word. A guess only: a shard guessed in vain costs its bytes, and one the
// guess missed is read a step later, when the engine asks for it.

import { stemmer } from "stemmer";
import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { LEXICAL_STEM, bucketOf, keyedShardName } from "../bundle/bundle.js";
import { casedWords } from "../text/cased-words.js";
import { analyzeWith } from "../text/terms.js";

const STOPWORDS = new Set(constants.STOPWORDS.split(/\s+/).filter(Boolean)); // as Python's split()
const KEYWORDS_HINT = /^([1-9][0-9]{0,9}):([0-9a-f]+)$/;
const PAGES_HINT = /^[0-9a-f]{16}$/;

// Porter's algorithm as published (Snowball's "porter") keeps ...bli and ...logi, which
// `stemmer` turns into ...ble and ...log ("possibly": possibli, not possibl).
const KEPT_ENDING = /(?:[^a]bl|log)(?:y|ies)$/;

/**
 * The stem of a lowercase word as Snowball's Porter makes it, from `stemmer`: except
 * that Snowball also takes the s off a word of two letters ("ls" -> "l") and keeps the
 * endings above.
 */
export function guessStem(word) {
  if (word.length <= 2 && word.endsWith("s") && word !== "ss") return word.slice(0, -1);
  if (KEPT_ENDING.test(word)) return word.replace(/(?:y|ies)$/, "i");
  return stemmer(word);
}

/**
 * The keyed list a page's `keywords` hint names, `{count, hashes}`, or null for none or a
 * malformed one.
 */
export function keywordsHint(hint) {
  const match = typeof hint === "string" ? KEYWORDS_HINT.exec(hint) : null;
  const count = match ? Number(match[1]) : 0;
  return match && match[2].length === count * constants.SHARD_HASH_CHARS ? { count, hashes: match[2] } : null;
}

/** The page table a page's `pages` hint names, or null for none or a malformed one. */
export function pageTableGuess(hint) {
  return typeof hint === "string" && PAGES_HINT.test(hint) ? `pages/pages.${hint}.bin` : null;
}

/**
 * The names of the keyword shards `text`'s terms and cased words fall into, in the list
 * `hint` names.
 */
export async function guessedKeywordFiles(text, hint) {
  const list = keywordsHint(hint);
  if (!list || !globalThis.crypto?.subtle) return [];
  const terms = [...new Set([...analyzeWith(String(text), STOPWORDS, guessStem), ...casedWords(text)])];
  const buckets = await Promise.all(terms.map((term) => bucketOf(term, list.count)));
  return [...new Set(buckets)].map((n) => keyedShardName(LEXICAL_STEM, n, list.hashes));
}

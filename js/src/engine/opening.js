// What every search opens with: the manifest and, beside it, the catalog under its stable
// name. A page (or Material's worker) asks for them while the engine's own code is still
// on its way, and hands them to the engine: one round trip fewer before a first query.
// Given the query and the page's hints (its meta tag names the keyed word piece files,
// the keyword shards, the page table, the word rows and the vector index), the files the
// query would read first come beside them too, a step before the catalog could name them.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { fetchBytes, fetchCatalogCopy, fetchManifest, payloadUrl } from "../bundle/fetch.js";
import { unlistedLimit } from "../bundle/bundle.js";
import { guessedPieceFiles, piecesHash } from "../bundle/piece-names.js";
import { guessedKeywordFiles, pageTableGuess } from "./guessed-keywords.js";
import { guessedWordFiles, vectorIndexGuess } from "./guessed-words.js";
import { mayPrefetch } from "./prefetch.js";

/**
 * The page's hints, as its meta tag's `data-` attributes and Material's worker URL's
 * parameters name them (mkdocs_semantic/pages/hints.py PageHints).
 */
export const HINTS = ["pieces", "keywords", "pages", "words", "index"];

/**
 * The names of the files a first `query` reads that the page's hints name: `pieces`
 * (the hash of the keyed word piece files), `keywords` (`<count>:<hashes>` of the keyword
 * shards), `pages` (the page table's hash), `words` (`<count>:<hashes>` of the word rows)
 * and `index` (the vector index's hash); each optional. With word rows, a word needs
 * its pieces only if the site lacks it; the rows tell which a step later, so the pieces
 * come beside them (a word the site has costs its pieces' bytes) when `guessPieces`: by
 * default unless the reader saves data or is on a 2G link.
 */
export async function guessedFiles(query, { pieces = null, keywords = null, pages = null, words = null,
  index = null } = {}, guessPieces = mayPrefetch(globalThis.navigator)) {
  const hash = piecesHash(pieces);
  const table = pageTableGuess(pages);
  const vectors = vectorIndexGuess(index);
  const rows = await guessedWordFiles(query, words);
  return [
    ...(table ? [table] : []),
    ...(vectors ? [vectors] : []),
    ...await guessedKeywordFiles(query, keywords),
    ...rows,
    ...(hash && (!rows.length || guessPieces) ? guessedPieceFiles(query, hash) : []),
  ];
}

/**
 * The manifest (parsed JSON), the catalog's copy (an ArrayBuffer, or null) and the
 * guessed files that came (`[{name, buffer}]`) of the bundle at `manifestUrl`:
 * `{manifest, copy, guessed}`. `query`, `guessPieces` and `hints` (guessedFiles): optional.
 */
export async function fetchOpening(manifestUrl, { query = "", guessPieces = undefined, ...hints } = {}) {
  // asked for in the order they are needed: the manifest checks the catalog, which
  // names everything else; a browser may hold back the last of many requests
  const manifest = fetchManifest(manifestUrl);
  manifest.catch(() => {}); // awaited below, where its error surfaces
  const copy = fetchCatalogCopy(manifestUrl);
  const names = await guessedFiles(query, hints, guessPieces).catch(() => []);
  const files = names.map((name) => fetchBytes(payloadUrl(name, manifestUrl), undefined, undefined,
    { limit: guessLimit(name) }).then((buffer) => ({ name, buffer }), () => null));
  return { manifest: await manifest, copy: await copy, guessed: (await Promise.all(files)).filter(Boolean) };
}

/**
 * The most bytes a guessed file may have: what the engine reads of it unlisted (a word
 * piece file, a keyed shard), or for the page table and the vector index, as much as of
 * the catalog's copy.
 */
function guessLimit(name) {
  const limit = unlistedLimit(name);
  return limit > 0 ? limit : constants.MAX_CATALOG_COPY_BYTES;
}

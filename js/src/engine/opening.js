// What every search opens with: the manifest and, beside it, the catalog under its stable
// name. A page (or Material's worker) asks for them while the engine's own code is still
// on its way, and hands them to the engine: one round trip fewer before a first query.
// Given the query and the hash of the keyed word piece files (the page's meta tag says
// it), the files its words would read come beside them too, a step before the catalog
// could name them.

import { fetchBytes, fetchCatalogCopy, fetchManifest, payloadUrl } from "../bundle/fetch.js";
import { guessedPieceFiles, piecesHash } from "../bundle/piece-names.js";

/**
 * The manifest (parsed JSON), the catalog's copy (an ArrayBuffer, or null) and the
 * guessed word piece files (`[{name, buffer}]`, those that came) of the bundle at
 * `manifestUrl`: `{manifest, copy, pieces}`. `query` and `pieces` (the hash): optional.
 */
export async function fetchOpening(manifestUrl, { query = "", pieces = null } = {}) {
  // asked for in the order they are needed: the manifest checks the catalog, which
  // names everything else; a browser may hold back the last of many requests
  const manifest = fetchManifest(manifestUrl);
  manifest.catch(() => {}); // awaited below, where its error surfaces
  const copy = fetchCatalogCopy(manifestUrl);
  const hash = piecesHash(pieces);
  const files = hash ? guessedPieceFiles(query, hash).map((name) => fetchBytes(payloadUrl(name, manifestUrl))
    .then((buffer) => ({ name, buffer }), () => null)) : [];
  return { manifest: await manifest, copy: await copy, pieces: (await Promise.all(files)).filter(Boolean) };
}

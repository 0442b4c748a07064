// What every search opens with: the manifest and, beside it, the catalog under its stable
// name. A page (or Material's worker) asks for them while the engine's own code is still
// on its way, and hands them to the engine: one round trip fewer before a first query.

import { fetchCatalogCopy, fetchManifest } from "../bundle/fetch.js";

/**
 * The manifest (parsed JSON) and the catalog's copy (an ArrayBuffer, or null) of the
 * bundle at `manifestUrl`, fetched as the engine fetches them: `{manifest, copy}`.
 */
export async function fetchOpening(manifestUrl) {
  const copy = fetchCatalogCopy(manifestUrl);
  const manifest = await fetchManifest(manifestUrl);
  return { manifest, copy: await copy };
}

// Large files a reader keeps across visits: the model and onnxruntime-web's WebAssembly,
// in the browser's Cache Storage under their content-hashed URLs, so that every page,
// visit and rebuild that leaves them unchanged reads them from disk. Where Cache Storage
// is missing (an insecure origin, a private window that refuses it) they are fetched.

const CACHE_NAME = "mkdocs-semantic";

async function openCache() {
  try {
    return globalThis.caches ? await globalThis.caches.open(CACHE_NAME) : null;
  } catch {
    return null;
  }
}

/** Whether `url` is kept: its file then costs no download. */
export async function isKept(url) {
  const cache = await openCache();
  return Boolean(cache && await cache.match(url).catch(() => undefined));
}

/**
 * The bytes of `url`: the kept copy when `check(buffer)` accepts it (it resolves to the
 * bytes, or throws for a copy that is not the file), else `fetchIt()`'s, then kept. An
 * older file of the same kind (`sameKind(otherUrl)`) is dropped once this one is kept.
 * @param {string} url
 * @param {() => Promise<ArrayBuffer>} fetchIt
 * @param {{ check?: (buffer: ArrayBuffer) => Promise<ArrayBuffer>, sameKind?: (url: string) => boolean }} [options]
 * @returns {Promise<ArrayBuffer>}
 */
export async function keptBytes(url, fetchIt, { check = async (buffer) => buffer, sameKind = () => false } = {}) {
  const cache = await openCache();
  const hit = cache && await cache.match(url).catch(() => undefined);
  if (hit) {
    try {
      return await check(await hit.arrayBuffer());
    } catch {
      await cache.delete(url).catch(() => false); // damaged: fetched again below
    }
  }
  const buffer = await fetchIt();
  if (cache) {
    try {
      await cache.put(url, new Response(buffer.slice(0)));
      for (const request of await cache.keys()) {
        if (request.url !== url && sameKind(request.url)) await cache.delete(request);
      }
    } catch {
      // over quota or refused: this visit has the bytes; the next one fetches them again
    }
  }
  return buffer;
}

// Fetching with byte counts (so the UI can say how much of the model has arrived), and
// the payload store: every bundle file fetched once, verified, parsed and kept by name.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { jsonBody, payloadUrl, readBounded, unlistedLimit, verifyPayload } from "./bundle.js";

export { payloadUrl };
import { BundleError } from "./error.js";

export class LoadError extends Error {
  constructor(message) {
    super(message);
    this.name = "LoadError";
  }
}

async function request(url, init) {
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new LoadError(`could not download ${url} (${error.message}): check the connection`);
  }
  if (!response.ok) {
    throw new LoadError(`could not download ${url}: the server answered ${response.status}`);
  }
  return response;
}

// No manifest is larger than MAX_MANIFEST_BYTES; CATALOG_COPY: the catalog's stable name;
// a payload of no listed size (a keyed word piece file or keyed shard) is read up to its
// unlistedLimit.
const { MAX_MANIFEST_BYTES, CATALOG_COPY, MAX_CATALOG_COPY_BYTES } = constants;

/** The manifest is never cached long: a cache-buster makes every visit see the latest build. */
export async function fetchManifest(url) {
  const busted = new URL(url);
  busted.searchParams.set("v", Date.now().toString(36));
  const buffer = await fetchBytes(busted.href, undefined, { cache: "no-store" }, {
    limit: MAX_MANIFEST_BYTES,
    tooLarge: `${url} is larger than 1 MB, which no manifest is: rebuild the site`,
  });
  return parseJson(buffer, url);
}

/**
 * The current catalog under its stable name (beside the manifest), revalidated with the
 * server; null when there is none (a bundle written before it) or it cannot be read.
 * Only its SHA-256 against the manifest's says whether it is the current one.
 */
export function fetchCatalogCopy(manifestUrl) {
  return fetchBytes(new URL(CATALOG_COPY, manifestUrl).href, undefined, { cache: "no-cache" },
    { limit: MAX_CATALOG_COPY_BYTES }).catch(() => null);
}

/**
 * Downloads `url` as an ArrayBuffer, calling `onBytes(n)` as chunks arrive. With a
 * `limit`, a response that declares or sends more bytes is dropped as soon as that shows
 * (BundleError `tooLarge`), however much more the server would send; `onResponse`
 * sees the response's headers first.
 * @param {string} url
 * @param {(bytes: number) => void} [onBytes]
 * @param {RequestInit} [init]
 * @param {{ limit?: number, tooLarge?: string, onResponse?: (response: Response) => void }} [cap]
 * @returns {Promise<ArrayBuffer>}
 */
export async function fetchBytes(url, onBytes = () => {}, init = undefined, cap = undefined) {
  const response = await request(url, init);
  cap?.onResponse?.(response);
  const limit = cap?.limit ?? Infinity;
  const overflow = () => new BundleError(cap.tooLarge ?? `${url} is larger than the ${limit} ` +
    "bytes its catalog lists: rebuild the site");
  const declared = Number(response.headers.get("content-length"));
  const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
  if (!encoded && declared > limit) {
    await response.body?.cancel();
    throw overflow();
  }
  if (!response.body) {
    const buffer = await response.arrayBuffer();
    if (buffer.byteLength > limit) throw overflow();
    onBytes(buffer.byteLength);
    return buffer;
  }
  return readBounded(response.body.getReader(), limit, overflow, onBytes);
}

/** Parsed JSON of a verified payload's bytes. */
export function parseJson(buffer, name) {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(buffer));
  } catch {
    throw new BundleError(`${name} is not valid JSON: rebuild the site`);
  }
}

/**
 * A payload as the catalog names it: `name` and `bytes` (unlisted for a keyed list's
 * shard), the full `sha256` (the catalog's, from the manifest), and for a record of a
 * pack, the pack's payload and the record's `offset` in it.
 * @typedef {{ name: string, bytes?: number, sha256?: string,
 *   pack?: { name: string, bytes: number }, offset?: number }} PayloadFile
 */

/**
 * The payloads of one bundle, by name: each fetched at most once (concurrent requests
 * share the download), checked against its listed size and the hash in its name (or
 * the full `sha256` given), parsed with `parse(buffer)` and kept in memory. A failed
 * load is forgotten, so the next request tries again.
 */
export class PayloadStore {
  constructor(manifestUrl) {
    this.manifestUrl = manifestUrl;
    this.loads = new Map();
    this.offered = new Map(); // name -> bytes fetched for this store before it was asked
  }

  /** Bytes fetched elsewhere for payload `name` (a page's guess), used if it is asked for. */
  offer(name, buffer) {
    if (!this.loads.has(name)) this.offered.set(name, buffer);
  }

  /**
   * Payload `file`'s bytes (a record of a pack's, when it names its `pack` and `offset`),
   * checked, as `parse(buffer)` makes them; asked for once. `onBytes(n)` as they come.
   * @param {PayloadFile} file
   * @param {(buffer: ArrayBuffer) => any} [parse]
   * @param {(bytes: number) => void} [onBytes]
   * @returns {Promise<any>}
   */
  get({ name, bytes, sha256, pack, offset }, parse = (buffer) => buffer, onBytes = undefined) {
    let load = this.loads.get(name);
    if (!load && pack) {
      load = this.#record({ name, bytes, pack, offset }, onBytes).then(parse);
      this.loads.set(name, load);
      load.catch(() => this.loads.delete(name));
    }
    if (!load) {
      const offered = this.offered.get(name);
      this.offered.delete(name);
      load = (async () => {
        if (offered) {
          const checked = await verifyPayload(offered, { name, bytes, sha256 }).catch(() => null);
          if (checked) return parse(checked); // otherwise fetched as if never offered
        }
        const url = payloadUrl(name, this.manifestUrl);
        const buffer = await fetchBytes(url, onBytes, undefined, {
          limit: bytes ?? unlistedLimit(name),
          ...(bytes === undefined ? { tooLarge: `${url} is larger than the ${unlistedLimit(name)} bytes any such file may have: rebuild the site` } : {}),
        });
        return parse(await verifyPayload(buffer, { name, bytes, sha256 }));
      })();
      this.loads.set(name, load);
      load.catch(() => this.loads.delete(name));
    }
    return load;
  }

  /**
   * A record of a pack (`{name, bytes, pack, offset}`), checked under its own name: read
   * by an HTTP range request. A server that ignores the range sends the whole pack (no
   * more than the catalog lists), which is checked, kept, and read for every later record.
   * @param {PayloadFile} file
   * @param {(bytes: number) => void} [onBytes]
   * @returns {Promise<ArrayBuffer>}
   */
  async #record({ name, bytes, pack, offset }, onBytes) {
    const whole = this.loads.get(pack.name);
    if (whole) return verifyPayload((await whole).slice(offset, offset + bytes), { name, bytes });
    const url = payloadUrl(pack.name, this.manifestUrl);
    let status = 0;
    const buffer = await fetchBytes(url, onBytes, { headers: { Range: `bytes=${offset}-${offset + bytes - 1}` } }, {
      limit: pack.bytes,
      onResponse: (response) => { status = response.status; },
    });
    if (status === 206) return verifyPayload(buffer, { name, bytes });
    if (!this.loads.has(pack.name)) {
      const checked = verifyPayload(buffer, pack);
      this.loads.set(pack.name, checked);
      checked.catch(() => this.loads.delete(pack.name));
    }
    return verifyPayload((await this.loads.get(pack.name)).slice(offset, offset + bytes), { name, bytes });
  }

  /** Whether payload `name` is asked for already (loaded, or on its way). */
  has(name) {
    return this.loads.has(name);
  }

  json(file) {
    return this.get(file, async (buffer) => parseJson(await jsonBody(buffer, file.name), file.name));
  }
}

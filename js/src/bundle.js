// Reading a search bundle written by mkdocs_semantic/bundle.py (format 1).
// Pure functions over parsed JSON and ArrayBuffers, so they run in workers and in node tests.

export const FORMAT_VERSION = 1;

const SCALAR_BYTES = { i8: 1, f16: 2, f32: 4 };
const HEADER_BYTES = 8; // u32 rows, u32 bytes per vector

export class BundleError extends Error {
  constructor(message) {
    super(message);
    this.name = "BundleError";
  }
}

/** Checks a parsed manifest.json; throws a BundleError that says what to do. */
export function checkManifest(manifest, url) {
  const format = manifest && typeof manifest === "object" ? manifest.format : undefined;
  if (format !== FORMAT_VERSION) {
    throw new BundleError(
      `${url} is bundle format ${JSON.stringify(format)}, but this search client reads format ` +
        `${FORMAT_VERSION}: rebuild the site with the same mkdocs-semantic-search version`,
    );
  }
  for (const logical of ["index", "chunks", "lexical", "model", "tokenizer"]) {
    if (!manifest.files?.[logical]?.name) {
      throw new BundleError(`${url} lists no ${logical} file: rebuild the site`);
    }
  }
  const dtype = manifest.quantization?.dtype;
  if (!(dtype in SCALAR_BYTES)) {
    throw new BundleError(`${url} has an unknown vector type ${JSON.stringify(dtype)}`);
  }
  return manifest;
}

/** Absolute URL of a payload file: payload names are relative to the manifest. */
export function fileUrl(manifest, logical, manifestUrl) {
  return new URL(manifest.files[logical].name, manifestUrl).href;
}

/**
 * The chunk listing: `{"pages": [[url, title, section, facets, boost]],
 * "chunks": [[page, anchor, path, excerpt, kind]]}`.
 */
export class Chunks {
  constructor(listing) {
    if (!Array.isArray(listing?.pages) || !Array.isArray(listing?.chunks)) {
      throw new BundleError("the chunks file is malformed: rebuild the site");
    }
    this.pages = listing.pages;
    this.rows = listing.chunks;
  }

  get length() {
    return this.rows.length;
  }

  /** One chunk as a plain object (what search results carry). */
  get(id) {
    const [page, anchor, path, excerpt, kind] = this.rows[id];
    const [url, title, section] = this.pages[page];
    return { id, url, anchor, title, path, section, excerpt, kind: kind === "p" ? "page" : "section" };
  }

  /** The values a filter key has for a chunk's page (`section`, `tags` or a facet). */
  facet(id, key) {
    const [, , section, facets] = this.pages[this.rows[id][0]];
    return key === "section" ? [section] : (facets?.[key] ?? []);
  }
}

/**
 * The stored vectors of a usearch file: u32 rows, u32 bytes per vector, then the
 * rows x dim matrix in key order (the HNSW header and graph after it are ignored).
 * int8 stays int8 (the scan multiplies integers); f16/f32 become a Float32Array.
 */
export function parseMatrix(buffer, { dtype, dim, count }) {
  if (buffer.byteLength < HEADER_BYTES) {
    throw new BundleError("the index file is truncated: rebuild the site");
  }
  const view = new DataView(buffer);
  const rows = view.getUint32(0, true);
  const rowBytes = view.getUint32(4, true);
  const scalar = SCALAR_BYTES[dtype];
  if (rows !== count) {
    throw new BundleError(`the index holds ${rows} vectors but the manifest says ${count}: rebuild the site`);
  }
  if (rows && rowBytes !== dim * scalar) {
    throw new BundleError(
      `the index stores ${rowBytes} bytes per vector; ${dim} ${dtype} values need ${dim * scalar}: rebuild the site`,
    );
  }
  if (buffer.byteLength < HEADER_BYTES + rows * rowBytes) {
    throw new BundleError("the index file is truncated: rebuild the site");
  }
  const size = rows * dim;
  if (dtype === "i8") {
    return { rows, dim, data: new Int8Array(buffer, HEADER_BYTES, size) };
  }
  const data = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    data[i] = dtype === "f32"
      ? view.getFloat32(HEADER_BYTES + 4 * i, true)
      : halfToFloat(view.getUint16(HEADER_BYTES + 2 * i, true));
  }
  return { rows, dim, data };
}

/** IEEE 754 half precision bits -> number. */
export function halfToFloat(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

// The binary payloads of a format-7 bundle (written by mkdocs_semantic/bundle/: page_table.py,
// table.py's token table rows, vectors/store.py and vectors/partitions.py): their sizes, which
// bundle.js's catalog checks compare with the sizes listed, and parsers that refuse any
// other layout.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { BundleError } from "./error.js";

const { HASH_CHARS, ROW_CHECK_BYTES } = constants;

/** The page table's size: a u32 page count and chunk count, a u16 a page, a bit a chunk. */
export function pageTableBytes(pages, chunks) {
  return 8 + 2 * pages + Math.ceil(chunks / 8);
}

/**
 * The page table (mkdocs_semantic/bundle/page_table.py): u32 pages, u32 chunks, pages x u16
 * chunk counts, then one bit per chunk (least significant first), set where the chunk
 * continues the section of the chunk before. Returns `{starts, pageOfChunk, sections}`.
 */
export function parsePageTable(buffer, { pages, chunks, name }) {
  const fail = (what) => { throw new BundleError(`${name} ${what}: rebuild the site`); };
  if (buffer.byteLength !== pageTableBytes(pages, chunks)) fail(`is not a page table of ${pages} pages and ${chunks} chunks`);
  const view = new DataView(buffer);
  if (view.getUint32(0, true) !== pages || view.getUint32(4, true) !== chunks) fail(`does not hold ${pages} pages and ${chunks} chunks`);
  const starts = new Int32Array(pages + 1);
  for (let page = 0; page < pages; page++) {
    const count = view.getUint16(8 + 2 * page, true);
    if (count < 1) fail("has a page without chunks");
    starts[page + 1] = starts[page] + count;
  }
  if (starts[pages] !== chunks) fail("has chunk counts that do not add up");
  const pageOfChunk = new Int32Array(chunks);
  for (let page = 0; page < pages; page++) pageOfChunk.fill(page, starts[page], starts[page + 1]);
  const bits = new Uint8Array(buffer, 8 + 2 * pages);
  const sections = new Int32Array(chunks);
  for (let chunk = 0; chunk < chunks; chunk++) {
    const continues = (bits[chunk >> 3] >> (chunk & 7)) & 1;
    if (continues && (chunk === 0 || starts[pageOfChunk[chunk]] === chunk)) fail("has a page whose first chunk continues the page before");
    sections[chunk] = continues ? sections[chunk - 1] : chunk;
  }
  return { starts, pageOfChunk, sections };
}

/** A token table row (mkdocs_semantic/bundle/table.py): dim int8 values, then its check. */
export function parseRow(buffer, dim, name) {
  if (buffer.byteLength !== dim + ROW_CHECK_BYTES) {
    throw new BundleError(`${name} is not a token table row of ${dim} dims: rebuild the site`);
  }
  return new Int8Array(buffer, 0, dim);
}

const HASH_BYTES = HASH_CHARS / 2;

/** The partition index's size: u32 count and dim, then per partition its chunk, distinct
 * row and block counts (u32 each), its bits file's hash and its centroid's sign bits. */
export function partitionIndexBytes(partitions, dim) {
  return 8 + partitions * (12 + HASH_BYTES + Math.ceil(dim / 8));
}
/** Whether a bits file lists each chunk's row: when chunks share rows, or when blocks
 * reorder the rows (else chunk i has row i). */
const hasRowMap = (chunks, rows, blocks) => rows < chunks || blocks > 1;
/** The bytes a bits file gives each number below `limit`: 1, 2 or 4. */
const numberBytes = (limit) => (limit <= 1 << 8 ? 1 : limit <= 1 << 16 ? 2 : 4);
/** Unsigned little-endian number of `width` bytes at `at`. */
function readNumber(view, at, width) {
  if (width === 1) return view.getUint8(at);
  return width === 2 ? view.getUint16(at, true) : view.getUint32(at, true);
}
/** The bytes a bits file gives each block's row count: the fewest that hold `rows`. */
const countBytes = (rows) => numberBytes(rows + 1);
/** Where a bits file's page numbers start: after its header and blocks' row counts. */
const idsOffset = (rows, blocks) => 12 + HASH_BYTES + blocks * countBytes(rows);
/** A bits file's size: `chunks` chunks sharing `rows` distinct rows in `blocks` rows
 * files, each page number and position in `idBytes`. */
function bitsFileBytes(chunks, rows, blocks, dim, idBytes) {
  const mapping = hasRowMap(chunks, rows, blocks) ? numberBytes(rows) * chunks : 0;
  return idsOffset(rows, blocks) + 2 * idBytes * chunks + mapping + rows * Math.ceil(dim / 8);
}
/** Lowercase hex of `bytes`. */
export const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * The partition index (mkdocs_semantic/bundle/vectors/store.py): u32 k, u32 dim, k x u32 chunks,
 * k x u32 distinct rows, k x u32 blocks, k x 8 bytes (the hash in each partition's bits
 * file name), k x ceil(dim / 8) bytes of centroid sign bits. Returns `{sizes, distinct,
 * blocks, bitsFiles: [{name, bytes}], centroidBits}` (sizes: chunks per partition).
 */
export function parsePartitionIndex(buffer, { partitions, dim, idBytes, name }) {
  const width = Math.ceil(dim / 8);
  const view = new DataView(buffer);
  if (buffer.byteLength !== partitionIndexBytes(partitions, dim) || view.getUint32(0, true) !== partitions ||
      view.getUint32(4, true) !== dim) {
    throw new BundleError(`${name} is not the index of ${partitions} partitions of ${dim} dims: rebuild the site`);
  }
  const sizes = new Uint32Array(partitions);
  const distinct = new Uint32Array(partitions);
  const blocks = new Uint32Array(partitions);
  const bitsFiles = [];
  const hashes = new Uint8Array(buffer, 8 + 12 * partitions, partitions * HASH_BYTES);
  for (let p = 0; p < partitions; p++) {
    sizes[p] = view.getUint32(8 + 4 * p, true);
    distinct[p] = view.getUint32(8 + 4 * (partitions + p), true);
    blocks[p] = view.getUint32(8 + 4 * (2 * partitions + p), true);
    if (sizes[p] < 1 || distinct[p] < 1 || distinct[p] > sizes[p] || blocks[p] < 1 || blocks[p] > distinct[p]) {
      throw new BundleError(`${name} lists an empty partition, one with more rows than chunks or more blocks than rows: rebuild the site`);
    }
    bitsFiles.push({
      name: `vectors/bin.${hex(hashes.subarray(p * HASH_BYTES, (p + 1) * HASH_BYTES))}.bin`,
      bytes: bitsFileBytes(sizes[p], distinct[p], blocks[p], dim, idBytes),
    });
  }
  const centroidBits = new Uint8Array(buffer, 8 + partitions * (12 + HASH_BYTES), partitions * width);
  return { sizes, distinct, blocks, bitsFiles, centroidBits };
}

/**
 * A partition's bits file: u32 n (chunks), u32 d (distinct rows), u32 b (blocks), 8 bytes
 * (the hash of the partition's rows, in each of its rows files' names), b row counts (one
 * per block, in the fewest of 1, 2 or 4 bytes that hold d), n page numbers and n
 * positions on the page (the chunks ascending; `idBytes` each), when d < n or b > 1 n
 * row numbers (in the fewest of 1, 2 or 4 bytes that hold d; block 0's rows
 * first, each block's in the order of their first chunk), d x ceil(dim / 8) bytes of the
 * rows' sign bits. Returns `{ids, rowOf, firsts, bits, blocks:
 * [{name, bytes, start, rows}]}`: ids the chunk numbers, rowOf each chunk's row (null:
 * chunk i has row i), firsts each row's first chunk, blocks the records of the
 * partition's pack `vectors/rows.<hash>.i8` (block j, `vectors/row<j>.<hash>.i8`, holds
 * the `rows` rows from `start` on, then its check; it starts at `offset` in the pack,
 * which ends with its own check).
 */
export function parsePartitionBits(buffer, { dim, chunks, rows, blocks: blockCount, idBytes, starts, name }) {
  const width = Math.ceil(dim / 8);
  const view = new DataView(buffer);
  const fail = () => {
    throw new BundleError(`${name} is not a partition of ${chunks} distinct chunks ascending sharing ${rows} rows in ${blockCount} blocks: rebuild the site`);
  };
  if (buffer.byteLength !== bitsFileBytes(chunks, rows, blockCount, dim, idBytes) || view.getUint32(0, true) !== chunks ||
      view.getUint32(4, true) !== rows || view.getUint32(8, true) !== blockCount) fail();
  const blocks = [];
  const rowsHash = hex(new Uint8Array(buffer, 12, HASH_BYTES));
  const countWidth = countBytes(rows);
  const pack = { name: `vectors/rows.${rowsHash}.i8`, bytes: rows * dim + (blockCount + 1) * ROW_CHECK_BYTES };
  let start = 0;
  for (let j = 0; j < blockCount; j++) {
    const count = readNumber(view, 12 + HASH_BYTES + countWidth * j, countWidth);
    if (count < 1) fail();
    const offset = start * dim + j * ROW_CHECK_BYTES;
    blocks.push({ name: `vectors/row${j}.${rowsHash}.i8`, bytes: count * dim + ROW_CHECK_BYTES, start, rows: count, pack, offset });
    start += count;
  }
  if (start !== rows) fail();
  const ids = new Uint32Array(chunks);
  const pages = starts.length - 1;
  const at = idsOffset(rows, blockCount);
  for (let i = 0; i < chunks; i++) {
    const page = readNumber(view, at + idBytes * i, idBytes);
    const id = page < pages ? starts[page] + readNumber(view, at + idBytes * (chunks + i), idBytes) : -1;
    if (id < 0 || id >= starts[page + 1] || (i && id <= ids[i - 1])) fail();
    ids[i] = id;
  }
  let rowOf = null;
  /** @type {Uint32Array | Int32Array} */
  let firsts = ids;
  if (hasRowMap(chunks, rows, blockCount)) {
    rowOf = new Uint32Array(chunks);
    firsts = new Int32Array(rows).fill(-1);
    const rowBytes = numberBytes(rows);
    for (let i = 0; i < chunks; i++) {
      const row = readNumber(view, at + 2 * idBytes * chunks + rowBytes * i, rowBytes);
      if (row >= rows) fail();
      if (firsts[row] < 0) firsts[row] = ids[i]; // ids ascend: the first is the lowest
      rowOf[i] = row;
    }
    // every row used; within a block, rows in the order of their first chunk
    for (const { start: from, rows: count } of blocks) {
      for (let r = from; r < from + count; r++) {
        if (firsts[r] < 0 || (r > from && firsts[r] <= firsts[r - 1])) fail();
      }
    }
  }
  return {
    ids,
    rowOf,
    firsts,
    bits: new Uint8Array(buffer, buffer.byteLength - rows * width, rows * width),
    blocks,
  };
}

/** A partition's rows file (`block` as parsePartitionBits lists it, its check passed):
 * the block's int8 rows, its check cut off. */
export function parseRowsFile(buffer, block) {
  if (buffer.byteLength !== block.bytes) {
    throw new BundleError(`${block.name} is not ${block.rows} int8 rows and their check: rebuild the site`);
  }
  return new Int8Array(buffer, 0, buffer.byteLength - ROW_CHECK_BYTES);
}

/** A vector part: raw little-endian rows; int8 stays int8, f16/f32 become Float32Array. */
export function parseVectorPart(buffer, { dtype, dim, rows }) {
  const size = rows * dim;
  if (dtype === "i8") return new Int8Array(buffer, 0, size);
  const view = new DataView(buffer);
  const data = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    data[i] = dtype === "f32" ? view.getFloat32(4 * i, true) : halfToFloat(view.getUint16(2 * i, true));
  }
  return data;
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

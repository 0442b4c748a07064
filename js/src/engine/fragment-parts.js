// Which file holds a chunk's excerpt: its page's fragments file, or, for a page of more
// chunks than the bundle's parts hold, the part of the page holding it
// (mkdocs_semantic/bundle/fragment_parts.py), so that a long page shown for one section
// costs that part rather than all its excerpts.

import { BundleError } from "../bundle/error.js";

/**
 * Each page's first part number, pages + 1 values (the last is the part count), from the
 * page starts and the chunks a part holds: a page of more than `chunks` chunks has
 * ceil(size / chunks) parts, any other none.
 */
export function firstParts(starts, chunks) {
  const out = new Float64Array(starts.length);
  for (let page = 0; page + 1 < starts.length; page++) {
    const size = starts[page + 1] - starts[page];
    out[page + 1] = out[page] + (size > chunks ? Math.ceil(size / chunks) : 0);
  }
  return out;
}

export class ExcerptFiles {
  /**
   * `fragments`: the pages' keyed list; `parts`: `{chunks, list}` (the long pages' parts)
   * or null; `starts`: the page starts; `name`: the catalog's name, for errors.
   */
  constructor({ fragments, parts, starts, name }) {
    this.fragments = fragments;
    this.parts = parts;
    this.starts = starts;
    if (parts) {
      this.firstPart = firstParts(starts, parts.chunks);
      const made = this.firstPart[starts.length - 1];
      if (made !== parts.list.keyed.count) {
        throw new BundleError(`${name}: fragment_parts lists ${parts.list.keyed.count} parts, but the pages of more than ${parts.chunks} chunks make ${made}: rebuild the site`);
      }
    }
  }

  /** Whether `page`'s excerpts are read in parts. */
  hasParts(page) {
    return Boolean(this.parts) && this.starts[page + 1] - this.starts[page] > this.parts.chunks;
  }

  /**
   * Where chunk `id` of `page` is described: `{list, key, from, count}`, the file's key in
   * its list, the first chunk it describes and how many.
   */
  of(id, page) {
    const start = this.starts[page];
    const size = this.starts[page + 1] - start;
    if (!this.hasParts(page)) {
      return { list: this.fragments, key: page, from: start, count: size };
    }
    const { chunks } = this.parts;
    const part = Math.floor((id - start) / chunks);
    const from = start + part * chunks;
    return { list: this.parts.list, key: this.firstPart[page] + part, from, count: Math.min(chunks, start + size - from) };
  }

  /** Where each of `page`'s chunks is described, as `of` gives it: its file, or its parts. */
  locations(page) {
    const [start, end] = [this.starts[page], this.starts[page + 1]];
    if (!this.hasParts(page)) return [this.of(start, page)];
    const out = [];
    for (let id = start; id < end; id += this.parts.chunks) out.push(this.of(id, page));
    return out;
  }

  /** The file entry (`{name}`) of a location (`of`). */
  entry(location) {
    return location.list.find(location.key);
  }
}

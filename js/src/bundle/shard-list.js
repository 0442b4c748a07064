// A catalog shard list (mkdocs_semantic/bundle/shard_lists.py): its entries in the catalog, or
// directories of entries that are loaded when a key falls into them, so that the
// catalog stays small however many shards a large site has; or a keyed list, whose
// shard of a key is named from the key alone (bucketOf).

import { bucketOf, checkDirectory, keyedShardName, shardOf } from "./bundle.js";
import { BundleError } from "./error.js";

export class ShardList {
  /**
   * `list`: the checked catalog value, `{entries}` or `{dirs}` (each `{first, name,
   * bytes}`), or `{keyed: {stem, hashes, count, by}}`; `loadJson(file)`: a directory payload's
   * parsed JSON.
   */
  constructor(list, { loadJson }) {
    this.keyed = list.keyed ?? null;
    this.entries = list.entries ?? null;
    this.dirs = list.dirs ?? [];
    this.loadJson = loadJson;
    this.loaded = new Map(); // directory name -> promise of its checked entries
  }

  /**
   * The entry of the shard that holds `key` (the last whose first key <= key; in a keyed
   * list the one named from the key, `{first: number, name}`, its size unlisted), or null.
   */
  async find(key) {
    if (this.keyed) {
      const { count, by } = this.keyed;
      const bucket = by === "page" ? key : await bucketOf(String(key), count);
      return Number.isInteger(bucket) && bucket >= 0 && bucket < count ? this.#keyedEntry(bucket) : null;
    }
    let entries = this.entries;
    if (!entries) {
      const at = shardOf(this.dirs, key);
      if (at < 0) return null;
      entries = await this.#directory(this.dirs[at]);
    }
    const at = shardOf(entries, key);
    return at < 0 ? null : entries[at];
  }

  /**
   * The entries of the shards that may hold a key from `low` up to (not including)
   * `high`: from the one holding `low` (or the first) to the one holding `high`.
   */
  async between(low, high) {
    if (this.keyed) throw new Error("a keyed list keeps no key order to look between");
    let entries = this.entries;
    if (!entries) {
      const first = Math.max(shardOf(this.dirs, low), 0);
      const last = shardOf(this.dirs, high);
      entries = (await Promise.all(this.dirs.slice(first, last + 1).map((dir) => this.#directory(dir)))).flat();
    }
    return entries.slice(Math.max(shardOf(entries, low), 0), shardOf(entries, high) + 1);
  }

  /** Every entry, in order (loads every directory). */
  async all() {
    if (this.keyed) return Array.from({ length: this.keyed.count }, (_, n) => this.#keyedEntry(n));
    if (this.entries) return this.entries;
    return (await Promise.all(this.dirs.map((dir) => this.#directory(dir)))).flat();
  }

  /**
   * Shard `n` of a keyed list: `{first: n, name}`, its size unlisted; of a packed one,
   * also its `bytes`, `pack` and `offset` there (read by range).
   */
  #keyedEntry(n) {
    const name = keyedShardName(this.keyed.stem, n, this.keyed.hashes);
    const { pack, sizes, offsets } = this.keyed;
    return pack ? { first: n, name, bytes: sizes[n], pack, offset: offsets[n] } : { first: n, name };
  }

  #directory(dir) {
    let entries = this.loaded.get(dir.name);
    if (!entries) {
      entries = this.loadJson(dir).then((data) => {
        const checked = checkDirectory(data, dir.name);
        if (checked[0].first !== dir.first) throw new BundleError(`${dir.name} does not start at its catalog key: rebuild the site`);
        return checked;
      });
      entries.catch(() => this.loaded.delete(dir.name));
      this.loaded.set(dir.name, entries);
    }
    return entries;
  }
}

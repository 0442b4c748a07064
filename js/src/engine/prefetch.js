// Idle-time prefetch: after a query, while no other runs, the engine reads ahead what a
// later query would otherwise wait a round trip for (the bits files of partitions not
// read yet and the word-piece shards a new word needs, in `prefetchOrder`), within a
// budget, and never on a connection that asks for less data.

/** Bytes an engine prefetches at most, over its life. */
export const PREFETCH_BYTES = 300_000;
/** Shards asked for at once: one round trip each batch, few requests in the way of a query. */
export const PREFETCH_BATCH = 6;
/** Bits files asked for at once: about 0.5 kB each on a large site, some 8 kB a batch. */
export const PREFETCH_BITS_BATCH = 16;

/**
 * Whether the reader's connection allows prefetching (`nav`: the worker's navigator): not
 * under Save-Data, not on a 2G-class link. A browser that does not say allows it.
 */
export function mayPrefetch(nav) {
  return connectionAllows(nav, ["slow-2g", "2g"]);
}

/**
 * Whether the reader's connection allows the idle download of a model (megabytes, not
 * kilobytes): not under Save-Data, not on a 3G-class link or slower.
 */
export function mayFetchModel(nav) {
  return connectionAllows(nav, ["slow-2g", "2g", "3g"]);
}

/** No Save-Data and an effective connection type not among `slow`; true when not said. */
function connectionAllows(nav, slow) {
  const connection = nav?.connection;
  if (!connection) return true;
  return !connection.saveData && !slow.includes(connection.effectiveType);
}

/**
 * Reads `entries` (`{name, bytes}`, in order) in batches of `batch` with `read(batch)`,
 * taking the first whose `cost(entry)` (the bytes sent for it; its listed bytes unless
 * told) fit in `budget`, and stops before a batch once `busy()` (a query is running).
 * Returns the cost of what it asked for.
 */
export async function prefetch(entries, { read, busy, budget, batch = PREFETCH_BATCH, cost = (entry) => entry.bytes }) {
  const taken = [];
  let spent = 0;
  for (const entry of entries) {
    if (spent + cost(entry) > budget) break;
    spent += cost(entry);
    taken.push(entry);
  }
  let asked = 0;
  for (let i = 0; i < taken.length && !busy(); i += batch) {
    const next = taken.slice(i, i + batch);
    asked += next.reduce((n, entry) => n + cost(entry), 0);
    await read(next);
  }
  return asked;
}

/**
 * The order in which an idle prefetch reads its kinds (`{entries, cost}` each): the bits
 * files first when every one fits `budget` (a probe needs all of its partitions' bits, so
 * only then does no later query wait for them), else the word pieces first.
 */
export function prefetchOrder(bits, pieces, budget) {
  const total = bits.entries.reduce((n, entry) => n + bits.cost(entry), 0);
  return total <= budget ? [bits, pieces] : [pieces, bits];
}

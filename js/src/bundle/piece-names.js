// The names of the keyed word piece files (mkdocs_semantic/bundle/wordpieces.py), which a
// reader makes from a query's words and the hash of them all.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };

const KEY_CHARS = new Set(constants.PIECE_KEY_CHARS);
const PUNCTUATION = new Set(constants.PIECE_PUNCTUATION);

/**
 * The stem of the keyed word piece file of `key` (wordpieces.py key_stem: `sli` for
 * `li`, `cp` for `##p`, with `prefix` "##"; `p` for ASCII punctuation), or null for a
 * key the catalog's shards hold.
 */
export function pieceKeyStem(key, prefix) {
  if (key.length === 1 && PUNCTUATION.has(key)) return "p";
  const continuation = prefix && key.startsWith(prefix) && [...key].length === [...prefix].length + 1;
  const rest = [...(continuation ? key.slice(prefix.length) : key)];
  if (rest.length < 1 || rest.length > 2 || !rest.every((c) => KEY_CHARS.has(c))) return null;
  return (continuation ? "c" : "s") + rest.join("");
}

/** The keyed word piece file `stem` among the files of hash `hash`: `{name}`, its size unknown. */
export function pieceFile(stem, hash) {
  return { name: `pieces/${stem}.${hash}.json` };
}

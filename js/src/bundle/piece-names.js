// The names of the keyed word piece files (mkdocs_semantic/bundle/wordpieces.py), which a
// reader makes from a query's words and the hash of them all, without the catalog. Small
// on purpose: Material's search worker and the page import it before the engine.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };

const KEY_CHARS = new Set(constants.PIECE_KEY_CHARS);
const PUNCTUATION = new Set(constants.PIECE_PUNCTUATION);
const PIECES_HASH = /^[0-9a-f]{16}$/;

/**
 * The stem of the keyed word piece file of `key` (wordpieces.py key_stem: `sl` for
 * `li` and `l`, `cp` for `##p`, with `prefix` "##"; `p` for ASCII punctuation), or null
 * for a key the catalog's shards hold.
 */
export function pieceKeyStem(key, prefix) {
  if (key.length === 1 && PUNCTUATION.has(key)) return "p";
  const continuation = prefix && key.startsWith(prefix) && [...key].length === [...prefix].length + 1;
  const rest = [...(continuation ? key.slice(prefix.length) : key)];
  if (rest.length < 1 || rest.length > 2 || !rest.every((c) => KEY_CHARS.has(c))) return null;
  return (continuation ? "c" : "s") + rest[0];
}

/** The keyed word piece file `stem` among the files of hash `hash`: `{name}`, its size unknown. */
export function pieceFile(stem, hash) {
  return { name: `pieces/${stem}.${hash}.json` };
}

/** `hash` if it can name keyed word piece files (16 hex digits), else null. */
export function piecesHash(hash) {
  return typeof hash === "string" && PIECES_HASH.test(hash) ? hash : null;
}

/**
 * The names of the keyed word piece files that `text`'s words would read, guessed
 * without the tokenizer's settings (which come with the catalog): the model's BERT-style
 * normalization (accents stripped, lowercase), words of letters and digits, `##` for
 * continuations. A guess only: what the tokenizer then asks for and the guess missed is
 * read then, and a file guessed in vain costs its bytes.
 */
export function guessedPieceFiles(text, hash) {
  const names = new Set();
  const plain = String(text).normalize("NFD").replace(/\p{Mn}/gu, "").toLowerCase();
  if ([...plain].some((c) => PUNCTUATION.has(c))) names.add(pieceFile("p", hash).name);
  for (const [word] of plain.matchAll(/[\p{L}\p{N}]+/gu)) {
    const chars = [...word];
    for (const key of [chars.slice(0, 2).join(""), ...chars.slice(1).map((c) => `##${c}`)]) {
      const stem = pieceKeyStem(key, "##");
      if (stem !== null) names.add(pieceFile(stem, hash).name);
    }
  }
  return [...names];
}

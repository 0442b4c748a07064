// The word rows a first query reads (word-rows.js), named by the page before the engine
// and the catalog are there. The page's hint (`<count>:<hashes>`) names the keyed list;
// the query's words are cut as BERT's normalizer and pre-tokenizer cut them (accents
// off, lower case, each punctuation mark and CJK ideograph a word of its own), without
// the tokenizer's code. A guess only: a shard guessed in vain costs its bytes, and a
// word the guess cut otherwise is read a step later, when the engine asks for it.

import { WORDS_STEM, bucketOf, keyedShardName } from "../bundle/bundle.js";
import { keywordsHint } from "./guessed-keywords.js";
import { FRAME } from "./word-rows.js";

const WORD = /[\p{P}!-/:-@[-`{-~]|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]|[^\s\p{P}!-/:-@[-`{-~\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u{20000}-\u{2fa1f}]+/gu;

const INDEX_HINT = /^[0-9a-f]{16}$/;

/** The vector index a page's `index` hint names, or null for none or a malformed one. */
export function vectorIndexGuess(hint) {
  return typeof hint === "string" && INDEX_HINT.test(hint) ? `vectors/ivf.${hint}.bin` : null;
}

/** `text`'s words as a BERT tokenizer's normalizer and pre-tokenizer make them, nearly. */
export function guessWords(text) {
  // lower case a character at a time, as the tokenizer does (no final sigma)
  const plain = String(text).normalize("NFD").replace(/[\p{Mn}\p{Cc}\p{Cf}]/gu, (c) => (/\s/u.test(c) ? " " : ""))
    .replace(/./gsu, (c) => c.toLowerCase());
  return plain.match(WORD) ?? [];
}

/** The names of the word rows shards `text`'s words (and the special tokens) fall into, in the list `hint` names. */
export async function guessedWordFiles(text, hint) {
  const list = keywordsHint(hint);
  if (!list || !globalThis.crypto?.subtle) return [];
  const words = [...new Set([FRAME, ...guessWords(text)])];
  const buckets = await Promise.all(words.map((word) => bucketOf(word, list.count)));
  return [...new Set(buckets)].map((n) => keyedShardName(WORDS_STEM, n, list.hashes));
}

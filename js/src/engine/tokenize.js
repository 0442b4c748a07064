// Query text -> token ids, exactly as the Python side tokenizes (tokenizers, Rust).
// @huggingface/tokenizers applies neither truncation nor padding, so truncation
// happens here.

import { Tokenizer } from "@huggingface/tokenizers";

/**
 * The static query encoder's tokenization (query_encoder.StaticQueryEncoder.token_ids):
 * `tokenize(text) -> ids`, special tokens included, cut to the first `maxTokens`.
 */
export function createTokenIds(tokenizerJson, { maxTokens }) {
  const tokenizer = new Tokenizer(tokenizerJson, {});
  return (text) => tokenizer.encode(text).ids.slice(0, maxTokens);
}

/** The transformer's: `encode(text) -> {ids, typeIds}`, truncated as the model's tokenizer. */
export function createEncoder(tokenizerJson, { maxTokens }) {
  const tokenizer = new Tokenizer(tokenizerJson, {});
  return (text) => {
    const full = tokenizer.encode(text, { return_token_type_ids: true });
    const content = tokenizer.encode(text, { add_special_tokens: false }).ids;
    const typeIds = full.token_type_ids ?? full.ids.map(() => 0);
    return truncate({ ids: full.ids, typeIds }, content, maxTokens);
  };
}

/**
 * Cuts an encoding to `maxTokens` the way the Rust tokenizer does: content tokens
 * are dropped from the end, the special tokens before and after them stay.
 * `content` is the encoding of the same text without special tokens.
 */
export function truncate(full, content, maxTokens) {
  if (full.ids.length <= maxTokens) return full;
  const special = full.ids.length - content.length;
  if (maxTokens <= special) {
    throw new RangeError(`model.max_tokens ${maxTokens} leaves no room for text`);
  }
  const start = contentStart(full.ids, content, special);
  const end = start + maxTokens - special;
  const pick = (xs) => [...xs.slice(0, end), ...xs.slice(start + content.length)];
  return { ids: pick(full.ids), typeIds: pick(full.typeIds) };
}

function contentStart(ids, content, special) {
  for (let start = 0; start <= special; start++) {
    if (content.every((id, i) => ids[start + i] === id)) return start;
  }
  throw new Error("the tokenizer's special tokens are not a prefix and suffix of the text");
}

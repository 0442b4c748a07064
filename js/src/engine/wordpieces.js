// The static encoder's tokenizer with its vocabulary fetched by need
// (mkdocs_semantic/bundle/wordpieces.py). A WordPiece word only looks up pieces that start
// with its first character and continuation pieces that start with a later one, so the
// shards of those keys tokenize it exactly as the whole vocabulary does.

import { Tokenizer } from "@huggingface/tokenizers";

export class WordPieces {
  /**
   * `pieces`: the catalog's checked `encoders.static.pieces` (`config`, `shards` as a
   * ShardList); `load(entry)` -> a shard's pieces as `{piece: id}`; `maxTokens`: the
   * encoder's token limit.
   */
  constructor({ config, shards, load, maxTokens }) {
    Object.assign(this, { config, shards, load, maxTokens });
    this.prefix = config.model.continuing_subword_prefix ?? "";
    this.vocab = Object.fromEntries((config.added_tokens ?? []).map((t) => [t.content, t.id]));
    this.merged = new Set(); // names of the shards already in `vocab`
    this.splitter = this.#build(); // its normalizer and pre-tokenizer split a text into words
    this.tokenizer = this.splitter;
  }

  #build() {
    return new Tokenizer({ ...this.config, model: { ...this.config.model, vocab: this.vocab } }, {});
  }

  /** The keys of every piece the words of `text` may look up. */
  keys(text) {
    const { normalizer, pre_tokenizer: preTokenizer } = this.splitter;
    const normalized = normalizer ? normalizer(text) : text;
    const words = preTokenizer ? preTokenizer(normalized) : normalized.split(/\s+/u);
    const keys = new Set();
    for (const word of words) {
      const chars = [...word];
      if (!chars.length) continue;
      keys.add(chars[0]);
      for (const c of chars.slice(1)) keys.add(this.prefix + c);
    }
    return keys;
  }

  /** Reads the shards of `keys` not read yet into the vocabulary. */
  async #need(keys) {
    const entries = await Promise.all([...keys].map((key) => this.shards.find(key)));
    const fresh = [...new Map(entries.filter((e) => e && !this.merged.has(e.name)).map((e) => [e.name, e])).values()];
    if (!fresh.length) return;
    const parts = await Promise.all(fresh.map((entry) => this.load(entry)));
    let added = false;
    fresh.forEach((entry, i) => {
      if (this.merged.has(entry.name)) return; // another query merged it meanwhile
      Object.assign(this.vocab, parts[i]);
      this.merged.add(entry.name);
      added = true;
    });
    if (added) this.tokenizer = this.#build();
  }

  /** `text`'s token ids, special tokens included, cut to the first `maxTokens`. */
  async tokenize(text) {
    await this.#need(this.keys(text));
    return this.tokenizer.encode(text).ids.slice(0, this.maxTokens);
  }

  /** Whether the vocabulary holds `word` whole (a word of lowercase letters). */
  async holds(word) {
    const first = [...word][0];
    if (first === undefined) return false;
    await this.#need([first]);
    return Object.hasOwn(this.vocab, word);
  }
}

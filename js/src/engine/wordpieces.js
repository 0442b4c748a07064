// The static encoder's tokenizer with its vocabulary fetched by need
// (mkdocs_semantic/bundle/wordpieces.py). A WordPiece word only looks up pieces that start
// as it starts (keyed by their first two characters) and continuation pieces that start
// with one of its later characters, so the pieces of those keys tokenize it exactly as
// the whole vocabulary does. A key of letters and digits is in a small file named from
// its first character (`sl` holds `l`, `li`, `la`, ...; `cp` holds `##p`); the catalog's
// shards hold every key's pieces, and are what idle time reads ahead.

import { Tokenizer } from "@huggingface/tokenizers";
import { shardOf } from "../bundle/bundle.js";
import { pieceFile, pieceKeyStem } from "../bundle/piece-names.js";

export class WordPieces {
  /**
   * `config`, `keyed` (the keyed files' hash) and `shards` (as a ShardList): the catalog's
   * checked `encoders.static.pieces`; `load(entry)` -> a file's or shard's pieces as
   * `{piece: id}`; `maxTokens`: the encoder's token limit.
   */
  constructor({ config, keyed, shards, load, maxTokens }) {
    this.config = config;
    this.keyed = keyed;
    this.shards = shards;
    this.load = load;
    this.maxTokens = maxTokens;
    this.prefix = config.model.continuing_subword_prefix ?? "";
    const specials = Object.fromEntries((config.added_tokens ?? []).map((t) => [t.content, t.id]));
    // Built once; each shard read adds its pieces to the model's map of piece -> id, which
    // is what the model splits words by (rebuilding a tokenizer costs tens of ms).
    this.tokenizer = new Tokenizer({ ...config, model: { ...config.model, vocab: specials } }, {});
    this.ids = this.tokenizer.model.tokens_to_ids;
    this.merged = new Set(); // names of the files and shards already in `ids`
    this.everyShard = null; // the shard list's entries, once `unread` listed them
  }

  /**
   * The keys of every piece the words of `text` may look up (wordpieces.py word_keys):
   * a word's first two characters (and its first alone, unless the pair has a file,
   * which holds it), and the prefix with each later character.
   */
  keys(text) {
    const { normalizer, pre_tokenizer: preTokenizer } = this.tokenizer;
    const normalized = normalizer ? normalizer(text) : text;
    return this.#keysOf(preTokenizer ? preTokenizer(normalized) : normalized.split(/\s+/u));
  }

  /**
   * `text` as the tokenizer's words: normalized, then pre-tokenized (word_rows.py
   * words_of); null for a tokenizer without a pre-tokenizer. A lower-casing normalizer
   * gets the text lower-cased a character at a time first, as the Rust tokenizer does
   * it (the library's toLowerCase makes a word's last Σ a ς).
   */
  words(text) {
    const { normalizer, pre_tokenizer: preTokenizer } = this.tokenizer;
    if (!preTokenizer) return null;
    const folded = this.config.normalizer?.lowercase ? text.replace(/./gsu, (c) => c.toLowerCase()) : text;
    return preTokenizer(normalizer ? normalizer(folded) : folded);
  }

  /**
   * `text`'s words, or null when it holds the text of an added token (any case), which
   * the tokenizer takes out before it normalizes (word_rows.py query_words).
   */
  queryWords(text) {
    const lower = text.toLowerCase();
    const added = (this.config.added_tokens ?? []).some((t) => t.content && lower.includes(t.content.toLowerCase()));
    return added ? null : this.words(text);
  }

  /** The token ids of each of `words` (normalized, pre-tokenized), as the model splits it. */
  async tokenizeWords(words) {
    await this.#need(this.#keysOf(words));
    const { model } = this.tokenizer;
    return words.map((word) => model._call([word]).map((t) => this.ids.get(t) ?? model.unk_token_id));
  }

  /**
   * Asks for the files `words` would read, without waiting for them: a word's pieces
   * then come beside its row, should the site lack it.
   */
  ask(words) {
    this.#need(this.#keysOf(words)).catch(() => {}); // read again, and its error met, when needed
  }

  #keysOf(words) {
    const keys = new Set();
    for (const word of words) {
      const chars = [...word];
      if (!chars.length) continue;
      const start = chars.slice(0, 2).join("");
      keys.add(start);
      if (pieceKeyStem(start, this.prefix) === null) keys.add(chars[0]);
      for (const c of chars.slice(1)) keys.add(this.prefix + c);
    }
    return keys;
  }

  /**
   * The file to read for key `key`'s pieces: its keyed file, unless the shards that
   * hold it are read already (then null); a shard list entry for any other key.
   */
  async entry(key) {
    const stem = pieceKeyStem(key, this.prefix);
    if (stem === null) return this.shards.find(key);
    // a word starting with a pair needs the pair's pieces and its first character's
    const held = stem[0] === "s" && [...key].length === 2 ? [key, [...key][0]] : [key];
    return held.every((k) => this.#inReadShard(k)) ? null : pieceFile(stem, this.keyed);
  }

  /** Whether the shard that holds `key` is read (known once `unread` listed them all). */
  #inReadShard(key) {
    const at = this.everyShard ? shardOf(this.everyShard, key) : -1;
    return at >= 0 && this.merged.has(this.everyShard[at].name);
  }

  /** Reads the files of `keys` not read yet into the vocabulary. */
  async #need(keys) {
    await this.read(await Promise.all([...keys].map((key) => this.entry(key))));
  }

  /**
   * Reads the shards of `entries` (shard list entries; nulls are skipped) that are not
   * read yet into the vocabulary. More pieces never change how a word is split: a word
   * only looks up the pieces of its own keys.
   */
  async read(entries) {
    const fresh = [...new Map(entries.filter((e) => e && !this.merged.has(e.name)).map((e) => [e.name, e])).values()];
    if (!fresh.length) return;
    const parts = await Promise.all(fresh.map((entry) => this.load(entry)));
    fresh.forEach((entry, i) => {
      if (this.merged.has(entry.name)) return; // another query merged it meanwhile
      for (const [piece, id] of Object.entries(parts[i])) this.ids.set(piece, id);
      this.merged.add(entry.name);
    });
  }

  /** The shard list entries not read yet, in order. */
  async unread() {
    this.everyShard ??= await this.shards.all();
    return this.everyShard.filter((entry) => !this.merged.has(entry.name));
  }

  /** `text`'s token ids, special tokens included, cut to the first `maxTokens`. */
  async tokenize(text) {
    await this.#need(this.keys(text));
    return this.tokenizer.encode(text).ids.slice(0, this.maxTokens);
  }

  /** Whether the vocabulary holds `word` whole (a word of lowercase letters). */
  async holds(word) {
    if (!word) return false;
    await this.#need([[...word].slice(0, 2).join("")]);
    return this.ids.has(word);
  }
}

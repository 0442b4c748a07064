// What a reader meant: slipped words corrected, a half-typed last word completed. The
// spec, with its rules, is mkdocs_semantic/search/spelling.py; every choice here is the same.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { TOKEN } from "../text/terms.js";
import { afterLongDashes, identifierKey, isWord, vocabularyWord } from "./vocabulary.js";

const { MIN_CORRECTED, LONG_WORD } = constants;

export const maxEdits = (word) => (word.length < LONG_WORD ? 1 : 2);

/** Optimal string alignment distance of `a` and `b`, or `limit + 1` when above it. */
export function editDistance(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2] + 1);
      }
      current.push(value);
      least = Math.min(least, value);
    }
    if (least > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length], limit + 1);
}

/** Compares [number, number, string] keys as Python compares tuples. */
function below(x, y) {
  if (x[0] !== y[0]) return x[0] < y[0];
  if (x[1] !== y[1]) return x[1] < y[1];
  return x[2] < y[2];
}

/** The site word `word` was most likely meant as (rule 2), or null. */
export function correction(word, candidates) {
  const limit = maxEdits(word);
  let best = null;
  for (const entry of candidates) {
    if (!isWord(entry)) continue;
    const distance = editDistance(word, entry.key, limit);
    const key = [distance, -entry.count, entry.key];
    if (distance <= limit && (best === null || below(key, best))) best = key;
  }
  return best === null ? null : best[2];
}

/**
 * What a half-typed `prefix` (lowercased) most likely becomes (rule 1), spelled as the
 * site spells it, or null.
 */
export function completion(prefix, candidates) {
  let best = null;
  let spelled = null;
  for (const entry of candidates) {
    if (entry.key.length > prefix.length && entry.key.startsWith(prefix)) {
      const key = [-entry.count, entry.key.length, entry.key];
      if (best === null || below(key, best)) {
        best = key;
        spelled = entry.form;
      }
    }
  }
  return spelled;
}

/** Where a word's corrections start: its first letter, its second then first. */
export const correctionPrefixes = (word) => [word[0], word[1] + word[0]];

// What a stop word counts as held by: more chunks than any site word (spelling.py).
const STOP_WORD_COUNT = 2 ** 30;

/** The entries `word` may be corrected to: the site's, and the stop words (spelling.py). */
async function correctionCandidates(word, words, stopwords) {
  const prefixes = correctionPrefixes(word);
  const stop = [...stopwords].filter((w) => prefixes.some((p) => w.startsWith(p)))
    .map((w) => ({ key: w, count: STOP_WORD_COUNT, form: w }));
  return [...(await words.correctable(word, maxEdits(word))), ...stop];
}

// A code name's separators, kept by split between its parts (spelling.py's PARTS).
const PARTS = /([._:-]+)/;

/** A code name with its slipped parts corrected (rule 3), or null. */
async function correctedParts(token, { known, words, stopwords, modelWord }) {
  const pieces = token.split(PARTS); // parts at even places, separators between them
  const slipped = []; // [place, word]
  for (let i = 0; i < pieces.length; i += 2) {
    const word = vocabularyWord(pieces[i], stopwords);
    if (word !== null && word.length >= MIN_CORRECTED && !(await modelWord(word))) slipped.push([i, word]);
  }
  const held = slipped.length ? await known(slipped.map(([i]) => pieces[i])) : [];
  let changed = false;
  for (const [k, [i, word]] of slipped.entries()) {
    if (held[k]) continue;
    const used = correction(word, await correctionCandidates(word, words, stopwords));
    if (used !== null) {
      pieces[i] = used;
      changed = true;
    }
  }
  return changed ? pieces.join("") : null;
}

const TRAILING_SEPARATORS = /[._:\-]+$/;

/** Rule 4: the change that completes the name a query ends in the middle of (its last
 * word `last`, then separators), or null. */
async function typingName(query, last, words) {
  const tail = TRAILING_SEPARATORS.exec(query);
  const end = last.index + last[0].length;
  if (tail === null || tail.index !== end) return null;
  const prefix = (last[0] + tail[0]).toLowerCase();
  const used = completion(prefix, await words.starting([prefix]));
  if (used === null) return null;
  return { start: last.index, end: query.length, change: { typed: query.slice(last.index), used, kind: "completed" } };
}

/** Rule 5: the change that completes the long flag a query ends in (its last word
 * `last`: {match, word, name}, written right after `--`), or null. */
async function typingFlag(query, last, words) {
  const { match, word, name } = last;
  if (match.index + match[0].length !== query.length || !afterLongDashes(query, match.index)) return null;
  return completed(last, (await words.starting([word ?? name])).filter((entry) => entry.flag));
}

/** Rule 1 for a last word the site uses only as a stem (`last`: {match, word, name}): its
 * completion, when no site word or name is spelled as it is, or null. */
async function stemCompletion(last, words) {
  return completed(last, await words.starting([last.word ?? last.name]));
}

/** The change that completes `last` to one of `entries` (rule 1's pick), or null when one
 * of them is spelled as it is. */
function completed({ match, word, name }, entries) {
  const key = word ?? name;
  if (entries.some((entry) => entry.key === key)) return null;
  const used = completion(key, entries);
  if (used === null) return null;
  return { start: match.index, end: match.index + match[0].length, change: { typed: match[0], used, kind: "completed" } };
}

/**
 * The query as searched: `{typed, text, changes: [{typed, used, kind}]}`, its unknown
 * words completed or corrected. `known(tokens)` resolves, for each token, whether the
 * site's keyword index has every term of it; `words`: the site's Vocabulary (null: none);
 * `modelWord(word)` resolves whether the model's tokenizer holds the word whole.
 * `onHeld()`: called, before anything more is read, once every word is known to be held:
 * no word is then corrected (while `typing`, the last may still be completed).
 * @param {string} query
 * @param {{ known: (tokens: string[]) => Promise<boolean[]>, words: any, stopwords: Set<string>,
 *   typing?: boolean, modelWord?: (word: string) => Promise<boolean>, onHeld?: () => void }} options
 */
export async function readQuery(query, { known, words, stopwords, typing = false, modelWord = async () => false, onHeld = () => {} }) {
  const plain = { typed: query, text: query, changes: [] };
  if (!words) return plain;
  const found = [];
  for (const match of query.matchAll(TOKEN)) {
    const word = vocabularyWord(match[0], stopwords);
    const name = word === null ? identifierKey(match[0]) : null;
    if (word !== null || name !== null) found.push({ match, word, name });
  }
  if (!found.length) return plain;
  const held = await known(found.map(({ match }) => match[0]));
  if (held.every(Boolean)) onHeld();
  const last = found[found.length - 1];
  let lastChange = typing ? await typingFlag(query, last, words) : null;
  if (lastChange === null && typing) lastChange = await typingName(query, last.match, words);
  if (lastChange === null && typing && held[found.length - 1] && last.match.index + last.match[0].length === query.length) {
    lastChange = await stemCompletion(last, words);
  }
  if (lastChange !== null) found.pop();
  const unknown = found.filter((_, i) => !held[i]);
  const changes = await Promise.all(unknown.map(async ({ match, word, name }) => {
    const end = match.index + match[0].length;
    let used = null;
    let kind = "";
    if (typing && end === query.length) {
      const prefix = word ?? name;
      used = completion(prefix, await words.starting([prefix]));
      kind = "completed";
    }
    if (used === null && word !== null && word.length >= MIN_CORRECTED && !(await modelWord(word))) {
      used = correction(word, await correctionCandidates(word, words, stopwords));
      kind = "corrected";
    }
    if (used === null && name !== null) {
      used = await correctedParts(match[0], { known, words, stopwords, modelWord });
      kind = "corrected";
    }
    return used === null ? null : { start: match.index, end, change: { typed: match[0], used, kind } };
  }));
  let text = query;
  const made = [...changes.filter((c) => c !== null), ...(lastChange === null ? [] : [lastChange])];
  for (const { start, end, change } of [...made].reverse()) {
    text = text.slice(0, start) + change.used + text.slice(end);
  }
  return { typed: query, text, changes: made.map((c) => c.change) };
}

// The excerpt a result shows: a window of the chunk's excerpt text, centred on the
// query's words where that text holds them, starting at a sentence or a word.
// Pure: both renderers (ours and Material's) start from `excerptWindow`.
//
// The bundle stores an excerpt as a list alternating prose and code, prose first
// ("prose", "code", "prose", ...); bundles written before code was kept store one string.

import constants from "../../../mkdocs_semantic/constants.json" with { type: "json" };
import { splitMatches, stem } from "./highlight.js";

// Written once for the Python side and this file in constants.json. EXCERPT_CHARS:
// characters a result shows of its excerpt text; CODE_LINES: lines of code a window
// shows at most (code keeps its line breaks).
export const { EXCERPT_CHARS, CODE_LINES } = constants;
const ELLIPSIS = "…";
// Where a sentence may start: after . ! ? : (and any closing quote or bracket) and a space,
// after a line break, or after a CJK full stop.
const SENTENCE_START = /(?:[.!?:]["')\]\u201d\u2019]*\s+|\n+|[\u3002\uff01\uff1f]\s*)/g;

/** A bundle's excerpt (a string, or the prose/code list) -> `[{text, code}]`, empty parts dropped. */
export function excerptParts(stored) {
  const list = Array.isArray(stored) ? stored : [String(stored ?? "")];
  return list.map((text, i) => ({ text: String(text), code: i % 2 === 1 })).filter((part) => part.text);
}

/** The parts' text as one line of plain text (the public `excerpt` of a result). */
export function excerptText(stored) {
  return excerptParts(stored).map((part) => part.code ? part.text.replace(/\s*\n\s*/g, " ") : part.text)
    .join(" ").replace(/ {2,}/g, " ").trim();
}

/** The window a result shows of its excerpt (`excerptParts`, or the stored `excerpt`). */
export function hitWindow(hit, terms) {
  return excerptWindow(hit.excerptParts ?? excerptParts(hit.excerpt), terms);
}

/**
 * At most `limit` characters of `parts`, as `[{text, code}]`: the window that holds most of
 * `terms` (stems, see highlight.js), or the beginning when no term is in the text or the
 * first ones are in its beginning. A window starts at a sentence where one starts shortly
 * before the words, else at a word, and never inside a word; "…" marks text left out.
 */
export function excerptWindow(parts, terms, limit = EXCERPT_CHARS) {
  let flat = "";
  const spans = []; // [start, end, code] of each part in `flat`
  for (const part of parts) {
    if (flat) flat += " ";
    spans.push([flat.length, flat.length + part.text.length, part.code]);
    flat += part.text;
  }
  if (flat.length <= limit && lineLimit(flat, spans, 0, flat.length) === flat.length) {
    return slice(flat, spans, 0, flat.length, "");
  }
  const start = windowStart(flat, terms, limit);
  let end = Math.min(start + limit, flat.length);
  end = Math.min(end, lineLimit(flat, spans, start, end));
  if (end < flat.length) {
    const space = lastSpace(flat, start + Math.floor(limit / 2), end);
    end = space > 0 ? space : end;
  }
  const lead = start > 0 ? ELLIPSIS : "";
  return slice(flat, spans, start, end, lead, end < flat.length ? ELLIPSIS : "");
}

/** Where the window must end to show at most CODE_LINES lines of code. */
function lineLimit(flat, spans, start, end) {
  let breaks = 0;
  for (const [from, to, code] of spans) {
    if (!code || to <= start || from >= end) continue;
    for (let i = Math.max(from, start); i < Math.min(to, end); i++) {
      if (flat[i] === "\n" && ++breaks === CODE_LINES) return i;
    }
  }
  return end;
}

/** Where the window starts: 0, or before the densest cluster of query words. */
export function windowStart(flat, terms, limit = EXCERPT_CHARS) {
  const found = [];
  let at = 0;
  for (const piece of splitMatches(flat, terms)) {
    if (piece.match) found.push({ at, term: terms.find((t) => stem(piece.text.toLowerCase()).startsWith(t)) });
    at += piece.text.length;
  }
  if (!found.length) return 0;
  // The densest window: the most distinct terms, then the most words, then the earliest.
  let best = null;
  for (const [i, first] of found.entries()) {
    const inside = found.slice(i).filter((f) => f.at < first.at + limit * 0.75);
    const key = [new Set(inside.map((f) => f.term)).size, inside.length];
    if (!best || key[0] > best.key[0] || (key[0] === best.key[0] && key[1] > best.key[1])) {
      best = { at: first.at, key };
    }
  }
  // Words near the beginning are shown from the beginning.
  if (best.at < limit * 0.6) return 0;
  return boundaryBefore(flat, best.at, Math.floor(limit / 3));
}

/** The start of the sentence holding `at` when it starts within `reach` before it, else
 * the start of the word at `at`. */
function boundaryBefore(flat, at, reach) {
  let sentence = -1; // the last sentence start at or before `at`
  for (const match of flat.slice(0, at).matchAll(SENTENCE_START)) {
    sentence = match.index + match[0].length;
  }
  if (sentence >= at - reach && sentence >= 0) return sentence;
  const space = flat.lastIndexOf(" ", at - 1);
  const newline = flat.lastIndexOf("\n", at - 1);
  return Math.max(space, newline) + 1;
}

function lastSpace(flat, from, end) {
  // A cut at `end` that falls between two words needs no search.
  if (/\s/.test(flat[end] ?? " ")) return end;
  for (let i = end - 1; i >= from; i--) if (/\s/.test(flat[i])) return i;
  return -1;
}

/** `flat[start:end]` as parts again, with `lead` and `tail` as prose around it. */
function slice(flat, spans, start, end, lead = "", tail = "") {
  const out = [];
  const push = (text, code) => {
    if (!text) return;
    const last = out.at(-1);
    if (last && last.code === code) last.text += text;
    else out.push({ text, code });
  };
  let at = start;
  for (const [from, to, code] of spans) {
    if (to <= at || from >= end) continue;
    if (from > at) push(flat.slice(at, from), false); // the space between two parts
    at = Math.min(to, end);
    push(flat.slice(Math.max(from, start), at), code);
  }
  if (at < end) push(flat.slice(at, end), false);
  const trimmed = out.map((part) => part.code ? part : { ...part, text: part.text.replace(/\s+/g, " ") });
  if (trimmed.length && !trimmed[0].code) trimmed[0].text = trimmed[0].text.trimStart();
  if (trimmed.length && !trimmed.at(-1).code) trimmed.at(-1).text = trimmed.at(-1).text.trimEnd();
  const result = trimmed.filter((part) => part.text);
  if (lead) result.unshift({ text: lead, code: false });
  if (tail) result.push({ text: tail, code: false });
  return mergeProse(result);
}

function mergeProse(parts) {
  const out = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (last && !last.code && !part.code) last.text += part.text;
    else out.push({ ...part });
  }
  return out;
}

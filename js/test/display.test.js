import assert from "node:assert/strict";
import { test } from "node:test";
import { excerptParts, excerptText, excerptWindow, windowStart } from "../src/text/excerpt.js";
import { queryTerms } from "../src/text/highlight.js";
import { toItems } from "../src/material/material-items.js";

const FILLER = "Caches keep copies of responses for later requests. ";
const PASSAGE = "A service worker answers requests offline when the network is gone. ";
const text = (parts) => parts.map((part) => part.text).join("");

test("an excerpt is centred on the query's words, from the sentence that holds them", () => {
  const source = FILLER.repeat(8) + PASSAGE + FILLER.repeat(4);
  const shown = text(excerptWindow(excerptParts(source), queryTerms("offline network")));
  assert.ok(shown.startsWith("…A service worker answers"), shown);
  assert.ok(shown.endsWith("…") && shown.length <= 240 + 2, shown);
  // Without words of the query in it, the excerpt is the text's beginning.
  const plain = text(excerptWindow(excerptParts(source), queryTerms("bandwidth")));
  assert.ok(plain.startsWith("Caches keep copies") && plain.endsWith("…"), plain);
  // Words near the beginning: the beginning, not a cut just before them.
  const early = "Service workers run offline. " + FILLER.repeat(10);
  assert.equal(windowStart(early, queryTerms("offline")), 0);
});

test("an excerpt never starts or ends inside a word", () => {
  // One long sentence: no sentence start near the words, so the window starts at a word.
  const words = Array.from({ length: 120 }, (_, i) => `word${i}`);
  words[80] = "offline";
  const source = words.join(" ");
  for (const query of ["offline", "word70", "word100", ""]) {
    const shown = text(excerptWindow(excerptParts(source), queryTerms(query)));
    const body = shown.replace(/^…/, "").replace(/…$/, "");
    assert.ok(source.includes(body), query);
    const at = source.indexOf(body);
    assert.ok(at === 0 || source[at - 1] === " ", `starts inside a word for ${query}: ${shown.slice(0, 20)}`);
    const end = at + body.length;
    assert.ok(end === source.length || source[end] === " ", `ends inside a word for ${query}`);
  }
});

test("code stays code: the bundle's prose/code list, and plain strings of older bundles", () => {
  const stored = ["Declare it with", "from fastapi import FastAPI\napp = FastAPI()", "and run it."];
  assert.deepEqual(excerptParts(stored).map((p) => p.code), [false, true, false]);
  assert.deepEqual(excerptWindow(excerptParts(stored), []), [
    { text: "Declare it with ", code: false },
    { text: "from fastapi import FastAPI\napp = FastAPI()", code: true },
    { text: " and run it.", code: false },
  ]);
  assert.equal(excerptText(stored), "Declare it with from fastapi import FastAPI app = FastAPI() and run it.");
  assert.deepEqual(excerptParts("Old plain excerpt"), [{ text: "Old plain excerpt", code: false }]);
  // A window that starts in code keeps the code marked.
  const long = ["Intro. ".repeat(40), "x = compute_offline_value()", "Done."];
  const shown = excerptWindow(excerptParts(long), queryTerms("compute_offline_value"));
  assert.ok(shown.some((part) => part.code && part.text.includes("compute_offline_value")), JSON.stringify(shown));
});

test("Material items: code in <code>, and a link's ?h= never empty", () => {
  const hit = (anchor, path, excerpt) => ({ url: "p/", anchor, title: "Page", path, excerpt, score: 0.5, kind: anchor ? "section" : "page" });
  const [[page, section]] = toItems([hit("", [], "Lead text."), hit("s", ["Setup"], ["Run", "make <all>", "now."])], "why");
  assert.equal(section.text, "<p>Run <code>make &#60;all&#62;</code> now.</p>");
  // "why" is a stop word: no query terms, and no words matched in either result.
  for (const item of [page, section]) assert.notDeepEqual(Object.keys(item.terms), [], JSON.stringify(item));
  // A result found by meaning alone carries the query's terms, for the opened page to mark.
  const [[, byMeaning]] = toItems([hit("", [], "Lead."), hit("s", ["Setup"], "Nothing alike here.")], "offline caching");
  assert.deepEqual(byMeaning.terms, { offlin: true, cach: true });
  assert.equal(byMeaning.title, "Setup"); // the section's path, not the page title again
});

test("a window shows at most three lines of code", () => {
  const code = Array.from({ length: 8 }, (_, i) => `line${i} = ${i}`).join("\n");
  const shown = excerptWindow(excerptParts(["Set it up:", code, "Done."]), []);
  const lines = shown.filter((part) => part.code).map((part) => part.text).join("").split("\n");
  assert.deepEqual(lines, ["line0 = 0", "line1 = 1", "line2 = 2"]);
  assert.equal(shown.at(-1).text, "…");
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { groupByPage } from "../src/engine/group.js";
import { queryTerms, splitMatches } from "../src/text/highlight.js";
import { toItems } from "../src/material/material-items.js";
import { truncate } from "../src/engine/tokenize.js";

test("truncation keeps [CLS] and [SEP] around the first content tokens", () => {
  const full = { ids: [101, 1, 2, 3, 4, 102], typeIds: [0, 0, 0, 0, 0, 0] };
  assert.deepEqual(truncate(full, [1, 2, 3, 4], 4), { ids: [101, 1, 2, 102], typeIds: [0, 0, 0, 0] });
  assert.equal(truncate(full, [1, 2, 3, 4], 6), full);
  assert.throws(() => truncate(full, [1, 2, 3, 4], 2), /no room/);
});

test("query words are marked in text, stop words are not", () => {
  const terms = queryTerms("How do browsers cache the HTML?");
  assert.deepEqual(terms, ["browser", "cach", "html"]);
  const pieces = splitMatches("The browser caches html pages", terms);
  assert.deepEqual(pieces.filter((p) => p.match).map((p) => p.text), ["browser", "caches", "html"]);
  assert.equal(pieces.map((p) => p.text).join(""), "The browser caches html pages");
});

test("results group by page in the order of each page's best section", () => {
  const hits = [{ url: "b/", title: "B" }, { url: "a/", title: "A" }, { url: "b/", title: "B" }];
  assert.deepEqual(groupByPage(hits).map((g) => [g.url, g.hits.length]), [["b/", 2], ["a/", 1]]);
});

test("Material items escape page text and mark only query words", () => {
  const hit = (anchor, score) => ({
    url: "markup/", anchor, title: "Markup <b>", path: anchor ? ['Try <img src=x onerror=alert(1)> here'] : [],
    excerpt: "An <script>alert(1)</script> image tag", score, kind: anchor ? "section" : "page",
  });
  const [[page, section]] = toItems([hit("try", 0.8)], "image tag");
  assert.equal(page.location, "markup/");
  assert.equal(page.score, 0, "a page without its own hit must not outrank its sections");
  assert.equal(section.location, "markup/#try");
  assert.equal(section.title, "Try &#60;img src=x onerror=alert(1)&#62; here");
  assert.equal(section.text,
    "<p>An &#60;script&#62;alert(1)&#60;/script&#62; <mark data-md-highlight>image</mark> <mark data-md-highlight>tag</mark></p>");
  assert.deepEqual(section.terms, { imag: true, tag: true });
});

// What a page fetches for the engine before the engine is made (engine/opening.js): the
// engine reads the catalog from it, asking for neither file again, and asks itself when
// the page's fetch failed.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Engine } from "../src/engine/engine.js";
import { fetchOpening } from "../src/engine/opening.js";
import { serve } from "./serve.js";

const BUNDLE = fileURLToPath(new URL("../../tests/fixtures/parity/bundle/", import.meta.url));
const QUERY = "service worker offline cache";
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

async function served() {
  const server = await serve(BUNDLE);
  servers.push(server);
  return { server, url: `${server.url}manifest.json` };
}

const opens = (paths) => paths.filter((p) => p === "/manifest.json" || p.startsWith("/catalog"));
const ids = (results) => results.map((r) => r.id);

test("an engine given the page's opening asks for neither the manifest nor the catalog", async () => {
  const { server, url } = await served();
  const opening = fetchOpening(url);
  await opening;
  assert.deepEqual(opens(server.requests).sort(), ["/catalog.json", "/manifest.json"]);
  const engine = new Engine({ manifestUrl: url, opening });
  const [loaded, results] = await Promise.all([engine.load(), engine.search(QUERY)]);
  assert.ok(loaded.chunks > 0);
  assert.deepEqual(opens(server.requests).sort(), ["/catalog.json", "/manifest.json"]);
  const { url: other } = await served();
  assert.deepEqual(ids(results), ids(await new Engine({ manifestUrl: other }).search(QUERY)));
});

test("when the page's fetch failed the engine asks itself", async () => {
  const { server, url } = await served();
  const opening = Promise.reject(new Error("offline"));
  const engine = new Engine({ manifestUrl: url, opening });
  assert.ok((await engine.search(QUERY)).length > 0);
  assert.deepEqual(opens(server.requests).sort(), ["/catalog.json", "/manifest.json"]);
});

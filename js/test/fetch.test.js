// Downloads stop at the size a file may have: an endless or oversize response is dropped
// as soon as it shows, not read whole (a real HTTP server on 127.0.0.1).

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { BundleError } from "../src/bundle/error.js";
import { fetchBytes, fetchManifest, PayloadStore } from "../src/bundle/fetch.js";

const CHUNK = Buffer.alloc(64 << 10, 0x20);
let server;
let base;

before(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    if (path === "/endless/manifest.json") {
      response.writeHead(200, { "content-type": "application/json" }); // no length: streams
      const more = () => {
        while (!response.destroyed && response.write(CHUNK));
        if (!response.destroyed) response.once("drain", more);
      };
      response.on("close", () => response.removeAllListeners("drain"));
      more();
    } else if (path === "/declared/text/text.0123456789abcdef.json") {
      response.writeHead(200, { "content-length": String(10 << 20) }); // says 10 MB
      response.write(CHUNK);
    } else {
      response.writeHead(200, { "content-type": "text/plain" });
      response.end("small");
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

// Without a limit the endless manifest would be read for ever: the timeout only ends
// such a run, it is not what the test measures.
test("an endless manifest is dropped past 1 MB, not read on", { timeout: 60_000 }, async () => {
  await assert.rejects(fetchManifest(`${base}/endless/manifest.json`),
    (error) => error instanceof BundleError && /larger than 1 MB/.test(error.message));
});

test("a payload that declares more bytes than its catalog lists is refused unread", async () => {
  const store = new PayloadStore(`${base}/declared/manifest.json`);
  await assert.rejects(store.get({ name: "text/text.0123456789abcdef.json", bytes: 1000 }),
    (error) => error instanceof BundleError && /larger than the 1000 bytes its catalog lists/.test(error.message));
});

test("a file within its limit reads whole", async () => {
  const buffer = await fetchBytes(`${base}/small`, undefined, undefined, { limit: 5 });
  assert.equal(new TextDecoder().decode(buffer), "small");
  await assert.rejects(fetchBytes(`${base}/small`, undefined, undefined, { limit: 4 }), BundleError);
});

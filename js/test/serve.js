// A static file server on 127.0.0.1 for the engine's tests: real fetches, and a record
// of every path requested. `hold(path, range)`: a promise the answer waits for (a slow
// file); `gzip`: JSON sent gzipped, as static hosts send it; `ranges`: a request for one
// byte range answered with it (206), as static hosts do (false: the whole file, as
// `python -m http.server` sends it). `ranges` records each range answered; `asked`, each
// request as it arrives: its path and the start of the range it asks for (null: none).

import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { join, normalize } from "node:path";
import { gzipSync } from "node:zlib";
import { byteRange } from "../tools/server.mjs";

export async function serve(root, { hold = () => null, gzip = false, ranges = true } = {}) {
  const requests = [];
  const asked = [];
  const answered = [];
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://x").pathname);
    requests.push(path);
    const start = /^bytes=(\d+)-/.exec(request.headers.range ?? "");
    asked.push({ path, start: start ? Number(start[1]) : null });
    await hold(path, request.headers.range ?? null);
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root))) {
      response.writeHead(403).end();
      return;
    }
    try {
      let body = await readFile(file);
      const headers = {};
      if (gzip && file.endsWith(".json")) {
        body = gzipSync(body);
        headers["content-encoding"] = "gzip";
      }
      const range = ranges && !headers["content-encoding"] ? byteRange(request.headers.range, body.length) : null;
      if (range) {
        answered.push({ path, ...range });
        const part = body.subarray(range.start, range.end + 1);
        response.writeHead(206, { "content-length": part.length,
                                  "content-range": `bytes ${range.start}-${range.end}/${body.length}` }).end(part);
        return;
      }
      response.writeHead(200, { ...headers, "content-length": body.length }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  // a file a test held and never let go does not keep the server open
  const close = () => new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
  return { url, requests, asked, ranges: answered, close };
}

// A static file server for browser tests and benchmarks: serves a built site under
// a path prefix (like a GitHub Pages project site) on 127.0.0.1 and logs every
// response: its path, the file's bytes, the body bytes sent and when.
//
// With `gzip`, it compresses as GitHub Pages does: text types (html, css, js, json,
// svg, txt, xml) gzip-encoded when the browser accepts gzip, everything else (.bin,
// .i8, .wasm, .onnx, images, fonts) sent as is. Every compressible file is compressed
// before the server starts, as a CDN keeps compressed copies: no request waits for
// compression.

import { createReadStream, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { gzipSync } from "node:zlib";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".xml": "application/xml",
};
const COMPRESSIBLE = new Set([".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt", ".xml"]);

/** The file a request path names under `root` (a folder: its index.html), or null when
 * it leaves `root` or does not exist. */
export function resolveFile(root, relative) {
  const path = normalize(join(root, decodeURIComponent(relative)));
  if (path !== root && !path.startsWith(root + sep)) return null;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) return resolveFile(root, join(relative, "index.html"));
    return { path, size: stat.size };
  } catch {
    return null;
  }
}

/** `{start, end}` (inclusive) of a `Range: bytes=a-b` header within a file of `size`
 * bytes; null for none, or one this server does not answer with a range. */
export function byteRange(header, size) {
  const match = /^bytes=(\d+)-(\d+)$/.exec(header ?? "");
  if (!match) return null;
  const start = Number(match[1]);
  const end = Math.min(Number(match[2]), size - 1);
  return start <= end ? { start, end } : null;
}

/** Gzip bodies of every compressible file under `root`, by path. */
function compressAll(root) {
  const bodies = new Map();
  for (const name of readdirSync(root, { recursive: true })) {
    const path = join(root, name);
    if (COMPRESSIBLE.has(extname(path)) && statSync(path).isFile()) {
      bodies.set(path, gzipSync(readFileSync(path)));
    }
  }
  return bodies;
}

/**
 * Serves `root` at `http://127.0.0.1:<port><prefix>`; resolves to {url, log, close}.
 * `log` entries: {path, status, bytes (the file's), sent (body bytes sent), encoding,
 * at (Date.now() when the response started), dest (the request's Sec-Fetch-Dest: "empty"
 * for a fetch, "worker" for a worker's script, ...)}. `cacheControl`: the header every
 * file is sent with (GitHub Pages sends "max-age=600"). `ranges`: answer a request for one
 * byte range of a file sent as is with that range (206), as static hosts do; false: send
 * the whole file, as `python -m http.server` and `mkdocs serve` do.
 */
export function serveSite(root, { prefix = "/", gzip = false, cacheControl = "no-cache", ranges = true } = {}) {
  const log = [];
  const compressed = gzip ? compressAll(root) : new Map(); // file path -> gzip body
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://127.0.0.1").pathname;
    const file = path.startsWith(prefix) ? resolveFile(root, path.slice(prefix.length)) : null;
    const at = Date.now();
    const dest = request.headers["sec-fetch-dest"] ?? null;
    if (!file) {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found");
      log.push({ path, status: 404, bytes: 0, sent: 9, encoding: "identity", at, dest });
      return;
    }
    const headers = {
      "content-type": TYPES[extname(file.path)] ?? "application/octet-stream",
      "cache-control": cacheControl,
    };
    const accepts = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "");
    if (gzip && accepts && COMPRESSIBLE.has(extname(file.path))) {
      let body = compressed.get(file.path);
      if (!body) { // written after the server started (mkdocs serve)
        body = gzipSync(readFileSync(file.path));
        compressed.set(file.path, body);
      }
      response.writeHead(200, { ...headers, "content-encoding": "gzip", "content-length": body.length,
                                vary: "Accept-Encoding" });
      log.push({ path, status: 200, bytes: file.size, sent: body.length, encoding: "gzip", at, dest });
      response.end(request.method === "HEAD" ? undefined : body);
      return;
    }
    const range = ranges ? byteRange(request.headers.range, file.size) : null;
    if (range) {
      const length = range.end - range.start + 1;
      response.writeHead(206, { ...headers, "content-length": length,
                                "content-range": `bytes ${range.start}-${range.end}/${file.size}` });
      log.push({ path, status: 206, bytes: file.size, sent: length, encoding: "identity", at, dest });
      if (request.method === "HEAD") response.end();
      else createReadStream(file.path, range).pipe(response);
      return;
    }
    response.writeHead(200, { ...headers, "content-length": file.size });
    log.push({ path, status: 200, bytes: file.size, sent: file.size, encoding: "identity", at, dest });
    if (request.method === "HEAD") response.end();
    else createReadStream(file.path).pipe(response);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}${prefix}`,
        log,
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}

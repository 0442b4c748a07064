// A static file server for browser tests and benchmarks: serves a built site under
// a path prefix (like a GitHub Pages project site) on 127.0.0.1 and logs every
// response's path and body size.

import { createReadStream, statSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join, normalize, sep } from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".xml": "application/xml",
};

function resolveFile(root, relative) {
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

/** Serves `root` at `http://127.0.0.1:<port><prefix>`; resolves to {url, log, close}. */
export function serveSite(root, { prefix = "/" } = {}) {
  const log = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://127.0.0.1").pathname;
    const file = path.startsWith(prefix) ? resolveFile(root, path.slice(prefix.length)) : null;
    if (!file) {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found");
      log.push({ path, status: 404, bytes: 0 });
      return;
    }
    response.writeHead(200, {
      "content-type": TYPES[extname(file.path)] ?? "application/octet-stream",
      "content-length": file.size,
      "cache-control": "no-cache",
    });
    log.push({ path, status: 200, bytes: file.size });
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

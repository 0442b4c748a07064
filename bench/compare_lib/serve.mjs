// What bench/compare's browser runs share: the loopback server in front of a built site
// (HTTP/2 over TLS, as GitHub Pages serves, or HTTP/1.1), and headless Debian Chromium
// with a fresh profile (js/tools/chromium.mjs).
//
// Serving: js/tools/server.mjs serves the site and compresses as GitHub Pages does (its
// rule: gzip for text types, binary payloads as they are); in front of it, a server on
// 127.0.0.1 that speaks HTTP/2 over TLS (a certificate made for the run, trusted by this
// Chromium through its public key hash), or HTTP/1.1 when there is no openssl or the
// plan asks for it. The front sets GitHub Pages' caching (ten minutes) and logs every
// response: the file's bytes, the body bytes sent and when the request came and the
// response ended.

import { execFileSync } from "node:child_process";
import { X509Certificate, createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest } from "node:http";
import { createSecureServer } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { launch as launchChromium } from "../../js/tools/chromium.mjs";
import { resolveFile, serveSite } from "../../js/tools/server.mjs";

// Connection-level headers of HTTP/1.1 that HTTP/2 forbids.
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "upgrade",
                     "proxy-connection"];

// ---------------------------------------------------------------- server

/** A key and self-signed certificate for 127.0.0.1, made now; null without openssl. */
export function certificate() {
  const dir = mkdtempSync(join(tmpdir(), "compare-tls-"));
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "pipe" });
    const cert = readFileSync(join(dir, "cert.pem"));
    const key = readFileSync(join(dir, "key.pem"));
    // Chromium's --ignore-certificate-errors-spki-list trusts this one key (and keeps
    // its HTTP cache on, which any certificate error would turn off).
    const spki = new X509Certificate(cert).publicKey.export({ type: "spki", format: "der" });
    return { cert, key, spki: createHash("sha256").update(spki).digest("base64") };
  } catch (error) {
    return { failed: String(error.message ?? error).split("\n")[0] };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `root` under `prefix` on 127.0.0.1 (like a GitHub Pages project site): js/tools/server.mjs
 * (gzip as GitHub Pages) behind a front that speaks HTTP/2 over TLS (`tls`) or HTTP/1.1.
 * A request for one byte range of a binary file gets that range (206), as GitHub Pages
 * answers. Log entries: {path, status, bytes (the file's; a range's for a 206), sent
 * (body bytes), encoding, version,
 * start, end (performance.now() of this process)}.
 */
export async function serve(root, prefix, tls) {
  const origin = await serveSite(root, { prefix, gzip: true });
  const port = new URL(origin.url).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const log = [];
  const handle = (request, response) => {
    const entry = { path: new URL(request.url, "http://127.0.0.1").pathname, status: 0,
                    bytes: 0, sent: 0, encoding: "identity", version: request.httpVersion,
                    start: performance.now(), end: null };
    log.push(entry);
    response.on("close", () => { entry.end = performance.now(); });
    const upstream = httpRequest({
      host: "127.0.0.1", port, path: request.url, method: request.method, agent,
      headers: { "accept-encoding": request.headers["accept-encoding"] ?? "",
                 ...(request.headers.range ? { range: request.headers.range } : {}) },
    }, (answer) => {
      entry.status = answer.statusCode;
      entry.encoding = answer.headers["content-encoding"] ?? "identity";
      if (answer.statusCode === 200) entry.bytes = resolveFile(root, entry.path.slice(prefix.length))?.size ?? 0;
      if (answer.statusCode === 206) entry.bytes = Number(answer.headers["content-length"] ?? 0); // a range
      const headers = { ...answer.headers };
      for (const name of HOP_HEADERS) delete headers[name];
      // GitHub Pages' caching: ten minutes for everything.
      if (answer.statusCode === 200 || answer.statusCode === 206) headers["cache-control"] = "max-age=600";
      response.writeHead(answer.statusCode, headers);
      answer.on("data", (chunk) => { entry.sent += chunk.length; });
      answer.pipe(response);
    });
    upstream.on("error", (error) => {
      entry.status = 502;
      response.destroy(error);
    });
    upstream.end();
  };
  const server = tls?.cert
    ? createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: false }, handle)
    : createServer(handle);
  if (!tls?.cert) server.keepAliveTimeout = 1000;
  const sessions = new Set();
  server.on(tls?.cert ? "session" : "connection", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve({
      url: `${tls?.cert ? "https" : "http"}://127.0.0.1:${server.address().port}${prefix}`,
      log,
      close: async () => {
        for (const s of sessions) s.destroy();
        await new Promise((done) => server.close(() => done()));
        agent.destroy();
        await origin.close();
      },
    }));
  });
}

// ---------------------------------------------------------------- browser

/** Headless Chromium with a fresh profile (js/tools/chromium.mjs), trusting the run's
 * certificate; closing it never throws (a run's figures are taken by then). */
export async function launch(tls) {
  const browser = await launchChromium({
    args: tls?.spki ? [`--ignore-certificate-errors-spki-list=${tls.spki}`] : [],
    viewport: { width: 1280, height: 800 },
  });
  return { context: browser.context, close: () => browser.close().catch(() => {}) };
}

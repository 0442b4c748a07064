// Headless Debian Chromium driven by playwright-core (never a downloaded browser).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const EXECUTABLE = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
  // Pages may link fonts or scripts on the internet: only 127.0.0.1 resolves.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

/**
 * A fresh profile each time; returns {context, close}. `args`: flags beyond FLAGS;
 * `viewport`: the page size (Playwright's default when absent).
 */
export async function launch({ args = [], viewport } = {}) {
  const profile = mkdtempSync(join(tmpdir(), "semantic-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE,
      headless: true,
      args: [...FLAGS, ...args],
      ...(viewport ? { viewport } : {}),
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`could not start ${EXECUTABLE} (${error.message.split("\n")[0]}): ` +
      "install Debian's chromium (scripts/setup does) or set CHROMIUM");
  }
  return {
    context,
    close: async () => {
      try {
        await context.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A reader's network for `page` (and its workers), by CDP Network.emulateNetworkConditions:
 * every request waits `latencyMs`, bytes come at `mbps` both ways.
 */
export async function throttle(context, page, { mbps, latencyMs }) {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const bytesPerSecond = (mbps * 1e6) / 8;
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false, latency: latencyMs,
    downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond,
  });
}

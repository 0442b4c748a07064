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

/** A fresh profile each time; returns {context, close}. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), "semantic-chromium-"));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE,
      headless: true,
      args: FLAGS,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`could not start ${EXECUTABLE} (${error.message.split("\n")[0]}): ` +
      "install Debian's chromium (scripts/setup does) or set CHROMIUM");
  }
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

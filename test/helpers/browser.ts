/**
 * Headless Chromium for the browser tests, driven by puppeteer-core. The browser is Debian's
 * `chromium` (PARZARR_CHROMIUM overrides the path). When PARZARR_REQUIRE_PEERS=1 (as in CI) a
 * missing browser fails the run instead of skipping the tests.
 */
import { existsSync } from "node:fs";
import puppeteer, { type Browser } from "puppeteer-core";
import { noPeersSkip } from "./peers.js";

export const CHROMIUM = process.env.PARZARR_CHROMIUM ?? "/usr/bin/chromium";
const required = process.env.PARZARR_REQUIRE_PEERS === "1";

/** false when Chromium can be used; otherwise the reason to skip. Throws when peers are required. */
export function chromiumSkip(): false | string {
  if (noPeersSkip()) return noPeersSkip();
  if (existsSync(CHROMIUM)) return false;
  const why = `no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set PARZARR_CHROMIUM)`;
  if (required) throw new Error(`PARZARR_REQUIRE_PEERS=1 but ${why}`);
  return why;
}

export async function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in a container has no user namespace for Chromium's sandbox.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Debian's Chromium, which .ci/run installs. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests run: always in CI (where a missing browser fails them). */
export const HAS_CHROMIUM = existsSync(CHROMIUM) || Boolean(process.env.CI);

/**
 * Headless Chromium with what this network needs: no background requests, which a closed
 * network refuses by the dozen, and no sandbox (the tests run as root).
 */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';

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

/** The widths the pages are tried at: a desktop's window and a phone's. */
export const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

let axeSource: string | undefined;

/** axe-core's findings of serious or critical impact on the page as it is shown. */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the debugging protocol: the pages' own policy allows no inline script.
  await page.evaluate(axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } })
      .axe;
    return (await axe.run()).violations;
  })) as { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

/** How far the page is wider than the window: more than 0 is a sideways scroll. */
export function overflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const view = globalThis as unknown as {
      innerWidth: number;
      document: { documentElement: { scrollWidth: number } };
    };
    return view.document.documentElement.scrollWidth - view.innerWidth;
  });
}

import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, seriousViolations, WIDTHS } from '../helpers/chromium.js';
import { writeRichPackage } from '../helpers/rich-package.js';
import {
  browserLogin,
  EXAMPLES,
  publish,
  runData,
  tempDir,
  waitForState,
  withHub,
} from '../hub/helpers.js';

const SHOTS = join(import.meta.dirname, '../../test-output/pages');

describe.skipIf(!HAS_CHROMIUM)('the hub pages in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('home, dataset, failed revision, owner, search and diff pages at desktop and phone widths: screenshots, no serious accessibility violation', async () => {
    const rich = tempDir();
    const broken = tempDir();
    try {
      writeRichPackage(rich);
      writeRichPackage(broken, 'broken-rain');
      writeFileSync(join(broken, 'data', 'rain.csv'), 'month,rain_mm,days\n2020-01,-1,x\n');
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        const env = { DATA_API: url, DATA_TOKEN: jwt };
        expect((await runData(['publish', rich], { env })).code).toBe(0);
        expect((await runData(['publish', join(EXAMPLES, 'cities')], { env })).code).toBe(0);
        expect((await runData(['publish', join(EXAMPLES, 'weather-stations')], { env })).code).toBe(
          0,
        );
        const failed = await publish(url, jwt, broken);
        expect((await waitForState(url, failed.flowId)).state).toBe('FAILED');
        const pages = {
          home: '/',
          dataset: '/ada/rainfall',
          failed: '/ada/broken-rain',
          owner: '/ada',
          search: '/?q=rain',
          diff: '/ada/rainfall/diff/1..1',
        };
        mkdirSync(SHOTS, { recursive: true });
        for (const [device, viewport] of Object.entries(WIDTHS)) {
          const context = await browser.newContext({ viewport });
          // The owner sees the failed revision: sign the browser in with the session cookie.
          await context.addCookies([{ name: 'data_session', value: jwt, url }]);
          const page = await context.newPage();
          const blocked: string[] = [];
          page.on('console', (message) => {
            if (message.type() === 'error') blocked.push(message.text());
          });
          for (const [name, path] of Object.entries(pages)) {
            const response = await page.goto(`${url}${path}`);
            expect(response?.status(), path).toBe(200);
            const file = join(SHOTS, `${name}-${device}.png`);
            await page.screenshot({ path: file, fullPage: true });
            expect(statSync(file).size).toBeGreaterThan(10_000);
            expect(await seriousViolations(page), `${name} at ${device} width`).toEqual([]);
            // Nothing wider than the screen but the tables and charts, which scroll in place.
            const overflow = await page.evaluate(() => {
              const view = globalThis as unknown as {
                innerWidth: number;
                document: { documentElement: { scrollWidth: number } };
              };
              return view.document.documentElement.scrollWidth - view.innerWidth;
            });
            expect(overflow, `${name} at ${device} width`).toBeLessThanOrEqual(0);
          }
          expect(blocked).toEqual([]);
          await context.close();
        }
      });
    } finally {
      rmSync(rich, { recursive: true, force: true });
      rmSync(broken, { recursive: true, force: true });
    }
  }, 120_000);

  it('the dataset page works without inline script: its copy button, its preview pages', async () => {
    const rich = tempDir();
    try {
      writeRichPackage(rich);
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        expect(
          (await runData(['publish', rich], { env: { DATA_API: url, DATA_TOKEN: jwt } })).code,
        ).toBe(0);
        const context = await browser.newContext({ viewport: WIDTHS.desktop });
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
        const page = await context.newPage();
        await page.goto(`${url}/ada/rainfall`);
        // The README's script did not run.
        expect(await page.title()).toBe('Monthly rainfall');
        await page.click('button.copy');
        await page.waitForSelector('button.copy:text("Copied")');
        const copied = await page.evaluate(() =>
          (
            globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
          ).navigator.clipboard.readText(),
        );
        expect(copied).toBe('data get ada/rainfall');
        const firstCell = () => page.locator('#table-viewer tbody tr td').first().textContent();
        expect(await firstCell()).toBe('2020-01');
        // Twenty rows a page, then the next twenty.
        await page.goto(`${url}/ada/rainfall?size=20`);
        await Promise.all([
          page.waitForURL(/rows=20/),
          page.getByRole('link', { name: 'Next', exact: true }).click(),
        ]);
        expect(await firstCell()).toBe('2021-09');
        expect(await page.textContent('#table-viewer nav.pager')).toContain('Rows 21–40 of 45');
        await context.close();
      });
    } finally {
      rmSync(rich, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * The page of a user's tokens in Chromium: at desktop and phone widths, no serious
 * accessibility violation (axe-core), nothing wider than the screen, and a token revoked
 * with the keyboard alone.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, seriousViolations, WIDTHS } from '../helpers/chromium.js';
import { browserLogin, withHub } from '../hub/helpers.js';

async function makeToken(url: string, auth: string, name: string): Promise<string> {
  const response = await fetch(`${url}/api/tokens`, {
    method: 'POST',
    headers: { 'Auth-Token': auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, scope: 'publish', datasets: ['ada/world-cities'] }),
  });
  return ((await response.json()) as { token: string }).token;
}

describe.skipIf(!HAS_CHROMIUM)('the page of tokens in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('is accessible at both widths, and revokes a token from the keyboard', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url, 'ada');
      const token = await makeToken(url, jwt, 'deploy from the CI of the prices repository');
      await makeToken(url, jwt, 'laptop <script>');
      for (const [device, viewport] of Object.entries(WIDTHS)) {
        const context = await browser.newContext({ viewport });
        await context.addCookies([{ name: 'data_session', value: jwt, url }]);
        const page = await context.newPage();
        expect((await page.goto(`${url}/settings/tokens`))?.status()).toBe(200);
        expect(await seriousViolations(page), device).toEqual([]);
        const overflow = await page.evaluate(() => {
          const view = globalThis as unknown as {
            innerWidth: number;
            document: { documentElement: { scrollWidth: number } };
          };
          return view.document.documentElement.scrollWidth - view.innerWidth;
        });
        expect(overflow, device).toBeLessThanOrEqual(0);
        await context.close();
      }

      const context = await browser.newContext();
      await context.addCookies([{ name: 'data_session', value: jwt, url }]);
      const page = await context.newPage();
      await page.goto(`${url}/settings/tokens`);
      const label = 'Revoke deploy from the CI of the prices repository';
      // Tab until the button is focused, as a keyboard user would, then Enter.
      for (let presses = 0; presses < 30; presses++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(
          () =>
            (
              globalThis as unknown as {
                document: { activeElement: { getAttribute(name: string): string | null } | null };
              }
            ).document.activeElement?.getAttribute('aria-label') ?? null,
        );
        if (focused === label) break;
      }
      await Promise.all([
        page.waitForURL(/\/settings\/tokens\?revoked=/),
        page.keyboard.press('Enter'),
      ]);
      // The notice says no name: an address's words are never shown as the hub's (a95223c).
      expect(await page.textContent('[role="status"]')).toContain('Token revoked.');
      expect(await page.textContent('table')).not.toContain('deploy from the CI');
      expect(await page.textContent('table')).toContain('laptop <script>');
      const check = await fetch(`${url}/auth/check`, { headers: { 'Auth-Token': token } });
      expect(((await check.json()) as { authenticated: boolean }).authenticated).toBe(false);
      await context.close();
    });
  }, 60_000);
});

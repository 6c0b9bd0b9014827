/** The old DataHub client publishes to our hub unchanged. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { datahubPush, installDatahubCli } from '../helpers/datahub-cli.js';
import { browserLogin, EXAMPLES, waitForState, withHub } from '../hub/helpers.js';

describe('datahub-cli 0.6.3 against data serve', () => {
  beforeAll(installDatahubCli, 330_000);

  it('pushes an example that reads back byte-identical', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url, 'ada');
      const { code, out, userid } = await datahubPush(join(EXAMPLES, 'cities'), {
        url,
        jwt,
        username: 'ada',
      });
      expect(out).toContain('your data is published');
      expect(code).toBe(0);
      expect((await waitForState(url, `${userid}/world-cities/1`)).state).toBe('SUCCEEDED');
      for (const path of ['data/countries.csv', 'data/cities.csv']) {
        const served = Buffer.from(
          await (
            await fetch(`${url}/ada/world-cities/r/${path.split('/').pop() ?? ''}`)
          ).arrayBuffer(),
        );
        expect(served.equals(readFileSync(join(EXAMPLES, 'cities', path)))).toBe(true);
      }
      const page = await fetch(`${url}/ada/world-cities/v/1`);
      expect(page.status).toBe(200);
    });
  }, 120_000);
});

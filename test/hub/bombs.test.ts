import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeOdsBombWithHeader, writeXlsxTextBomb, xlsChainBomb } from '../helpers/bombs.js';
import { browserLogin, publish, tempDir, waitForState, withHub } from './helpers.js';

/** A package of one workbook resource, its file made by `write` in the package's folder. */
async function bombPackage(
  name: string,
  file: string,
  write: (path: string) => Promise<void>,
): Promise<string> {
  const dir = tempDir();
  await write(join(dir, file));
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({ name, resources: [{ name: 'sheet', path: file }] }),
  );
  return dir;
}

describe('a hub given files that spell far more than they hold', () => {
  it('fails the publication of each with its plain reason, and stays up', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const bombs = [
        {
          // Within the hub's 10,000 columns, and no row of it an error.
          dir: await bombPackage('ods-bomb', 'bomb.ods', (path) =>
            writeOdsBombWithHeader(path, 10_000),
          ),
          reason: 'the sheet holds more than 100,000,000 cells by row 2',
        },
        {
          dir: await bombPackage('xlsx-bomb', 'blanks.xlsx', (path) =>
            writeXlsxTextBomb(path, 600_000_000, 'shared'),
          ),
          reason: 'a cell holds more than 16,777,216 characters, more than a workbook cell can',
        },
        {
          dir: await bombPackage('xls-bomb', 'loop.xls', (path) => {
            writeFileSync(path, xlsChainBomb());
            return Promise.resolve();
          }),
          reason: 'the .xls workbook is damaged: its sector chains loop or overlap',
        },
      ];
      for (const { dir, reason } of bombs) {
        const { flowId } = await publish(url, jwt, dir);
        const status = await waitForState(url, flowId);
        expect(status.state).toBe('FAILED');
        expect(status.error_log.join('\n')).toContain(reason);
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
      }
    });
  });
});

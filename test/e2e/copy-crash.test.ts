import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { browserLogin, runData } from '../hub/helpers.js';

const ROWS = 3_000_000;

/** A table whose JSON copy takes the hub a few seconds to write: some 200 MB. */
function largePackage(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const lines: string[] = ['id;name;amount'];
  for (let i = 0; i < ROWS; i++)
    lines.push(`${String(i)};item ${String(i % 977)};${String(i % 5000)}.25`);
  writeFileSync(join(dir, 'large.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'large',
      resources: [
        {
          name: 'large',
          path: 'large.csv',
          dialect: { delimiter: ';' },
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'name', type: 'string' },
              { name: 'amount', type: 'number' },
            ],
          },
        },
      ],
    }),
  );
}

/** Reads a response to its end; rejects if the connection ends first. */
async function readAll(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe('a copy the hub was making when it was killed', () => {
  it('is never served in part: the reader sees the cut, and the hub started again makes it whole', async () => {
    const work = mkdtempSync(join(tmpdir(), 'data-crash-'));
    const args = ['--data-dir', join(work, 'hub'), '--max-storage-mb', '2000'];
    let hub: ServeProcess | undefined = await startServe(args);
    try {
      largePackage(join(work, 'large'));
      const jwt = await browserLogin(hub.url);
      const published = await runData(['publish', join(work, 'large')], {
        env: { DATA_API: hub.url, DATA_TOKEN: jwt },
      });
      expect(published.code).toBe(0);
      const response = await fetch(`${hub.url}/ada/large/r/large.json`);
      expect(response.status).toBe(200);
      // Made as it is sent: no length is promised.
      expect(response.headers.get('content-length')).toBeNull();
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      hub.child.kill('SIGKILL');
      await hub.stop();
      hub = undefined;
      // The rest never comes: the body ends in an error, not as a whole copy.
      await expect(
        (async () => {
          for (;;) if ((await reader.read()).done) return 'ended as if whole';
        })(),
      ).rejects.toThrow();

      hub = await startServe(args);
      const again = await fetch(`${hub.url}/ada/large/r/large.json`);
      expect(again.status).toBe(200);
      const rows = JSON.parse((await readAll(again)).toString()) as { id: number }[];
      expect(rows).toHaveLength(ROWS);
      expect(rows.at(-1)).toEqual({
        id: ROWS - 1,
        name: `item ${String((ROWS - 1) % 977)}`,
        amount: 4999.25,
      });
      // Kept whole this time: the same bytes, with their length.
      const kept = await fetch(`${hub.url}/ada/large/r/large.json`, { method: 'HEAD' });
      expect(Number(kept.headers.get('content-length'))).toBeGreaterThan(ROWS * 40);
    } finally {
      await hub?.stop();
      rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);
});

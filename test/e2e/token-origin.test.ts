/**
 * The real `data` against a real `data serve` and a listener on another port of 127.0.0.1
 * that records every request's headers: the hub's token, stored or in DATA_TOKEN, reaches
 * the hub's private dataset and never the listener (validate's worker included).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../packages/cli/src/credentials/store.js';
import { startServe } from '../helpers/serve.js';
import { browserLogin, CITIES_DIR, publish, runData, waitForState } from '../hub/helpers.js';

const CSV = 'id,name\n1,a\n2,b\n';
const DESCRIPTOR = JSON.stringify({
  name: 'd',
  resources: [{ name: 't', path: 't.csv', format: 'csv', mediatype: 'text/csv' }],
});

async function recorder() {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    seen.push({ path, headers: request.headers });
    if (path === '/o/d/datapackage.json') response.end(DESCRIPTOR);
    else if (path === '/o/d/t.csv' || path === '/o/d/r/t.csv') response.end(CSV);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('data with a token for its hub', () => {
  it('sends it to the hub only, stored or in DATA_TOKEN', async () => {
    const hub = await startServe(['--data-dir', mkdtempSync(join(tmpdir(), 'data-hub-'))]);
    const other = await recorder();
    try {
      const token = await browserLogin(hub.url, 'ada');
      const { flowId } = await publish(hub.url, token, CITIES_DIR, {
        dataset: 'secret',
        findability: 'private',
      });
      expect((await waitForState(hub.url, flowId, token)).state).toBe('SUCCEEDED');
      const stored = mkdtempSync(join(tmpdir(), 'data-stored-'));
      const env = { DATA_API: hub.url, DATA_KEYCHAIN: '0' };
      await new CredentialStore({ ...env, DATA_CONFIG_DIR: join(stored, '.config') }).set(hub.url, {
        token,
        profile: { id: 'ada-id', username: 'ada' },
      });
      const ways = [
        { cwd: stored, env },
        { cwd: mkdtempSync(join(tmpdir(), 'data-env-')), env: { ...env, DATA_TOKEN: token } },
      ];
      for (const way of ways) {
        for (const args of [
          ['get', `${other.url}/o/d`, '--out', 'd'],
          ['get', `${other.url}/o/d/r/t.csv`, '--out', 'file'],
          ['info', `${other.url}/o/d`],
          ['cat', `${other.url}/o/d`],
          ['diff', `${other.url}/o/d`, `${other.url}/o/d`],
          ['validate', `${other.url}/o/d/datapackage.json`],
        ]) {
          const result = await runData(args, way);
          expect({ args, code: result.code, err: result.err }).toMatchObject({ code: 0 });
          expect(result.err).toContain(
            `note: not sending your token to ${other.url} (it belongs to ${hub.url})\n`,
          );
        }
        for (const args of [
          // Saved elsewhere: a folder ./ada/secret would be what info, cat and diff read.
          ['get', 'ada/secret', '--out', 'secret'],
          ['info', 'ada/secret'],
          ['cat', 'ada/secret', 'countries'],
          ['diff', 'ada/secret', 'ada/secret'],
          ['validate', `${hub.url}/ada/secret/datapackage.json`],
        ]) {
          const result = await runData(args, way);
          expect({ args, code: result.code, err: result.err }).toMatchObject({ code: 0 });
          expect(result.err).not.toContain('note:');
        }
      }
      expect(other.seen.length).toBeGreaterThanOrEqual(12);
      const credentialed = other.seen.filter(({ headers }) =>
        ['auth-token', 'authorization', 'cookie'].some((name) => name in headers),
      );
      expect(credentialed).toEqual([]);
    } finally {
      await other.close();
      await hub.stop();
    }
  });
});

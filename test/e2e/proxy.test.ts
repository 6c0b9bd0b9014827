import { readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_TINYPROXY, startTinyproxy, type RunningProxy } from '../helpers/tinyproxy.js';
import { browserLogin, EXAMPLES, runData, tempDir, withHub } from '../hub/helpers.js';

const CERT = join(import.meta.dirname, '../fixtures/tls/cert.pem');

/** An https front to a hub on plain http, with the test certificate (localhost, 127.0.0.1). */
async function httpsFront(target: string): Promise<{ server: Server; url: string }> {
  const server = createHttpsServer(
    {
      key: readFileSync(join(import.meta.dirname, '../fixtures/tls/key.pem')),
      cert: readFileSync(CERT),
    },
    (incoming, outgoing) => {
      const forward = httpRequest(
        new URL(incoming.url ?? '/', target),
        { method: incoming.method, headers: incoming.headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forward);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `https://localhost:${String(port)}` };
}

describe.skipIf(!HAS_TINYPROXY)('data behind a proxy (tinyproxy)', () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startTinyproxy();
  });
  afterAll(async () => {
    await proxy.stop();
  });

  it('publishes and gets through HTTP_PROXY: API calls, uploads and downloads all', async () => {
    const work = tempDir();
    try {
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        const env = { DATA_API: url, DATA_TOKEN: jwt, HTTP_PROXY: proxy.url };
        const before = proxy.log().length;
        const published = await runData(['publish', join(EXAMPLES, 'cities')], { env });
        expect(published.err).not.toMatch(/^error/m);
        expect(published.code).toBe(0);
        const got = await runData(['get', 'ada/world-cities', '--out', 'got'], { env, cwd: work });
        expect(got.code).toBe(0);
        expect(readFileSync(join(work, 'got', 'data', 'cities.csv'))).toEqual(
          readFileSync(join(EXAMPLES, 'cities', 'data', 'cities.csv')),
        );
        // Remote resources are read by the validation worker, through the proxy too.
        const afterGet = proxy.log().length;
        const validated = await runData(['validate', `${url}/ada/world-cities/datapackage.json`], {
          env,
        });
        expect(validated.code).toBe(0);
        expect(proxy.log().slice(afterGet)).toContain(
          `GET ${url}/ada/world-cities/data/countries.csv`,
        );
        const log = proxy.log().slice(before);
        for (const line of [
          `POST ${url}/rawstore/authorize`,
          `POST ${url}/source/upload`,
          `GET ${url}/ada/world-cities/datapackage.json`,
          `GET ${url}/ada/world-cities/data/cities.csv`,
          `GET ${url}/ada/world-cities/r/cities.csv`.replace(
            '/r/cities.csv',
            '/data/countries.csv',
          ),
        ])
          expect(log).toContain(line);
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('leaves the hosts of NO_PROXY alone', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const before = proxy.log().length;
      const published = await runData(['publish', join(EXAMPLES, 'cities')], {
        env: { DATA_API: url, DATA_TOKEN: jwt, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      });
      expect(published.code).toBe(0);
      expect(proxy.log().slice(before)).not.toContain(url);
    });
  });

  it('tunnels https through CONNECT, checking the origin certificate', async () => {
    const work = tempDir();
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      expect(
        (
          await runData(['publish', join(EXAMPLES, 'cities')], {
            env: { DATA_API: url, DATA_TOKEN: jwt },
          })
        ).code,
      ).toBe(0);
      const front = await httpsFront(url);
      try {
        const before = proxy.log().length;
        const got = await runData(['get', `${front.url}/ada/world-cities`, '--out', 'got'], {
          env: { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: CERT },
          cwd: work,
        });
        expect(got.err).not.toMatch(/^error/m);
        expect(got.code).toBe(0);
        expect(proxy.log().slice(before)).toContain(
          `CONNECT ${front.url.slice('https://'.length)}`,
        );
        // Without the certificate authority, the tunnel does not make the origin trusted.
        const refused = await runData(['get', `${front.url}/ada/world-cities`, '--out', 'no'], {
          env: { HTTPS_PROXY: proxy.url },
          cwd: work,
        });
        expect(refused.code).toBe(3);
      } finally {
        front.server.close();
        rmSync(work, { recursive: true, force: true });
      }
    });
  });

  it('says when the proxy cannot be reached, exit 3, without its password', async () => {
    await withHub({}, async ({ url }) => {
      // The hub answers directly (no such dataset: exit 2); through the dead proxy, nothing does.
      expect((await runData(['get', 'ada/nothing'], { env: { DATA_API: url } })).code).toBe(2);
      const got = await runData(['get', 'ada/nothing'], {
        env: { DATA_API: url, HTTP_PROXY: 'http://ada:s3cret@127.0.0.1:1' },
      });
      expect(got.code).toBe(3);
      expect(got.err).not.toContain('s3cret');
      expect(got.err).not.toMatch(/bug/);
    });
  });
});

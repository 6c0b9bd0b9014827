import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch as request } from '../../packages/core/src/http/transport.js';
import { followingRedirects, send } from '../../packages/core/src/http/http.js';
import { NetworkError } from '../../packages/core/src/errors.js';

interface Seen {
  server: string;
  method: string;
  path: string;
  token: string | undefined;
  body: string;
}

const seen: Seen[] = [];
const servers: Server[] = [];

async function read(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

async function start(name: string, routes: Record<string, [number, string]>): Promise<string> {
  const server = createServer((request, response) => {
    void read(request).then((body) => {
      const token = request.headers['auth-token'];
      seen.push({
        server: name,
        method: request.method ?? '',
        path: request.url ?? '',
        token: typeof token === 'string' ? token : undefined,
        body,
      });
      const [status, location] = routes[request.url ?? ''] ?? [200, ''];
      if (location) response.writeHead(status, { Location: location }).end();
      else response.end(`${name}${request.url ?? ''}`);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

/** What the client uses: the transport, with redirects followed by http.ts. */
const fetch = followingRedirects(request);

let first = '';
let other = '';

beforeAll(async () => {
  other = await start('other', {});
  first = await start('first', {
    '/away': [302, `${other}/landed`],
    '/here': [301, '/landed'],
    '/posted': [303, '/result'],
    '/kept': [307, '/again'],
  });
});
afterAll(() => {
  for (const server of servers) server.close();
});

describe('the undici transport, redirects followed', () => {
  it('leaves the token behind on a redirect to another origin', async () => {
    seen.length = 0;
    const response = await fetch(`${first}/away`, { headers: { 'Auth-Token': 'secret' } });
    expect(await response.text()).toBe('other/landed');
    expect(seen.map(({ server, token }) => [server, token])).toEqual([
      ['first', 'secret'],
      ['other', undefined],
    ]);
  });

  it('keeps the token on a redirect within the origin', async () => {
    seen.length = 0;
    const response = await fetch(`${first}/here`, { headers: { 'Auth-Token': 'secret' } });
    expect(await response.text()).toBe('first/landed');
    expect(seen.map(({ token }) => token)).toEqual(['secret', 'secret']);
  });

  it('turns a POST into a GET on 303, and replays the body on 307', async () => {
    seen.length = 0;
    await (await fetch(`${first}/posted`, { method: 'POST', body: 'form' })).text();
    await (await fetch(`${first}/kept`, { method: 'POST', body: 'again' })).text();
    expect(seen.map(({ method, path, body }) => [method, path, body])).toEqual([
      ['POST', '/posted', 'form'],
      ['GET', '/result', ''],
      ['POST', '/kept', 'again'],
      ['POST', '/again', 'again'],
    ]);
  });

  it('hands a redirect back when asked to', async () => {
    const response = await fetch(`${first}/away`, { redirect: 'manual' });
    await response.text();
    expect([response.status, response.headers.get('location')]).toEqual([302, `${other}/landed`]);
  });

  it('names the step and the refused connection', async () => {
    const closed = await start('closed', {});
    const server = servers.pop();
    await new Promise((resolve) => server?.close(resolve));
    const failure = await send(fetch, 'check', `${closed}/auth/check`).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(NetworkError);
    expect((failure as Error).message).toBe(`check: cannot reach ${closed} (ECONNREFUSED)`);
  });
});

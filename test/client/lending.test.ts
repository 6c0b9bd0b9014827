import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as wait } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { lendingFetch } from '../../packages/core/src/http/lending.js';
import type { HttpResponse } from '../../packages/core/src/http/http.js';
import { NetworkError } from '../../packages/core/src/errors.js';

const servers: { close: () => void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  servers.push({
    close: () => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      server.close();
    },
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    }),
  );
}

/** An HTTP server that counts the connections it is opened. */
async function http(handler: RequestListener): Promise<{ url: string; connections: () => number }> {
  const server = createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  const port = await listen(server);
  return { url: `http://127.0.0.1:${String(port)}`, connections: () => connections };
}

/** A TCP server that answers each connection with whatever `answer` writes. */
async function raw(answer: (socket: Socket) => void): Promise<string> {
  const server = createTcpServer((socket) => {
    socket.once('data', () => {
      answer(socket);
    });
    socket.on('error', () => undefined);
  });
  return `http://127.0.0.1:${String(await listen(server))}`;
}

/** Reads a body, copying each lent chunk only after a pause, as a slow disk would. */
async function slowCopy(response: HttpResponse, pauseEvery = 7): Promise<Buffer> {
  const copies: Buffer[] = [];
  let index = 0;
  for await (const chunk of response.body ?? []) {
    if (++index % pauseEvery === 0) await wait(1);
    copies.push(Buffer.from(chunk));
  }
  return Buffer.concat(copies);
}

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('the lending fetch', () => {
  const payload = randomBytes(3 * 1024 * 1024 + 17);

  it('keeps every lent chunk intact until the next is asked for, however slow the reader', async () => {
    const server = await http((_, response) => response.end(payload));
    const response = await lendingFetch()(`${server.url}/file`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Length')).toBe(String(payload.length));
    expect(sha(await slowCopy(response, 3))).toBe(sha(payload));
  });

  it('decodes a chunked body and sends the headers it is given', async () => {
    let token: string | undefined;
    const server = await http((request, response) => {
      token = request.headers['auth-token'] as string | undefined;
      for (let at = 0; at < payload.length; at += 100_000)
        response.write(payload.subarray(at, at + 100_000));
      response.end();
    });
    const response = await lendingFetch()(`${server.url}/file?x=1`, {
      headers: { 'Auth-Token': 'secret' },
    });
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(sha(await slowCopy(response))).toBe(sha(payload));
    expect(token).toBe('secret');
  });

  it('reads a body that ends when the server closes', async () => {
    const url = await raw((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n');
      socket.end(payload);
    });
    expect(sha(await slowCopy(await lendingFetch()(url)))).toBe(sha(payload));
  });

  it('reads a head that arrives a byte at a time, after an interim 103', async () => {
    const head =
      'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
    const url = await raw((socket) => {
      void (async () => {
        for (const byte of Buffer.from(head)) {
          socket.write(Buffer.of(byte));
          await wait(0);
        }
      })();
    });
    const response = await lendingFetch()(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello');
  });

  it('asks over the same connection again when the answers say it may stay', async () => {
    const server = await http((request, response) => {
      if (request.url === '/empty') response.writeHead(204).end();
      else response.end('body');
    });
    const fetch = lendingFetch();
    expect(await (await fetch(`${server.url}/a`)).text()).toBe('body');
    expect((await fetch(`${server.url}/empty`)).status).toBe(204);
    expect(await (await fetch(`${server.url}/b`)).text()).toBe('body');
    const warnings: Error[] = [];
    const warn = (warning: Error) => warnings.push(warning);
    process.on('warning', warn);
    for (let n = 0; n < 30; n++) await (await fetch(`${server.url}/n`)).text();
    process.off('warning', warn);
    expect(server.connections()).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('drops the connection of a body read only in part, and asks over a new one', async () => {
    const server = await http((_, response) => response.end(payload));
    const fetch = lendingFetch();
    for await (const chunk of (await fetch(server.url)).body ?? []) if (chunk.length > 0) break;
    expect(sha(await slowCopy(await fetch(server.url)))).toBe(sha(payload));
    expect(server.connections()).toBe(2);
  });

  it('retries once on a fresh connection when a kept one was closed before answering', async () => {
    let answered = 0;
    const url = await raw((socket) => {
      // The first connection answers then drops silently after the next request arrives.
      if (answered++ === 0) {
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        socket.once('data', () => socket.destroy());
      } else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh');
    });
    const fetch = lendingFetch();
    expect(await (await fetch(url)).text()).toBe('ok');
    expect(await (await fetch(url)).text()).toBe('fresh');
    expect(answered).toBe(2);
  });

  it('fails with a network error when the connection closes before the end of the body', async () => {
    const url = await raw((socket) => {
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly this');
    });
    const response = await lendingFetch()(url);
    await expect(response.text()).rejects.toThrow(/closed before the end of the body/);
    await expect(lendingFetch()(await raw((socket) => socket.end()))).rejects.toThrow(
      /closed before the end of the answer/,
    );
  });

  it.each([
    ['a status line that is not HTTP/1.1', 'ICY 200 OK\r\n\r\n'],
    ['a length that is not a number', 'HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n'],
    ['a head with no end', `HTTP/1.1 200 OK\r\n${'X-Pad: 0123456789\r\n'.repeat(5000)}`],
  ])('refuses an answer with %s', async (_, answer) => {
    const url = await raw((socket) => socket.end(answer));
    const failure = lendingFetch()(url);
    await expect(failure).rejects.toThrow(/not valid HTTP\/1.1/);
    await expect(failure).rejects.toBeInstanceOf(NetworkError);
  });

  it('stops when the caller aborts, before the answer or in the middle of the body', async () => {
    const silent = await raw(() => undefined);
    const early = new AbortController();
    const waiting = lendingFetch()(silent, { signal: early.signal });
    early.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');

    const server = await http((_, response) => {
      response.writeHead(200, { 'Content-Length': String(payload.length * 2) });
      response.write(payload);
    });
    const late = new AbortController();
    const response = await lendingFetch()(server.url, { signal: late.signal });
    const reading = (async () => {
      for await (const chunk of response.body ?? [])
        if (chunk.length > 0) late.abort(new Error('late'));
    })();
    await expect(reading).rejects.toThrow('late');
  });

  it('speaks TLS, checking the certificate against the names it was given', async () => {
    const tls = {
      key: readFileSync(new URL('../fixtures/tls/key.pem', import.meta.url)),
      cert: readFileSync(new URL('../fixtures/tls/cert.pem', import.meta.url)),
    };
    const server = createHttpsServer(tls, (_, response) => response.end(payload));
    const port = await listen(server);
    const fetch = lendingFetch({ ca: tls.cert });
    for (const host of ['localhost', '127.0.0.1']) {
      const response = await fetch(`https://${host}:${String(port)}/file`);
      expect(sha(await slowCopy(response))).toBe(sha(payload));
    }
    await expect(lendingFetch()(`https://localhost:${String(port)}/file`)).rejects.toThrow(
      /self-signed|self signed/,
    );
  });

  it('sends GET only, and refuses a header that would split the request', async () => {
    const fetch = lendingFetch();
    await expect(fetch('http://127.0.0.1:9/', { method: 'POST' })).rejects.toThrow(TypeError);
    await expect(fetch('ftp://127.0.0.1/file')).rejects.toThrow(TypeError);
    const server = await http((_, response) => response.end());
    await expect(
      fetch(server.url, { headers: { 'Auth-Token': 'a\r\nX-Evil: 1' } }),
    ).rejects.toThrow(TypeError);
  });
});

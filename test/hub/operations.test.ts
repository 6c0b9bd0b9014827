import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { postgresBin, startPostgres } from '../helpers/postgres.js';
import { browserLogin, CITIES_DIR, publish, tempDir, waitForState, withHub } from './helpers.js';

/** A raw connection to the hub, to hold a request half-sent. */
function socketTo(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The whole answer on a connection the hub closes after it. */
function answer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
  });
}

describe('a hub an operator runs', () => {
  it('says it is alive, and ready while its database and store answer', async () => {
    await withHub({}, async ({ url }) => {
      const alive = await fetch(`${url}/healthz`);
      expect(alive.status).toBe(200);
      expect(await alive.json()).toEqual({ alive: true });
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ ready: true, failed: [] });
    });
  });

  it('is not ready once it stops, and lets a request in flight finish', async () => {
    await withHub({}, async (running) => {
      const { url, hub } = running;
      // A request begun before the stop: its headers sent, its body not yet.
      const upload = await socketTo(url);
      const uploaded = answer(upload);
      upload.write(
        'POST /rawstore/authorize HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n',
      );
      const probe = await socketTo(url);
      const probed = answer(probe);
      probe.write('GET /readyz HTTP/1.1\r\nHost: hub\r\n');
      const closing = running.close();
      expect(hub.lifecycle.stopping).toBe(true);
      probe.write('Connection: close\r\n\r\n');
      expect(await probed).toMatch(/^HTTP\/1\.1 503 [^]*"failed":\["shutting down"\]/);
      upload.write('{}');
      // Answered (the hub's own answer to an unsigned request), not cut off.
      expect(await uploaded).toMatch(/^HTTP\/1\.1 401 /);
      await closing;
    });
  });

  it('hands a revision in progress back when it stops, and another process finishes it at once', async () => {
    const dataDir = tempDir();
    let stopRequested: () => void = () => undefined;
    const stopping = new Promise<void>((resolve) => (stopRequested = resolve));
    let started: () => void = () => undefined;
    const inProgress = new Promise<void>((resolve) => (started = resolve));
    const { flowId, jwt } = await withHub(
      {
        dataDir,
        // A lease far longer than the test: only its hand-back lets another process go on.
        pipeline: { leaseMs: 600_000 },
        hooks: {
          beforeStep: async (step) => {
            if (step !== 'validate') return;
            started();
            await stopping;
          },
        },
      },
      async (running) => {
        const { url } = running;
        const token = await browserLogin(url);
        const queued = await publish(url, token, CITIES_DIR);
        await inProgress;
        const closed = running.close();
        stopRequested();
        await closed;
        return { flowId: queued.flowId, jwt: token };
      },
    );
    await withHub({ dataDir }, async ({ url }) => {
      const state = await waitForState(url, flowId, jwt);
      expect(state.state).toBe('SUCCEEDED');
    });
  });
});

describe('a hub whose PostgreSQL stops', () => {
  const bin = postgresBin();
  // A server of its own, in the default project: the other runs on the shared one.
  it.runIf((bin !== undefined || Boolean(process.env.CI)) && !process.env.DATA_TEST_DATABASE)(
    'is not ready while its database is down, and ready again once it is back',
    async () => {
      if (!bin) throw new Error('PostgreSQL is not installed');
      const postgres = await startPostgres(bin);
      try {
        await withHub({ database: postgres.url }, async ({ url }) => {
          expect((await fetch(`${url}/readyz`)).status).toBe(200);
          postgres.pause();
          const down = await fetch(`${url}/readyz`);
          expect(down.status).toBe(503);
          expect(await down.json()).toEqual({ ready: false, failed: ['database'] });
          // Alive all the same: the process needs no restart.
          expect((await fetch(`${url}/healthz`)).status).toBe(200);
          postgres.resume();
          for (;;) {
            const again = await fetch(`${url}/readyz`);
            if (again.status === 200) break;
            expect(again.status).toBe(503);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        });
      } finally {
        postgres.stop();
      }
    },
  );
});

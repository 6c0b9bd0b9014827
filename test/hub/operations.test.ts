import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { parsePrometheus, prometheusParserInstalled, type Sample } from '../helpers/prometheus.js';
import { runCli } from '../helpers/cli.js';
import { startServe } from '../helpers/serve.js';
import { describe, expect, it } from 'vitest';
import { postgresBin, startPostgres } from '../helpers/postgres.js';
import {
  browserLogin,
  CITIES_DIR,
  publish,
  storedObjects,
  tempDir,
  testDatabase,
  testStorage,
  waitForState,
  withHub,
} from './helpers.js';

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

async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(`${url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await response.text());
}

/** The sum of the samples of this name whose labels include these. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const named = samples.filter((sample) => sample.name === name);
  if (named.length === 0 && !samples.some((sample) => sample.name.startsWith(name)))
    throw new Error(`no metric ${name}`);
  return named
    .filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + (sample.value ?? 0), 0);
}

// Under CI the parser is installed (.ci/run): a run without it fails there rather than skips.
describe.runIf(prometheusParserInstalled() || Boolean(process.env.CI))(
  'the metrics of a hub',
  () => {
    it('count requests by route template, revisions, steps, sign-ins and what is stored', async () => {
      await withHub({}, async ({ url, hub }) => {
        const jwt = await browserLogin(url);
        const { flowId } = await publish(url, jwt, CITIES_DIR);
        expect((await waitForState(url, flowId, jwt)).state).toBe('SUCCEEDED');
        const got = await fetch(`${url}/ada/world-cities/r/cities.csv`);
        expect(got.status).toBe(200);
        await got.arrayBuffer();
        const refused = await fetch(`${url}/auth/callback/nowhere?state=forged`);
        expect(refused.status).toBe(400);
        await refused.text();
        await fetch(`${url}/healthz`);
        await fetch(`${url}/readyz`);
        const families = await scrape(url);
        for (const sample of families) {
          expect(sample.name.startsWith('data_hub_'), sample.name).toBe(true);
          // No owner or dataset name in a label.
          for (const value of Object.values(sample.labels))
            expect(value, sample.name).not.toMatch(/ada|world-cities|cities\.csv|nowhere|forged/);
        }
        const requests = 'data_hub_http_requests_total';
        expect(
          total(families, requests, {
            route: '/:owner/:dataset/r/:file',
            method: 'GET',
            status: '200',
          }),
        ).toBe(1);
        expect(
          total(families, requests, { route: '/auth/callback/:provider', status: '400' }),
        ).toBe(1);
        for (const route of ['/healthz', '/readyz', '/metrics'])
          expect(total(families, requests, { route })).toBe(0);
        expect(
          total(families, 'data_hub_http_request_duration_seconds_count', {
            route: '/:owner/:dataset/r/:file',
          }),
        ).toBe(1);
        expect(total(families, 'data_hub_http_sent_bytes_total')).toBeGreaterThan(0);
        expect(total(families, 'data_hub_http_received_bytes_total')).toBeGreaterThan(0);
        expect(total(families, 'data_hub_revisions_total', { state: 'SUCCEEDED' })).toBe(1);
        expect(total(families, 'data_hub_revisions_total', { state: 'FAILED' })).toBe(0);
        expect(
          total(families, 'data_hub_pipeline_step_duration_seconds_count', {
            step: 'validate',
            outcome: 'SUCCEEDED',
          }),
        ).toBe(1);
        expect(
          total(families, 'data_hub_sign_ins_total', { provider: 'local', outcome: 'success' }),
        ).toBe(1);
        expect(
          total(families, 'data_hub_sign_ins_total', { provider: 'unknown', outcome: 'failure' }),
        ).toBe(1);
        expect(total(families, 'data_hub_queue_depth')).toBe(0);
        expect(total(families, 'data_hub_queue_oldest_age_seconds')).toBe(0);
        // What the store holds: the two tables and the descriptor the client sent.
        expect(total(families, 'data_hub_stored_objects', { kind: 'originals' })).toBe(
          (await storedObjects(hub)).length,
        );
        expect(total(families, 'data_hub_stored_bytes', { kind: 'originals' })).toBeGreaterThan(0);
        expect(total(families, 'data_hub_leases_taken_over_total')).toBe(0);
        expect(total(families, 'data_hub_process_cpu_seconds_total')).toBeGreaterThan(0);
      });
    });

    it('are off beyond what the operator allows, and behind the token they set', async () => {
      await withHub({ metrics: { enabled: false } }, async ({ url }) => {
        expect((await fetch(`${url}/metrics`)).status).toBe(404);
      });
      await withHub(
        { metrics: { enabled: true, token: 'a-long-metrics-token' } },
        async ({ url }) => {
          const refused = await fetch(`${url}/metrics`);
          expect(refused.status).toBe(401);
          expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
          const wrong = await fetch(`${url}/metrics`, {
            headers: { authorization: 'Bearer nope' },
          });
          expect(wrong.status).toBe(401);
          const families = await scrape(url, { authorization: 'Bearer a-long-metrics-token' });
          expect(total(families, 'data_hub_queue_depth')).toBe(0);
        },
      );
    });
  },
);

describe('the JSON log of a hub', () => {
  it('is one object per line, requests and the pipeline joined by the request id, and no secret', async () => {
    const lines: string[] = [];
    await withHub({ logFormat: 'json', log: (line) => lines.push(line) }, async ({ url }) => {
      const jwt = await browserLogin(url);
      const { flowId } = await publish(url, jwt, CITIES_DIR);
      expect((await waitForState(url, flowId, jwt)).state).toBe('SUCCEEDED');
      const got = await fetch(`${url}/ada/world-cities/r/cities.csv`);
      await got.arrayBuffer();
      expect(got.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const traced = await fetch(`${url}/ada/world-cities/datapackage.json`, {
        headers: { 'x-request-id': 'proxy-7f3a', cookie: `data_session=${jwt}` },
        // (a public dataset's read checks no one: no user id is logged for it)
      });
      await traced.text();
      expect(traced.headers.get('x-request-id')).toBe('proxy-7f3a');
      await fetch(`${url}/healthz`);
      const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const [index, line] of lines.entries()) {
        expect(line).not.toContain(jwt);
        expect(line).not.toMatch(/signature|x-amz|data_session|code_verifier|password/i);
        expect(typeof entries[index]?.time).toBe('string');
        expect(['info', 'warn', 'error']).toContain(entries[index]?.level);
      }
      const requests = entries.filter((entry) => entry.message === 'request');
      expect(requests.some((entry) => entry.route === '/healthz')).toBe(false);
      const logged = requests.find((entry) => entry.requestId === 'proxy-7f3a');
      expect(logged).toMatchObject({
        level: 'info',
        route: '/:owner/:dataset/datapackage.json',
        method: 'GET',
        status: 200,
      });
      expect(typeof logged?.durationMs).toBe('number');
      const upload = requests.find((entry) => entry.route === '/source/upload');
      expect(upload?.userId).toEqual(expect.any(String));
      const pipeline = entries.filter((entry) => entry.revision !== undefined);
      expect(pipeline.map((entry) => entry.message)).toContain('revision succeeded');
      for (const entry of pipeline) expect(entry.requestId).toBe(upload?.requestId);
    });
  });
});

describe('a backup of an embedded hub', () => {
  it.runIf(!process.env.DATA_TEST_DATABASE)(
    'made while it runs, serves the same bytes to the same tokens from a new data folder',
    async () => {
      const dataDir = tempDir();
      const copy = join(tempDir(), 'copy');
      const read = (url: string, jwt?: string) =>
        fetch(`${url}/ada/world-cities/r/cities.csv`, {
          headers: jwt ? { cookie: `data_session=${jwt}` } : {},
        });
      const before = await withHub({ dataDir }, async ({ url }) => {
        const jwt = await browserLogin(url);
        const { flowId } = await publish(url, jwt, CITIES_DIR, { findability: 'private' });
        expect((await waitForState(url, flowId, jwt)).state).toBe('SUCCEEDED');
        const bytes = Buffer.from(await (await read(url, jwt)).arrayBuffer());
        const backup = await runCli(['serve', 'backup', '--data-dir', dataDir, copy], {
          env: { NO_COLOR: '1' },
        });
        expect(backup.code, backup.err).toBe(0);
        expect(backup.out).toContain(`backed up to ${copy}`);
        return { jwt, bytes };
      });
      await withHub({ dataDir: copy }, async ({ url }) => {
        expect((await read(url)).status).toBe(404);
        const restored = await read(url, before.jwt);
        expect(restored.status).toBe(200);
        expect(Buffer.from(await restored.arrayBuffer()).equals(before.bytes)).toBe(true);
      });
      // A second backup into the same folder is refused: nothing is overwritten.
      const again = await runCli(['serve', 'backup', '--data-dir', dataDir, copy], {
        env: { NO_COLOR: '1' },
      });
      expect(again.code).toBe(2);
      expect(again.err).toMatch(/is not empty/);
    },
  );
});

describe('a data serve process', () => {
  it.runIf(!process.env.DATA_TEST_DATABASE)(
    'at SIGTERM lets a request in flight finish, then exits 0',
    async () => {
      const serve = await startServe(['--data-dir', join(tempDir(), 'hub')]);
      try {
        const upload = await socketTo(serve.url);
        const uploaded = answer(upload);
        upload.write(
          'POST /rawstore/authorize HTTP/1.1\r\nHost: hub\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n',
        );
        const stopping = new Promise<void>((resolve) => {
          serve.child.stderr.on('data', (chunk: Buffer) => {
            if (chunk.toString().includes('stopping')) resolve();
          });
        });
        const exited = new Promise<number | null>((resolve) => serve.child.once('exit', resolve));
        serve.child.kill('SIGTERM');
        await stopping;
        upload.write('{}');
        expect(await uploaded).toMatch(/^HTTP\/1\.1 401 /);
        expect(await exited).toBe(0);
      } finally {
        await serve.stop();
      }
    },
  );
});

describe.runIf(prometheusParserInstalled() || Boolean(process.env.CI))(
  'a data serve process with a JSON log, on the engines of the run',
  () => {
    it('logs JSON lines with no secret, and counts what it did in its metrics', async () => {
      const database = await testDatabase();
      const storage = testStorage();
      const serve = await startServe([
        '--data-dir',
        join(tempDir(), 'hub'),
        '--log-format',
        'json',
        ...(database ? ['--database', database.url] : []),
        ...(storage ? ['--storage', storage] : []),
      ]);
      let logged = '';
      serve.child.stderr.on('data', (chunk: Buffer) => (logged += chunk.toString()));
      try {
        const jwt = await browserLogin(serve.url);
        const { flowId } = await publish(serve.url, jwt, CITIES_DIR);
        expect((await waitForState(serve.url, flowId, jwt)).state).toBe('SUCCEEDED');
        const got = await fetch(`${serve.url}/ada/world-cities/r/cities.csv`);
        expect(got.status).toBe(200);
        await got.arrayBuffer();
        await (await fetch(`${serve.url}/auth/callback/nowhere?state=forged`)).text();
        const samples = await scrape(serve.url);
        expect(total(samples, 'data_hub_revisions_total', { state: 'SUCCEEDED' })).toBe(1);
        expect(
          total(samples, 'data_hub_http_requests_total', {
            route: '/:owner/:dataset/r/:file',
            status: '200',
          }),
        ).toBe(1);
        expect(
          total(samples, 'data_hub_sign_ins_total', { provider: 'unknown', outcome: 'failure' }),
        ).toBe(1);
        expect(await serve.stop()).toBe(0);
        const lines = logged.trim().split('\n');
        expect(lines.length).toBeGreaterThan(10);
        for (const line of lines) {
          const entry = JSON.parse(line) as { level?: unknown; message?: unknown };
          expect(['info', 'warn', 'error']).toContain(entry.level);
          expect(line).not.toContain(jwt);
          expect(line).not.toMatch(/signature|x-amz|data_session|code_verifier/i);
        }
        expect(lines.some((line) => line.includes('"message":"revision succeeded"'))).toBe(true);
      } finally {
        await serve.stop();
        await database?.drop();
      }
    });
  },
);

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

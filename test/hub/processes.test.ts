import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datahubPush, installDatahubCli } from '../helpers/datahub-cli.js';
import { browserLogin, EXAMPLES, publish, testDatabase, testStorage } from './helpers.js';

/**
 * Real `data serve` processes sharing one PostgreSQL database and one Swift bucket (S3):
 * what one queues, another may process; what one was processing when it died, another
 * finishes. Runs in the PostgreSQL and Swift project only (vitest.config.ts).
 */
const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const work = mkdtempSync(join(tmpdir(), 'data-processes-'));
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(async () => {
  await Promise.all(children.map(killed));
  rmSync(work, { recursive: true, force: true });
});

/** Where every process of one test keeps its files: a bucket of the Swift run. */
function sharedStorage(): string {
  const storage = testStorage();
  if (!storage) throw new Error('this test runs on the PostgreSQL and Swift project');
  return storage;
}

/**
 * Runs a test on a database and a bucket of its own, shared by the processes it starts;
 * every process is killed and the database dropped afterwards.
 */
async function onSharedEngines(
  test: (database: string, storage: string) => Promise<void>,
): Promise<void> {
  const database = await testDatabase();
  if (!database) throw new Error('this test runs on the PostgreSQL project');
  try {
    await test(database.url, sharedStorage());
  } finally {
    // Gone, and their connections with them, before the database is dropped.
    await Promise.all(children.map(killed));
    await database.drop();
  }
}

function killed(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function serve(
  database: string,
  storage: string,
  options: { dataDir?: string; role?: string; leaseSeconds?: number } = {},
): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const config = join(work, `hub-${String(options.leaseSeconds ?? 2)}.json`);
  // Short leases, so that a dead process's revision is taken over within seconds.
  writeFileSync(
    config,
    JSON.stringify({
      pipeline: { leaseSeconds: options.leaseSeconds ?? 2, pollSeconds: 0.2 },
      fetchHosts: [gate.host],
    }),
  );
  const child = spawn(process.execPath, [
    BIN,
    'serve',
    '--port',
    '0',
    '--data-dir',
    options.dataDir ?? join(work, 'hub'),
    '--database',
    database,
    '--storage',
    storage,
    '--config',
    config,
    '--role',
    options.role ?? 'all',
  ]);
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      if (url) resolve({ child, url });
      else if (text.includes('data hub worker')) resolve({ child, url: '' });
    });
    child.on('exit', (code) => reject(new Error(`hub exited with ${String(code)}`)));
  });
}

/**
 * A CSV served on loopback that a hub may fetch as a remote resource: held unanswered while
 * the gate is shut (so that a revision that reads it stays in progress, whatever the pace
 * of the machine), answered at once when open.
 */
const gate = await (async () => {
  let heard = (): void => undefined;
  const state = { open: false, asked: new Promise<void>((resolve) => (heard = resolve)) };
  const server = createServer((_request, response) => {
    heard();
    if (state.open) response.end('g\n1\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    server,
    host: `127.0.0.1:${String(port)}`,
    url: `http://127.0.0.1:${String(port)}/gate.csv`,
    /** Shuts the gate, and waits anew for the next hub to ask. */
    shut() {
      state.open = false;
      state.asked = new Promise<void>((resolve) => (heard = resolve));
    },
  });
})();
afterAll(() => {
  gate.server.closeAllConnections();
  gate.server.close();
});

/** A package of `rows` rows; with `gated`, also a remote resource behind the gate. */
function bigPackage(name: string, rows: number, gated = false): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const lines = ['id,name,amount'];
  for (let id = 1; id <= rows; id++)
    lines.push(`${String(id)},item ${String(id)},${String(id % 997)}.25`);
  writeFileSync(join(dir, 'data.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name,
      resources: [
        {
          name: 'data',
          path: 'data.csv',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'name', type: 'string' },
              { name: 'amount', type: 'number' },
            ],
            primaryKey: ['id'],
          },
        },
        ...(gated ? [{ name: 'gate', path: gate.url }] : []),
      ],
    }),
  );
  return dir;
}

async function stateOf(url: string, flowId: string): Promise<string> {
  const status = (await (await fetch(`${url}/source/${flowId}`)).json()) as { state: string };
  return status.state;
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`not reached in ${String(ms)} ms`);
}

describe('hub processes sharing PostgreSQL and a bucket', () => {
  it('finish a revision whose process was killed, and serve what another published', async () => {
    await onSharedEngines(async (database, storage) => {
      // Each process has a data folder of its own: everything shared is in the database
      // and the bucket (the folder keeps only the signing key and scratch work).
      const first = await serve(database, storage, { dataDir: join(work, 'one') });
      const jwt = await browserLogin(first.url);
      const dir = bigPackage('big-table', 100_000, true);
      const { flowId } = await publish(first.url, jwt, dir);
      // Killed while it validates: it is waiting for the gate.
      await gate.asked;
      expect(await stateOf(first.url, flowId)).toBe('INPROGRESS');
      await killed(first.child);
      gate.open = true;

      const second = await serve(database, storage, { dataDir: join(work, 'two') });
      await until(async () => (await stateOf(second.url, flowId)) !== 'INPROGRESS', 30_000);
      expect(await stateOf(second.url, flowId)).toBe('SUCCEEDED');

      // Published through the first, fetched through the second with the real client; not
      // with spawnSync, which would stop this process from answering for the gate.
      const out = mkdtempSync(join(work, 'get-'));
      const got = await new Promise<number | null>((resolve) =>
        spawn(process.execPath, [BIN, 'get', 'ada/big-table'], {
          cwd: out,
          stdio: 'ignore',
          env: {
            ...process.env,
            DATA_API: second.url,
            DATA_TOKEN: '',
            DATA_KEYCHAIN: '0',
            CI: 'true',
          },
        }).on('exit', resolve),
      );
      expect(got).toBe(0);
      expect(
        readFileSync(join(out, 'ada', 'big-table', 'data.csv')).equals(
          readFileSync(join(dir, 'data.csv')),
        ),
      ).toBe(true);

      // Two processes again, each publishing at once: both revisions succeed, once each.
      const third = await serve(database, storage, { dataDir: join(work, 'three') });
      const [a, b] = await Promise.all([
        publish(third.url, jwt, bigPackage('table-a', 20_000)),
        publish(second.url, jwt, bigPackage('table-b', 20_000)),
      ]);
      for (const [url, flow] of [
        [third.url, a.flowId],
        [second.url, b.flowId],
      ] as const)
        await until(async () => (await stateOf(url, flow)) === 'SUCCEEDED', 30_000);
      for (const name of ['table-a', 'table-b']) {
        const history = (await (
          await fetch(`${third.url}/source/${a.userid}/${name}/revisions`, {
            headers: { 'Auth-Token': jwt },
          })
        ).json()) as { revisions: { state: string }[] };
        expect(history.revisions.map((revision) => revision.state)).toEqual(['SUCCEEDED']);
      }
    });
  }, 120_000);

  it('hand a revision back at SIGTERM: another process finishes it long before its lease ends', async () => {
    await onSharedEngines(async (database, storage) => {
      gate.shut();
      // A lease far longer than the test: only its hand-back lets the second process go on.
      const hour = { leaseSeconds: 3600 };
      const first = await serve(database, storage, { dataDir: join(work, 'term-1'), ...hour });
      const jwt = await browserLogin(first.url);
      const { flowId } = await publish(first.url, jwt, bigPackage('handed-back', 1_000, true));
      await gate.asked;
      expect(await stateOf(first.url, flowId)).toBe('INPROGRESS');
      const exited = new Promise<number | null>((resolve) => first.child.once('exit', resolve));
      first.child.kill('SIGTERM');
      expect(await exited).toBe(0);
      gate.open = true;
      const second = await serve(database, storage, { dataDir: join(work, 'term-2'), ...hour });
      await until(async () => (await stateOf(second.url, flowId)) !== 'INPROGRESS', 20_000);
      expect(await stateOf(second.url, flowId)).toBe('SUCCEEDED');
    });
  }, 60_000);

  it('split into an API process and a worker: one queues, the other publishes, and reads follow', async () => {
    const dataDir = join(work, 'split');
    await onSharedEngines(async (database, storage) => {
      const api = await serve(database, storage, { dataDir, role: 'api' });
      const worker = await serve(database, storage, { dataDir, role: 'worker' });
      expect(worker.url).toBe('');
      const jwt = await browserLogin(api.url);
      const dir = bigPackage('titled', 200_000);
      const title = async (): Promise<unknown> => {
        const response = await fetch(`${api.url}/ada/titled/datapackage.json`);
        return response.ok ? ((await response.json()) as { title?: string }).title : undefined;
      };
      for (const wanted of ['first', 'second']) {
        const descriptor = JSON.parse(
          readFileSync(join(dir, 'datapackage.json'), 'utf8'),
        ) as object;
        writeFileSync(
          join(dir, 'datapackage.json'),
          JSON.stringify({ ...descriptor, title: wanted }),
        );
        // Held still while the API process reads (and caches) the dataset as it was: no
        // later write of the API process makes it look again, only the worker's publication.
        worker.child.kill('SIGSTOP');
        const { flowId } = await publish(api.url, jwt, dir);
        const before = await title();
        worker.child.kill('SIGCONT');
        expect(before).not.toBe(wanted);
        await until(async () => (await stateOf(api.url, flowId)) === 'SUCCEEDED', 30_000);
        // Seen once the API process looks again (every second: a deadline, not a measure).
        await until(async () => (await title()) === wanted, 20_000);
      }
    });
  }, 60_000);

  it('data publish through one process, data get through the other: the same bytes', async () => {
    await onSharedEngines(async (database, storage) => {
      const one = await serve(database, storage, { dataDir: join(work, 'publish-one') });
      const two = await serve(database, storage, { dataDir: join(work, 'publish-two') });
      const jwt = await browserLogin(one.url);
      const dir = bigPackage('through-two', 100_000);
      const env = { ...process.env, DATA_TOKEN: jwt, DATA_KEYCHAIN: '0', CI: 'true' };
      const published = spawnSync(process.execPath, [BIN, 'publish', dir], {
        encoding: 'utf8',
        env: { ...env, DATA_API: one.url },
      });
      expect(published.stderr).not.toMatch(/^error/m);
      expect(published.status).toBe(0);
      const out = mkdtempSync(join(work, 'got-'));
      const got = spawnSync(process.execPath, [BIN, 'get', 'ada/through-two'], {
        cwd: out,
        encoding: 'utf8',
        env: { ...env, DATA_API: two.url },
      });
      expect(got.status).toBe(0);
      for (const file of ['data.csv', 'datapackage.json'])
        expect(existsSync(join(out, 'ada', 'through-two', file))).toBe(true);
      expect(
        readFileSync(join(out, 'ada', 'through-two', 'data.csv')).equals(
          readFileSync(join(dir, 'data.csv')),
        ),
      ).toBe(true);
    });
  }, 60_000);

  describe('the old client', () => {
    beforeAll(installDatahubCli, 330_000);

    it('datahub-cli 0.6.3 publishes through the form endpoint of one process; a worker processes it; another serves it', async () => {
      await onSharedEngines(async (database, storage) => {
        const front = await serve(database, storage, { dataDir: join(work, 'front') });
        const back = await serve(database, storage, {
          dataDir: join(work, 'back'),
          role: 'api',
        });
        await serve(database, storage, { dataDir: join(work, 'worker'), role: 'worker' });
        const jwt = await browserLogin(front.url);
        const cities = join(EXAMPLES, 'cities');
        const { code, out, userid } = await datahubPush(cities, {
          url: front.url,
          jwt,
          username: 'ada',
        });
        expect(out).toContain('your data is published');
        expect(code).toBe(0);
        await until(
          async () => (await stateOf(back.url, `${userid}/world-cities/1`)) === 'SUCCEEDED',
          30_000,
        );
        for (const path of ['data/countries.csv', 'data/cities.csv']) {
          const served = await fetch(
            `${back.url}/ada/world-cities/r/${path.split('/').pop() ?? ''}`,
          );
          expect(
            Buffer.from(await served.arrayBuffer()).equals(readFileSync(join(cities, path))),
          ).toBe(true);
        }
      });
    }, 120_000);
  });
});

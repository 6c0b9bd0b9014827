import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { browserLogin } from '../hub/protocol.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';

const work = mkdtempSync(join(tmpdir(), 'data-start-'));
const hubs: ServeProcess[] = [];
afterAll(async () => {
  // The folder goes once no hub writes in it any more.
  await Promise.all(hubs.map((hub) => hub.stop()));
  rmSync(work, { recursive: true, force: true });
});

async function serve(dataDir: string): Promise<string> {
  const hub = await startServe(['--data-dir', dataDir]);
  hubs.push(hub);
  return hub.url;
}

/** Opens the file with the hub's code once told to go, and answers with its journal mode. */
const OPENER = `
const { workerData, parentPort } = require('node:worker_threads');
import(workerData.module).then(({ openSqliteFile }) => {
  parentPort.postMessage('ready');
  Atomics.wait(workerData.go, 0, 0);
  try {
    const db = openSqliteFile(workerData.file);
    const mode = db.prepare('pragma journal_mode').get().journal_mode;
    db.close();
    parentPort.postMessage(mode);
  } catch (error) {
    parentPort.postMessage(error.message);
  }
});
`;

const nextMessage = (worker: Worker): Promise<unknown> =>
  new Promise((resolve) => worker.once('message', resolve));

describe('hub processes starting at once on one new data folder', () => {
  it('each open the new SQLite file in WAL mode, whichever switches it', async () => {
    // Switching to WAL is the one step SQLite does not wait for: before, about one start
    // in ten of four at once failed with "database is locked".
    const module = new URL(
      '../../packages/hub/dist/engines/metadata/sqlite-file.js',
      import.meta.url,
    ).href;
    for (let trial = 0; trial < 40; trial++) {
      const file = join(work, `opened-${String(trial)}.sqlite`);
      const go = new Int32Array(new SharedArrayBuffer(4));
      const workers = [1, 2, 3, 4].map(
        () => new Worker(OPENER, { eval: true, workerData: { module, file, go } }),
      );
      try {
        await Promise.all(workers.map(nextMessage));
        const answers = Promise.all(workers.map(nextMessage));
        Atomics.store(go, 0, 1);
        Atomics.notify(go, 0);
        expect(await answers).toEqual(['wal', 'wal', 'wal', 'wal']);
      } finally {
        await Promise.all(workers.map((worker) => worker.terminate()));
      }
    }
  }, 60_000);

  it('all start, agree on one signing key, and leave each other’s scratch work alone', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const dataDir = join(work, `hub-${String(trial)}`);
      const urls = await Promise.all([1, 2, 3, 4].map(() => serve(dataDir)));
      const jwt = await browserLogin(urls[0] ?? '');
      for (const url of urls) {
        const check = (await (
          await fetch(`${url}/auth/check`, { headers: { 'Auth-Token': jwt } })
        ).json()) as { authenticated: boolean };
        expect(check.authenticated).toBe(true);
      }
      // Each process works in its own scratch folder; one more process starting removes
      // what a dead one left and nothing of the living.
      const scratch = join(dataDir, 'tmp');
      const living = readdirSync(scratch).sort();
      expect(living).toHaveLength(4);
      mkdirSync(join(scratch, `p999999.0bad.${hostname()}`)); // a dead process here
      mkdirSync(join(scratch, 'p12.0a.other-machine')); // a live one elsewhere, for all we know
      const stale = join(scratch, 'p13.0b.other-machine'); // silent for two days
      mkdirSync(stale);
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
      utimesSync(stale, twoDaysAgo, twoDaysAgo);
      writeFileSync(join(scratch, 'upload.part'), 'left by an earlier version');
      await serve(dataDir);
      const after = readdirSync(scratch);
      expect(after).toHaveLength(6);
      for (const name of [...living, 'p12.0a.other-machine']) expect(after).toContain(name);
    }
  }, 60_000);
});

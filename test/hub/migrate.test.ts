import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateHub } from '../../packages/hub/src/services/migrate.js';
import { FolderStorage } from '../../packages/hub/src/engines/storage/folder.js';
import { openStorage } from '../../packages/hub/src/engines/storage/open.js';
import type { Storage } from '../../packages/hub/src/engines/storage/types.js';
import { readAll } from '../../packages/hub/src/http/send-file.js';
import {
  browserLogin,
  EXAMPLES,
  md5Base64,
  publish,
  runData,
  storedObjects,
  tempDir,
  testDatabase,
  testStorage,
  waitForState,
  withHub,
} from './helpers.js';

/** Where a hub moves: PostgreSQL and a bucket on that run, another file and folder on this. */
async function destination(): Promise<{
  database: string;
  storage: string;
  drop(): Promise<void>;
}> {
  const database = await testDatabase();
  const storage = testStorage();
  const folder = tempDir();
  return {
    database: database?.url ?? join(folder, 'moved.sqlite'),
    storage: storage ?? join(folder, 'moved'),
    drop: async () => {
      await database?.drop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function migrate(dataDir: string, to: { database: string; storage: string }) {
  return runData([
    'serve',
    'migrate-storage',
    '--data-dir',
    dataDir,
    '--database',
    to.database,
    '--storage',
    to.storage,
  ]);
}

async function readStoredFrom(storage: Storage, key: string): Promise<Buffer> {
  return readAll(await storage.read(key));
}

/** A single-machine hub (SQLite and its folder, whatever the run) with two datasets. */
async function embeddedHub(dataDir: string): Promise<{ jwt: string }> {
  const embedded = { dataDir, database: join(dataDir, 'hub.sqlite'), storage: dataDir };
  return withHub(embedded, async ({ url }) => {
    const jwt = await browserLogin(url, 'ada');
    for (const [dir, options] of [
      [join(EXAMPLES, 'cities'), {}],
      [join(EXAMPLES, 'cities'), { dataset: 'hidden-cities', findability: 'private' }],
    ] as const)
      expect(
        (await waitForState(url, (await publish(url, jwt, dir, options)).flowId, jwt)).state,
      ).toBe('SUCCEEDED');
    return { jwt };
  });
}

describe('data serve migrate-storage', () => {
  it('moves a stopped hub, finishes after an interruption, and the moved hub serves the same bytes to the same tokens', async () => {
    const dataDir = tempDir();
    const to = await destination();
    try {
      const { jwt } = await embeddedHub(dataDir);
      // Interrupted after two files: what went stays, the rest goes on the second run.
      let files = 0;
      await expect(
        migrateHub({
          dataDir,
          ...to,
          onEvent: (event) => {
            if (event.type === 'file' && ++files === 2) throw new Error('interrupted');
          },
        }),
      ).rejects.toThrow('interrupted');
      const moved = await migrate(dataDir, to);
      expect(moved.err).not.toMatch(/^(error|warning)/m);
      expect(moved.code).toBe(0);
      expect(moved.out).toMatch(/files: \d+ copied, [1-9]\d* there already/);
      expect(moved.out).toContain('datasets 2');
      const again = await migrate(dataDir, to);
      expect(again.out).toMatch(/files: 0 copied/);

      // A new process with a folder of its own: the tokens the old hub signed still hold.
      await withHub({ dataDir: tempDir(), ...to }, async ({ url, hub }) => {
        expect(hub.storage.location).not.toContain(dataDir);
        for (const [name, headers] of [
          ['world-cities', {}],
          ['hidden-cities', { 'Auth-Token': jwt }],
        ] as const) {
          for (const path of ['data/countries.csv', 'data/cities.csv']) {
            const response = await fetch(`${url}/ada/${name}/r/${path.split('/').pop() ?? ''}`, {
              headers,
            });
            expect(response.status).toBe(200);
            expect(
              Buffer.from(await response.arrayBuffer()).equals(
                readFileSync(join(EXAMPLES, 'cities', path)),
              ),
            ).toBe(true);
          }
        }
        expect((await fetch(`${url}/ada/hidden-cities/r/cities.csv`)).status).toBe(404);
        const descriptor = (await (
          await fetch(`${url}/ada/world-cities/datapackage.json`)
        ).json()) as {
          name: string;
        };
        expect(descriptor.name).toBe('world-cities');
        const found = (await (await fetch(`${url}/metastore/search?q="cities"`)).json()) as {
          summary: { total: number };
        };
        expect(found.summary.total).toBe(1);
        // The moved hub takes new work too.
        const { flowId } = await publish(url, jwt, join(EXAMPLES, 'cities'), {
          dataset: 'after-the-move',
        });
        expect((await waitForState(url, flowId)).state).toBe('SUCCEEDED');
      });
    } finally {
      await to.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('replaces other bytes of the same size found at a key where it moves a file', async () => {
    const dataDir = tempDir();
    const to = await destination();
    try {
      await embeddedHub(dataDir);
      const folder = new FolderStorage(dataDir);
      let key = '';
      for await (const entry of folder.list('objects/'))
        if (entry.key.endsWith('.csv')) key = entry.key;
      const right = readFileSync(folder.pathOf(key));
      const wrong = Buffer.from(right.toString('latin1').toUpperCase(), 'latin1');
      expect(wrong.length).toBe(right.length);
      expect(wrong.equals(right)).toBe(false);
      const target = await openStorage(to.storage);
      const scratch = join(tempDir(), 'wrong');
      writeFileSync(scratch, wrong);
      await target.putFile(key, scratch, {
        md5: md5Base64(wrong),
        length: wrong.length,
        type: 'text/csv',
      });
      const moved = await migrate(dataDir, to);
      expect(moved.code).toBe(0);
      expect((await readStoredFrom(target, key)).equals(right)).toBe(true);
      target.close();
    } finally {
      await to.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('leaves an object whose bytes are not its key behind, says so, and exits 1', async () => {
    const dataDir = tempDir();
    const to = await destination();
    try {
      await embeddedHub(dataDir);
      const folder = new FolderStorage(dataDir);
      const keys = [] as string[];
      for await (const { key } of folder.list('objects/')) keys.push(key);
      const damaged = keys.find((key) => key.endsWith('.csv')) ?? '';
      const path = folder.pathOf(damaged);
      chmodSync(path, 0o644);
      writeFileSync(path, 'not what it was\n');
      const moved = await migrate(dataDir, to);
      expect(moved.code).toBe(1);
      expect(moved.err).toContain(`warning: ${damaged} left behind`);
      expect(moved.out).toContain('1 damaged object left behind');
      await withHub({ dataDir: tempDir(), ...to }, async ({ hub }) => {
        const there = await storedObjects(hub);
        expect(there).not.toContain(damaged.slice('objects/'.length));
        expect(there).toHaveLength(keys.length - 1);
      });
    } finally {
      await to.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses a folder with no hub in it, and the hub’s own database as the new one', async () => {
    const dataDir = tempDir();
    try {
      const none = await migrate(dataDir, {
        database: join(dataDir, 'x.sqlite'),
        storage: join(dataDir, 's'),
      });
      expect(none).toMatchObject({ code: 2 });
      expect(none.err).toContain('there is no hub in');
      await embeddedHub(dataDir);
      const same = await migrate(dataDir, {
        database: join(dataDir, 'hub.sqlite'),
        storage: join(dataDir, 's'),
      });
      expect(same.code).toBe(2);
      expect(same.err).toContain('the new database is the hub’s own');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { backupHub } from '../../packages/hub/src/services/backup.js';
import { migrateHub } from '../../packages/hub/src/services/migrate.js';
import { pricesPackage } from '../helpers/fixtures.js';
import {
  browserLogin,
  publish,
  serviceToken,
  tempDir,
  testDatabase,
  testStorage,
  waitForState,
  withHub,
} from './helpers.js';

const FIRST = 'id,price\n1,1.5\n';
const SECOND = 'id,price\n1,1.5\n2,7\n';
const AGAIN = 'id,price\n9,99\n';

/** Publishes `csv` as ada's `dataset` and returns the number of the revision it made. */
async function published(url: string, csv: string, dataset = 'prices'): Promise<number> {
  const jwt = await browserLogin(url);
  const { flowId } = await publish(url, jwt, pricesPackage(csv), { dataset });
  expect((await waitForState(url, flowId, jwt)).state).toBe('SUCCEEDED');
  return Number(flowId.split('/').pop());
}

/** Deletes ada's dataset as `data delete` does. */
async function deleted(url: string, dataset = 'prices'): Promise<void> {
  const jwt = await browserLogin(url);
  const { userid } = await serviceToken(url, jwt, 'source');
  const response = await fetch(`${url}/source/${userid}/${dataset}`, {
    method: 'DELETE',
    headers: { 'Auth-Token': jwt },
  });
  expect(response.status).toBe(200);
}

/** The table of revision N of ada's dataset at its address, and the status it is read with. */
async function tableAt(url: string, revision: number, dataset = 'prices') {
  const response = await fetch(`${url}/ada/${dataset}/v/${String(revision)}/data/prices.csv`);
  return { status: response.status, text: await response.text() };
}

/**
 * Runs `test` with a hub's database and storage that each hub it starts finds again (its own
 * database on PostgreSQL's run), and drops them after, even when the test fails.
 */
async function withHubState(
  test: (options: { dataDir: string; database?: string }) => Promise<void>,
): Promise<void> {
  const dataDir = tempDir();
  const database = await testDatabase();
  try {
    await test({ dataDir, ...(database ? { database: database.url } : {}) });
  } finally {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe('revision numbers', () => {
  it('are never given again: a dataset deleted and published again goes on after its last, after a restart too', async () => {
    await withHubState(async (options) => {
      await withHub(options, async ({ url }) => {
        expect(await published(url, FIRST)).toBe(1);
        expect(await published(url, SECOND)).toBe(2);
        expect(await tableAt(url, 1)).toEqual({ status: 200, text: FIRST });
        await deleted(url);
        expect((await tableAt(url, 1)).status).toBe(404);
      });
      await withHub(options, async ({ url }) => {
        expect(await published(url, AGAIN)).toBe(3);
        for (const revision of [1, 2]) expect((await tableAt(url, revision)).status).toBe(404);
        const third = await fetch(`${url}/ada/prices/v/3/data/prices.csv`);
        expect(await third.text()).toBe(AGAIN);
        expect(third.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        // The name in another case is the same name: it goes on from 3 as well.
        await deleted(url);
        expect(await published(url, FIRST, 'Prices')).toBe(4);
        // A revision's address is not case-folded: /ada/prices/v/N/… is no revision now.
        for (const revision of [1, 2, 3]) {
          expect((await tableAt(url, revision)).status).toBe(404);
          expect((await tableAt(url, revision, 'Prices')).status).toBe(404);
        }
        expect(await tableAt(url, 4, 'Prices')).toEqual({ status: 200, text: FIRST });
        expect((await tableAt(url, 4)).status).toBe(404);
      });
      // Another owner's dataset of the same name counts its own.
      await withHub(options, async ({ url }) => {
        const bob = await browserLogin(url, 'bob');
        const { flowId } = await publish(url, bob, pricesPackage(FIRST));
        expect(flowId.split('/').pop()).toBe('1');
        expect((await waitForState(url, flowId, bob)).state).toBe('SUCCEEDED');
      });
    });
  });

  it("are not those of another dataset named in another case: a revision's address is not case-folded", async () => {
    await withHubState(async (options) => {
      await withHub(options, async ({ url }) => {
        expect(await published(url, FIRST, 'Cities')).toBe(1);
        expect(await published(url, AGAIN, 'towns')).toBe(1);
      });
      // As an older hub could hold them: Cities and cities, named apart by their case only.
      await renamed(options, 'towns', 'cities');
      await withHub(options, async ({ url }) => {
        const file = (path: string) =>
          fetch(`${url}${path}/v/1/data/prices.csv`, { redirect: 'manual' });
        expect(await (await file('/ada/cities')).text()).toBe(AGAIN);
        expect(await (await file('/ada/Cities')).text()).toBe(FIRST);
        await deleted(url, 'Cities');
        // Revision 1 of Cities is gone; revision 1 of cities is other bytes, not its address.
        const gone = await file('/ada/Cities');
        expect(gone.status).toBe(404);
        expect(gone.headers.get('location')).toBeNull();
        const descriptor = await fetch(`${url}/ada/Cities/v/1/datapackage.json`, {
          redirect: 'manual',
        });
        expect(descriptor.status).toBe(404);
        // The owner's case is put right; the latest address goes to the name in its case.
        const owner = await file('/ADA/cities');
        expect([owner.status, owner.headers.get('location')]).toEqual([
          301,
          '/ada/cities/v/1/data/prices.csv',
        ]);
        const latest = await fetch(`${url}/ada/Cities/data/prices.csv`, { redirect: 'manual' });
        expect(latest.headers.get('location')).toBe('/ada/cities/data/prices.csv');
      });
    });
  });

  it('go on after a dataset deleted on a hub migrated from the schema before them', async () => {
    await withHubState(async (options) => {
      await withHub(options, async ({ url }) => {
        expect(await published(url, FIRST)).toBe(1);
        expect(await published(url, SECOND)).toBe(2);
      });
      await asBeforeDeletedNames(options);
      await withHub(options, async ({ url }) => {
        expect(await tableAt(url, 2)).toEqual({ status: 200, text: SECOND });
        await deleted(url);
      });
      await withHub(options, async ({ url }) => {
        expect(await published(url, AGAIN)).toBe(3);
        expect((await tableAt(url, 1)).status).toBe(404);
      });
    });
  });

  it.runIf(!process.env.DATA_TEST_DATABASE)(
    'are kept by a backup: the restored hub goes on after a deleted dataset’s last',
    async () => {
      const dataDir = tempDir();
      const copy = join(tempDir(), 'copy');
      try {
        await withHub({ dataDir }, async ({ url }) => {
          expect(await published(url, FIRST)).toBe(1);
          expect(await published(url, SECOND)).toBe(2);
          await deleted(url);
          await backupHub({ dataDir, to: copy });
        });
        await withHub({ dataDir: copy }, async ({ url }) => {
          expect(await published(url, AGAIN)).toBe(3);
          expect((await tableAt(url, 1)).status).toBe(404);
        });
      } finally {
        for (const dir of [dataDir, copy]) rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('are kept by data serve migrate-storage', async () => {
    const dataDir = tempDir();
    const database = await testDatabase();
    const storage = testStorage();
    const moved = tempDir();
    const to = {
      database: database?.url ?? join(moved, 'moved.sqlite'),
      storage: storage ?? join(moved, 'moved'),
    };
    try {
      const embedded = { dataDir, database: join(dataDir, 'hub.sqlite'), storage: dataDir };
      await withHub(embedded, async ({ url }) => {
        expect(await published(url, FIRST)).toBe(1);
        expect(await published(url, SECOND)).toBe(2);
        await deleted(url);
      });
      const result = await migrateHub({ dataDir, ...to });
      expect(result.rows.deleted_names).toBe(1);
      await withHub({ dataDir: moved, ...to }, async ({ url }) => {
        expect(await published(url, AGAIN)).toBe(3);
      });
    } finally {
      await database?.drop();
      for (const dir of [dataDir, moved]) rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Renames ada's dataset in a stopped hub's database, rows only (as an operator could). */
async function renamed(options: { dataDir: string; database?: string }, from: string, to: string) {
  const statements = [
    'update datasets set name = $1 where name = $2',
    'update revisions set dataset = $1 where dataset = $2',
  ];
  if (options.database === undefined) {
    const db = new DatabaseSync(join(options.dataDir, 'hub.sqlite'));
    try {
      for (const sql of statements)
        db.prepare(sql.replace('$1', '?1').replace('$2', '?2')).run(to, from);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: options.database });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql, [to, from]);
  } finally {
    await client.end();
  }
}

/**
 * Takes a hub's database back to the schema before deleted names were kept: the table
 * gone, the version that of the 11 migrations before it (on either engine).
 */
async function asBeforeDeletedNames(options: { dataDir: string; database?: string }) {
  if (options.database === undefined) {
    const db = new DatabaseSync(join(options.dataDir, 'hub.sqlite'));
    try {
      db.exec('drop table deleted_names; pragma user_version = 11');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: options.database });
  await client.connect();
  try {
    await client.query('drop table deleted_names; update schema_version set version = 11');
  } finally {
    await client.end();
  }
}

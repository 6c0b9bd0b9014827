import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_BUCKET } from '../helpers/swift.js';
import { openMetadata } from '../../packages/hub/src/engines/metadata/open.js';
import type { Identity, Metadata } from '../../packages/hub/src/engines/metadata/types.js';
import { oidcProvider } from '../../packages/hub/src/engines/providers/oidc.js';
import { startHub, type RunningHub, type StartOptions } from '../../packages/hub/src/server.js';
import { startOidcProvider } from '../helpers/identity.js';
import { runBin } from '../helpers/cli.js';

export const EXAMPLES = join(import.meta.dirname, '../../examples');

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'data-hub-'));
}

/**
 * A database for one hub on the PostgreSQL run of the hub tests (a new one each time), and
 * undefined on the default run (SQLite in the data folder).
 */
export async function testDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  if (process.env.DATA_TEST_DATABASE !== 'postgres') return undefined;
  const admin = inject('postgresUrl');
  const name = `hub_${randomBytes(8).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = admin.replace(/\/postgres$/, `/${name}`);
  return {
    url,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: admin });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/**
 * The metadata store of this run's engine (SQLite, or PostgreSQL on the postgres-swift run)
 * for the tests of the describe block that calls it: opened before them, closed and dropped
 * after them. Read it inside the tests, once it is open.
 */
export function storeOfThisRun(): { readonly store: Metadata } {
  const dir = tempDir();
  const held: { store?: Metadata } = {};
  let database: Awaited<ReturnType<typeof testDatabase>>;
  beforeAll(async () => {
    database = await testDatabase();
    held.store = await openMetadata(database?.url ?? join(dir, 'hub.sqlite'));
  });
  afterAll(async () => {
    try {
      // Unset when beforeAll failed: its error is the one to see, not one thrown here.
      await held.store?.close();
    } finally {
      try {
        await database?.drop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
  return {
    get store(): Metadata {
      if (!held.store) throw new Error('the store is not open yet: read it inside a test');
      return held.store;
    },
  };
}

/** A signed-in identity of the test provider. */
export function identity(subject: string, username: string): Identity {
  return { provider: 'test', subject, username, email: `${subject}@example.org`, name: subject };
}

/**
 * Storage for one hub on the Swift run of the hub tests (a prefix of its own in the test
 * bucket), and undefined on the default run (the data folder).
 */
export function testStorage(): string | undefined {
  if (process.env.DATA_TEST_STORAGE !== 's3') return undefined;
  const endpoint = encodeURIComponent(inject('swiftEndpoint'));
  return `s3://${TEST_BUCKET}/hub-${randomBytes(8).toString('hex')}?endpoint=${endpoint}&path_style=true`;
}

/** The storage of each data folder a test starts hubs on more than once. */
const storages = new Map<string, string>();

function storageFor(options: Partial<StartOptions>): { storage?: string } {
  if (options.storage !== undefined) return {};
  const known = options.dataDir === undefined ? undefined : storages.get(options.dataDir);
  const storage = known ?? testStorage();
  if (storage && options.dataDir !== undefined) storages.set(options.dataDir, storage);
  return storage ? { storage } : {};
}

/** The database of each data folder a test starts hubs on more than once. */
const databases = new Map<string, { url: string; drop(): Promise<void> }>();

export async function withHub<T>(
  options: Partial<StartOptions>,
  run: (hub: RunningHub) => Promise<T>,
): Promise<T> {
  const dataDir = options.dataDir ?? tempDir();
  // A hub started again on the same data folder finds the same database.
  let database = options.dataDir === undefined ? undefined : databases.get(options.dataDir);
  const fresh = database === undefined && options.database === undefined;
  if (fresh) {
    database = await testDatabase();
    if (database && options.dataDir !== undefined) databases.set(options.dataDir, database);
  }
  const hub = await startHub({
    log: (line: string) => {
      if (process.env.HUB_LOG) console.log('HUBLOG', line);
    },
    ...options,
    dataDir,
    ...(database ? { database: database.url } : {}),
    ...storageFor(options),
  });
  try {
    return await run(hub);
  } finally {
    await hub.close();
    if (fresh && options.dataDir === undefined) await database?.drop();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

export * from './protocol.js';

/**
 * Waits for what follows a publication in the background (its change summary, and its column
 * statistics, which make each table's Parquet copy), then counts the copies made from zero:
 * those the test's own requests make.
 */
export async function afterPublication(running: RunningHub): Promise<void> {
  await running.runner.idle();
  running.hub.copies.made = 0;
}

export const CITIES_DIR = join(EXAMPLES, 'cities');

/** The resources of the cities example as the hub publishes it: the originals, then copies. */
export const CITIES_PUBLISHED = [
  'countries',
  'cities',
  'countries_csv',
  'countries_json',
  'countries_csv_preview',
  'countries_parquet',
  'cities_csv',
  'cities_json',
  'cities_csv_preview',
  'cities_parquet',
  'world-cities_zip',
];

/** The object keys a hub's storage holds, whichever engine it is. */
export async function storedObjects(hub: RunningHub['hub']): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of hub.storage.list('objects/')) keys.push(key.slice('objects/'.length));
  return keys.sort();
}

export async function readStored(hub: RunningHub['hub'], key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await hub.storage.read(key)) as AsyncIterable<Buffer>)
    chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Runs the real `bin/data` to its end, with its own configuration folder and no keychain. */
export function runData(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'data-run-'));
  return runBin(args, {
    cwd,
    env: { DATA_CONFIG_DIR: join(cwd, '.config'), DATA_KEYCHAIN: '0', ...options.env },
  });
}

/**
 * Runs `run` on a hub whose one sign-in provider is a real OpenID provider on loopback ("idp"),
 * with the hub's callback registered there; `run` is given the hub's and the provider's URLs.
 */
export async function withOidcHub<T>(
  run: (base: string, idp: string) => Promise<T>,
  options: Partial<StartOptions> = {},
): Promise<T> {
  const idp = await startOidcProvider();
  try {
    return await withHub(
      {
        ...options,
        providers: [
          oidcProvider('idp', { issuer: idp.url, clientId: 'hub', clientSecret: 'hub-secret' }),
        ],
      },
      async ({ url }) => {
        idp.register(`${options.publicUrl ?? url}/auth/callback/idp`);
        return run(url, idp.url);
      },
    );
  } finally {
    await idp.close();
  }
}

import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openMetadata } from '../../packages/hub/src/engines/metadata/open.js';
import { startHub, type RunningHub } from '../../packages/hub/src/server.js';
import {
  browserLogin,
  publish,
  tempDir,
  testDatabase,
  testStorage,
  waitForState,
  withHub,
} from './helpers.js';

interface Package {
  name: string;
  title: string;
  description: string;
  keywords?: string[];
  resource: string;
}

/** A package of one small table, written to a folder of its own. */
function packageDir(pkg: Package): string {
  const dir = join(tempDir(), pkg.name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'table.csv'), 'id,value\n1,2\n');
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: pkg.name,
      title: pkg.title,
      description: pkg.description,
      ...(pkg.keywords ? { keywords: pkg.keywords } : {}),
      resources: [{ name: pkg.resource, path: 'table.csv' }],
    }),
  );
  return dir;
}

async function published(
  url: string,
  jwt: string,
  pkg: Package,
  options: { findability?: string } = {},
): Promise<void> {
  const queued = await publish(url, jwt, packageDir(pkg), options);
  expect((await waitForState(url, queued.flowId, jwt)).state).toBe('SUCCEEDED');
}

/** The names search answers for `q`, best first, as the one asking (a token) sees them. */
async function found(url: string, q: string, token?: string): Promise<string[]> {
  const response = await fetch(
    `${url}/metastore/search?q=${encodeURIComponent(JSON.stringify(q))}`,
    token ? { headers: { 'Auth-Token': token } } : {},
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { results: { name: string }[] };
  return body.results.map((result) => result.name);
}

const ZURICH: Package = {
  name: 'rent-index',
  title: 'Zürich rents',
  description: 'Monthly rents in the city, by district.',
  keywords: ['housing'],
  resource: 'mieten',
};
const AIR: Package = {
  name: 'air-quality',
  title: 'Air quality of Lisbon',
  description: 'Hourly nitrogen dioxide readings.',
  resource: 'stations_2024',
};
const NOTES: Package = {
  name: 'city-notes',
  title: 'Notes',
  description: 'Remarks about the air in Lisbon.',
  resource: 'remarks',
};

describe('search', () => {
  // One hub for the group: its datasets are published once.
  const dataDir = tempDir();
  let database: Awaited<ReturnType<typeof testDatabase>>;
  let running: RunningHub;
  let ada = '';
  let grace = '';

  beforeAll(async () => {
    database = await testDatabase();
    const storage = testStorage();
    running = await startHub({
      log: () => undefined,
      dataDir,
      ...(database ? { database: database.url } : {}),
      ...(storage ? { storage } : {}),
    });
    ada = await browserLogin(running.url);
    grace = await browserLogin(running.url, 'grace');
    await published(running.url, ada, ZURICH);
    await published(running.url, ada, AIR);
    // Published last, so the newest: after AIR only by rank.
    await published(running.url, ada, NOTES);
  }, 120_000);

  afterAll(async () => {
    await running.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds every word in any order and in any case', async () => {
    expect(await found(running.url, 'quality air')).toEqual(['air-quality']);
    expect(await found(running.url, 'LISBON Air QUALITY')).toEqual(['air-quality']);
    expect(await found(running.url, 'air quality nothing')).toEqual([]);
  });

  it('finds a word with or without its accents, in capitals too', async () => {
    for (const q of ['ZÜRICH', 'zurich', 'Zürich', 'ZURICH', 'züri', 'rents zÜrich'])
      expect(await found(running.url, q), q).toEqual(['rent-index']);
  });

  it('finds words across the title, description, keywords, owner, name and resource names', async () => {
    expect(await found(running.url, 'lisbon stations')).toEqual(['air-quality']);
    expect(await found(running.url, 'housing zurich')).toEqual(['rent-index']);
    expect(await found(running.url, 'mieten district')).toEqual(['rent-index']);
    expect(await found(running.url, 'ada rents')).toEqual(['rent-index']);
    expect(await found(running.url, 'city notes remarks')).toEqual(['city-notes']);
    // The copies the hub derived (mieten_csv, mieten_json) are not the publisher's names.
    expect(await found(running.url, 'json')).toEqual([]);
  });

  it('ranks a match in the title above one in the description', async () => {
    expect(await found(running.url, 'lisbon')).toEqual(['air-quality', 'city-notes']);
    // Asked for an order, the matches come in it.
    const html = await (await fetch(`${running.url}/?q=lisbon&sort=updated`)).text();
    expect(html.indexOf('Remarks about the air')).toBeGreaterThan(0);
    expect(html.indexOf('Remarks about the air')).toBeLessThan(html.indexOf('Air quality of'));
  });

  it('takes a query’s punctuation and operators as text, never as search syntax', async () => {
    for (const q of ['"', '*', 'OR', 'NEAR(', '-', ':', "'", '\\', '&', '|', '!', '(', ')', '^'])
      expect(await found(running.url, q), q).toEqual([]);
    expect(await found(running.url, '"zurich"')).toEqual(['rent-index']);
    expect(await found(running.url, 'zurich*')).toEqual(['rent-index']);
    expect(await found(running.url, '-zurich')).toEqual(['rent-index']);
    expect(await found(running.url, 'NEAR(zurich rents)')).toEqual([]);
    expect(await found(running.url, 'zurich OR lisbon')).toEqual([]);
    expect(await found(running.url, 'title:zurich')).toEqual([]);
    expect(await found(running.url, "zurich' & !rents:*")).toEqual(['rent-index']);
    for (const q of ['"', 'NEAR(', "'", '\\'])
      expect((await fetch(`${running.url}/?q=${encodeURIComponent(q)}`)).status).toBe(200);
  });

  it('answers a query of many or long words, and finds a dataset of a long description', async () => {
    const { url } = running;
    const many = Array.from({ length: 2000 }, (_, i) => `w${String(i)}`).join(' ');
    expect(await found(url, many)).toEqual([]);
    expect(await found(url, `zurich ${'r'.repeat(5000)}`)).toEqual([]);
    expect(await found(url, `${'ab'.repeat(3000)} "*"`)).toEqual([]);
    // Past a vector of 1 MB, PostgreSQL would refuse it, and the publication with it.
    const long: Package = {
      name: 'long-read',
      title: 'Long read',
      description: Array.from({ length: 120_000 }, (_, i) => `w${String(i)}`).join(' '),
      resource: 'pages',
    };
    await published(url, ada, long);
    expect(await found(url, 'w7 long')).toEqual(['long-read']);
  });

  it('never finds a private dataset for anyone but its owner, and nothing once deleted', async () => {
    const { url } = running;
    const secret: Package = {
      name: 'secret-zurich',
      title: 'Zürich secrets',
      description: 'Not for others.',
      resource: 'hidden',
    };
    await published(url, ada, secret, { findability: 'private' });
    expect(await found(url, 'zurich')).toEqual(['rent-index']);
    expect(await found(url, 'zurich', grace)).toEqual(['rent-index']);
    expect((await found(url, 'zurich', ada)).sort()).toEqual(['rent-index', 'secret-zurich']);
    // Made public, then private again: found by others only meanwhile.
    await published(url, ada, secret, { findability: 'published' });
    expect((await found(url, 'zurich secrets', grace)).sort()).toEqual(['secret-zurich']);
    await published(url, ada, secret, { findability: 'private' });
    expect(await found(url, 'zurich secrets', grace)).toEqual([]);
    const ownerid = (await running.hub.store.userByName('ada'))?.userid ?? '';
    const deleted = await fetch(`${url}/source/${ownerid}/secret-zurich`, {
      method: 'DELETE',
      headers: { 'Auth-Token': ada },
    });
    expect(deleted.status).toBe(200);
    expect(await found(url, 'secrets', ada)).toEqual([]);
    expect(await found(url, 'zurich', ada)).toEqual(['rent-index']);
  });
});

/**
 * Makes the hub's database what the hub before search's index left: the index's tables
 * (SQLite) or its vector, configuration and extension (PostgreSQL) gone, and the schema at
 * the version before it (10 migrations on either engine; those after it run again, and
 * are written so that they may), with the vector of names, titles and descriptions
 * PostgreSQL had then.
 */
async function withoutSearchIndex(dataDir: string, database: string | undefined): Promise<void> {
  if (!database) {
    const db = new DatabaseSync(join(dataDir, 'hub.sqlite'));
    try {
      db.exec(`drop table search_index; drop table search_ids;
        pragma user_version = 10`);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    await client.query(`alter table datasets drop column search;
      drop text search configuration data_search;
      drop extension unaccent;
      alter table datasets add column search tsvector generated always as (
        to_tsvector('simple', name || ' ' || coalesce(title, '') || ' ' || coalesce(description, ''))) stored;
      create index datasets_search on datasets using gin (search);
      update schema_version set version = 10;`);
  } finally {
    await client.end();
  }
}

describe('search after an upgrade', () => {
  it('finds the datasets a hub held before its search index', async () => {
    const dataDir = tempDir();
    const database = await testDatabase();
    const options = { dataDir, ...(database ? { database: database.url } : {}) };
    try {
      await withHub(options, async ({ url }) => {
        const ada = await browserLogin(url);
        await published(url, ada, ZURICH);
        await published(url, ada, AIR);
      });
      await withoutSearchIndex(dataDir, database?.url);
      await withHub(options, async ({ url }) => {
        expect(await found(url, 'ZÜRICH')).toEqual(['rent-index']);
        expect(await found(url, 'lisbon stations')).toEqual(['air-quality']);
        expect(await found(url, 'housing')).toEqual(['rent-index']);
      });
    } finally {
      await database?.drop();
    }
  });
});

/** A PostgreSQL database of the C locale, whose own lower-casing knows ASCII only. */
async function cLocaleDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = inject('postgresUrl');
  const name = `hub_c_${randomBytes(8).toString('hex')}`;
  const run = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name} template template0 lc_collate 'C' lc_ctype 'C'`);
  return {
    url: admin.replace(/\/postgres$/, `/${name}`),
    drop: () => run(`drop database if exists ${name} with (force)`),
  };
}

describe('search of rows moved from another hub', () => {
  it.each([
    ['the test database', testDatabase] as const,
    // PostgreSQL's lower-casing follows the database's locale; SQLite's is its own.
    ...(process.env.DATA_TEST_DATABASE === 'postgres'
      ? [['a database of the C locale', cLocaleDatabase] as const]
      : []),
  ])(
    'finds a dataset by the keywords and resource names of its published revision, moved after it, in %s',
    async (_, made) => {
      const dir = tempDir();
      const database = await made();
      const store = await openMetadata(database?.url ?? join(dir, 'hub.sqlite'));
      const revision = (number: number, descriptor: Record<string, unknown>) => ({
        ownerid: 'u1',
        dataset: 'prices',
        revision: number,
        state: 'SUCCEEDED',
        spec: '{}',
        spec_bytes: 2,
        pipelines: '{}',
        error_log: '[]',
        descriptor: JSON.stringify(descriptor),
        created: '2024-01-01T00:00:00.000Z',
        modified: '2024-01-01T00:00:00.000Z',
      });
      const names = async (q: string) =>
        (await store.search(q, undefined, 10, 0)).rows.map((row) => row.name);
      try {
        await store.importRows('users', [
          {
            userid: 'u1',
            username: 'ada',
            email: 'ada@example.org',
            name: 'Ada',
            provider: 'local',
            subject: 'ada',
            join_date: '2024-01-01T00:00:00.000Z',
          },
        ]);
        await store.importRows('datasets', [
          {
            ownerid: 'u1',
            name: 'prices',
            findability: 'published',
            title: 'PREISE',
            description: null,
            published_revision: 2,
            modified: '2024-01-01T00:00:00.000Z',
          },
        ]);
        expect(await names('ADA preise')).toEqual(['prices']);
        expect(await names('Preise')).toEqual(['prices']);
        await store.importRows('revisions', [
          revision(1, { keywords: ['superseded'] }),
          revision(2, {
            keywords: ['KÄSE', 'МОСКВА'],
            resources: [
              { name: 'märkte', path: 'm.csv' },
              { name: 'märkte_json', path: 'm.json', datahub: { type: 'derived/json' } },
            ],
          }),
        ]);
        expect(await names('KASE markte')).toEqual(['prices']);
        expect(await names('käse MÄRKTE')).toEqual(['prices']);
        expect(await names('москва')).toEqual(['prices']);
        expect(await names('superseded')).toEqual([]);
        expect(await names('json')).toEqual([]);
      } finally {
        await store.close();
        await database?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

/**
 * The metadata's rules (engines/metadata/rules.ts), written once above each engine's SQL,
 * run here against the engine of this run: SQLite on the default run, PostgreSQL on the
 * postgres-swift one. The same expectations hold for both.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { runNow } from '../../packages/hub/src/engines/metadata/run.js';
import type { Metadata } from '../../packages/hub/src/engines/metadata/types.js';
import { identity, storeOfThisRun } from './helpers.js';

const LIMITS = { maxDatasets: 2, maxStorageBytes: 1000 };
/** A revision with nothing asked of it: each test names its owner and dataset. */
const REVISION = {
  findability: null,
  spec: '{}',
  pipelines: '[]',
  requestId: null,
  limits: LIMITS,
};

describe('the metadata rules, on this run’s engine', () => {
  const engine = storeOfThisRun();
  let store: Metadata;
  beforeAll(() => {
    store = engine.store;
  });

  const queue = (ownerid: string, dataset: string, spec = '{}') =>
    store.createRevision({ ...REVISION, ownerid, dataset, spec });

  it('give a signed-in identity a user name nobody holds, never a reserved one', async () => {
    const ada = await store.userForIdentity(identity('1', 'ada'));
    expect(ada.username).toBe('ada');
    expect((await store.userForIdentity(identity('1', 'ada'))).userid).toBe(ada.userid);
    expect((await store.userForIdentity(identity('2', 'ada'))).username).toBe('ada-2');
    expect((await store.userForIdentity(identity('3', 'healthz'))).username).toBe('healthz-2');
  });

  it('refuse a revision for a name in another case first, then past the datasets allowed', async () => {
    const owner = (await store.userForIdentity(identity('10', 'grace'))).userid;
    expect(await queue(owner, 'cities')).toEqual({ revision: 1 });
    expect(await queue(owner, 'Cities')).toEqual({ refused: 'name', existing: 'cities' });
    expect(await queue(owner, 'rivers')).toEqual({ revision: 1 });
    expect(await queue(owner, 'lakes')).toEqual({ refused: 'datasets' });
    // A dataset of the owner's takes more revisions at the limit of datasets.
    expect(await queue(owner, 'cities')).toEqual({ revision: 2 });
    expect(await queue(owner, 'CITIES')).toEqual({ refused: 'name', existing: 'cities' });
  });

  it('count a spec’s own bytes and the objects held against the storage quota', async () => {
    const owner = (await store.userForIdentity(identity('20', 'linus'))).userid;
    const isPrivate = async (key: string): Promise<boolean | undefined> => {
      for await (const row of store.exportRows('holdings'))
        if (row.ownerid === owner && row.key === key) return Boolean(row.private);
      return undefined;
    };
    expect(await store.addHolding('a'.repeat(32), owner, 600, true, LIMITS.maxStorageBytes)).toBe(
      true,
    );
    expect(await isPrivate('a'.repeat(32))).toBe(true);
    // Held already: counted once, and public once stored as public.
    expect(await store.addHolding('a'.repeat(32), owner, 600, false, LIMITS.maxStorageBytes)).toBe(
      true,
    );
    expect(await isPrivate('a'.repeat(32))).toBe(false);
    expect(await store.storageUsed(owner)).toBe(600);
    expect(await store.addHolding('b'.repeat(32), owner, 401, false, LIMITS.maxStorageBytes)).toBe(
      false,
    );
    expect(await queue(owner, 'big', 'x'.repeat(401))).toEqual({ refused: 'storage' });
    expect(await queue(owner, 'big', 'x'.repeat(400))).toEqual({ revision: 1 });
    expect(await store.storageUsed(owner)).toBe(1000);
  });

  it('never give a revision number again, not even after the dataset is deleted', async () => {
    const owner = (await store.userForIdentity(identity('30', 'barbara'))).userid;
    await queue(owner, 'trees');
    await queue(owner, 'trees');
    expect(await store.deleteDataset(owner, 'trees')).toBe(true);
    expect(await store.deleteDataset(owner, 'trees')).toBe(false);
    expect(await queue(owner, 'Trees')).toEqual({ revision: 3 });
    expect((await store.revision(owner, 'Trees', 'latest'))?.revision).toBe(3);
    expect((await store.revision(owner, 'Trees', '3'))?.state).toBe('QUEUED');
    expect(await store.revision(owner, 'Trees', 'successful')).toBeUndefined();
    for (const which of ['1', '0000000003', 'x', ''])
      expect(await store.revision(owner, 'Trees', which)).toBeUndefined();
  });

  it('publish a revision unless a later one is published, with the findability it asked for', async () => {
    const owner = (await store.userForIdentity(identity('40', 'edsger'))).userid;
    const summary = { title: 't', description: null, bytes: 1, rows: 1, license: null };
    await store.createRevision({
      ...REVISION,
      ownerid: owner,
      dataset: 'graphs',
      findability: 'unlisted',
    });
    await queue(owner, 'graphs');
    await store.publish({ ownerid: owner, dataset: 'graphs', revision: 2 }, summary);
    expect(await store.dataset(owner, 'graphs')).toMatchObject({
      published_revision: 2,
      findability: 'published',
    });
    await store.publish({ ownerid: owner, dataset: 'graphs', revision: 1 }, summary);
    expect(await store.dataset(owner, 'graphs')).toMatchObject({
      published_revision: 2,
      findability: 'published',
    });
    expect((await store.revision(owner, 'graphs', '1'))?.findability).toBe('unlisted');
    // A later revision that asks for none keeps what the published dataset has.
    await store.createRevision({
      ...REVISION,
      ownerid: owner,
      dataset: 'charts',
      findability: 'unlisted',
    });
    await store.publish({ ownerid: owner, dataset: 'charts', revision: 1 }, summary);
    await queue(owner, 'charts');
    await store.publish({ ownerid: owner, dataset: 'charts', revision: 2 }, summary);
    expect(await store.dataset(owner, 'charts')).toMatchObject({
      published_revision: 2,
      findability: 'unlisted',
    });
    expect((await store.revision(owner, 'charts', '2'))?.findability).toBe('unlisted');
  });

  it('let everyone find a listed dataset, and its owner alone an unlisted one', async () => {
    const owner = (await store.userForIdentity(identity('50', 'frances'))).userid;
    const other = (await store.userForIdentity(identity('51', 'john'))).userid;
    const summary = { title: 'maps', description: null, bytes: 1, rows: 1, license: null };
    for (const [name, findability] of [
      ['atlas', 'published'],
      ['sketch', 'unlisted'],
    ] as const) {
      await store.createRevision({ ...REVISION, ownerid: owner, dataset: name, findability });
      await store.publish({ ownerid: owner, dataset: name, revision: 1 }, summary);
    }
    await queue(owner, 'draft');
    const names = async (viewer: string | undefined, of = owner) =>
      (await store.search('', viewer, 10, 0, of)).rows.map((row) => row.name).sort();
    expect(await names(undefined)).toEqual(['atlas']);
    expect(await names(other)).toEqual(['atlas']);
    expect(await names(owner)).toEqual(['atlas', 'sketch']);
    expect(await names(owner, other)).toEqual([]);
    expect((await store.search('maps', owner, 10, 0, owner)).total).toBe(2);
  });

  it('make room in the copies’ cache by taking out the least recently used copies', async () => {
    expect(await store.reserveCopy('cache/x/1', 60, 100)).toEqual([]);
    await store.keptCopy('cache/x/1');
    expect(await store.reserveCopy('cache/x/1', 60, 100)).toEqual([]);
    expect(await store.reserveCopy('cache/x/2', 50, 100)).toEqual(['cache/x/1']);
    expect(await store.reserveCopy('cache/x/3', 101, 100)).toBeUndefined();
    expect(await store.cacheUsage()).toEqual({ bytes: 50, copies: 1 });
  });

  // Statements written once for both engines (statements.ts), SQLite's upserts among them.
  it('keep the last upload of a path, a revocation and a shared value once, whatever is repeated', async () => {
    await store.recordUpload('u-up', 'data/a.csv', 'a'.repeat(32));
    await store.recordUpload('u-up', 'data/a.csv', 'b'.repeat(32));
    expect(await store.lastUpload('u-up', 'data/a.csv')).toBe('b'.repeat(32));
    expect(await store.lastUpload('u-up', 'data/b.csv')).toBeUndefined();
    const later = Math.floor(Date.now() / 1000) + 3600;
    expect(await store.remember('jti-1', later)).toBe(true);
    expect(await store.remember('jti-1', later + 1)).toBe(false);
    expect(await store.remembers('jti-1')).toBe(true);
    expect(await store.remembers('jti-2')).toBe(false);
    // Asked at once, as two trades of one ID token would: one of them records it.
    const racing = await Promise.all([1, 2, 3, 4, 5].map(() => store.remember('jti-3', later)));
    expect(racing.filter(Boolean)).toHaveLength(1);
    // Recorded again once its time is over (a file sent again a day later): kept, not
    // dropped with the expired record it replaces.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const now = Date.now();
      expect(await store.remember('jti-4', Math.floor(now / 1000) + 5)).toBe(true);
      vi.setSystemTime(now + 60_000);
      expect(await store.remember('jti-4', later)).toBe(true);
      expect(await store.remembers('jti-4')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
    expect(await store.sharedValue('rules-test', () => 'first')).toBe('first');
    expect(await store.sharedValue('rules-test', () => 'second')).toBe('first');
  });

  it('tell a holding of a file’s length and head apart from others, and forget a collected object', async () => {
    const key = 'c'.repeat(32);
    expect(await store.addHolding(key, 'u-hold', 10, false, LIMITS.maxStorageBytes, 'h1')).toBe(
      true,
    );
    expect(await store.holds('u-hold', key)).toBe(true);
    expect(await store.hasObject(key)).toBe(true);
    expect(await store.mayHold('u-hold', 10, undefined)).toBe(true);
    expect(await store.mayHold('u-hold', 10, 'h1')).toBe(true);
    expect(await store.mayHold('u-hold', 10, 'h2')).toBe(false);
    expect(await store.mayHold('u-hold', 11, 'h1')).toBe(false);
    expect(await store.markCollecting(key)).toBe(false);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(await store.dropUnusedHolding('u-hold', key, later)).toBe(true);
    expect(await store.markCollecting(key)).toBe(true);
    expect(await store.dropCollected(key)).toBe(true);
    expect(await store.hasObject(key)).toBe(false);
  });
});

describe('a rule run at once', () => {
  it('refuses an answer that is a promise: SQLite’s transaction cannot wait', () => {
    function* rule(): Generator<unknown, number, unknown> {
      return (yield Promise.resolve(1)) as number;
    }
    expect(() => runNow(rule())).toThrow(/promise/);
  });
});

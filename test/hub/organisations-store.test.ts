/**
 * Organisations and members in the metadata (engines/metadata/organisations.ts), on this
 * run's engine: SQLite on the default run, PostgreSQL on the postgres-swift one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Metadata } from '../../packages/hub/src/engines/metadata/types.js';
import { identity, storeOfThisRun } from './helpers.js';

describe('organisations in the metadata, on this run’s engine', () => {
  const engine = storeOfThisRun();
  let store: Metadata;
  beforeAll(() => {
    store = engine.store;
  });

  it('make an organisation in the owners’ namespace, with its maker as admin', async () => {
    const ada = await store.userForIdentity(identity('ada', 'ada'));
    expect((await store.userById(ada.userid))?.kind).toBe('user');
    const orgid = await store.organisations.create('acme', ada.userid);
    expect(orgid).toMatch(/^[0-9a-f]{32}$/);
    const org = await store.userByName('acme');
    expect(org).toMatchObject({ userid: orgid, username: 'acme', kind: 'organisation' });
    expect(await store.organisations.members(orgid ?? '')).toEqual([
      { userid: ada.userid, username: 'ada', role: 'admin' },
    ]);
    expect(await store.organisations.roleOf(orgid ?? '', ada.userid)).toBe('admin');
    // A user's name, and an organisation's, are taken for both.
    expect(await store.organisations.create('ada', ada.userid)).toBeUndefined();
    expect(await store.organisations.create('acme', ada.userid)).toBeUndefined();
    // Someone signing in as "acme" gets another name, as for a user's.
    expect((await store.userForIdentity(identity('acme', 'acme'))).username).toBe('acme-2');
  });

  it('change roles, and never leave an organisation without an admin', async () => {
    const grace = await store.userForIdentity(identity('grace', 'grace'));
    const linus = await store.userForIdentity(identity('linus', 'linus'));
    const orgid = (await store.organisations.create('lab', grace.userid)) ?? '';
    const orgs = store.organisations;
    expect(await orgs.setRole(orgid, grace.userid, 'reader')).toBe('last-admin');
    expect(await orgs.remove(orgid, grace.userid)).toBe('last-admin');
    expect(await orgs.setRole(orgid, linus.userid, 'maintainer')).toBe('done');
    expect(await orgs.roleOf(orgid, linus.userid)).toBe('maintainer');
    expect(await orgs.setRole(orgid, linus.userid, 'admin')).toBe('done');
    expect(await orgs.setRole(orgid, grace.userid, 'reader')).toBe('done');
    expect((await orgs.members(orgid)).map((m) => [m.username, m.role])).toEqual([
      ['grace', 'reader'],
      ['linus', 'admin'],
    ]);
    expect(await orgs.remove(orgid, linus.userid)).toBe('last-admin');
    expect(await orgs.remove(orgid, grace.userid)).toBe('done');
    expect(await orgs.remove(orgid, grace.userid)).toBe('not-member');
    expect(await orgs.roleOf(orgid, grace.userid)).toBeUndefined();
  });

  it('keep one admin when two admins step down at once', async () => {
    const a = await store.userForIdentity(identity('a1', 'a1'));
    const b = await store.userForIdentity(identity('b1', 'b1'));
    const orgid = (await store.organisations.create('pair', a.userid)) ?? '';
    await store.organisations.setRole(orgid, b.userid, 'admin');
    const results = await Promise.all([
      store.organisations.remove(orgid, a.userid),
      store.organisations.remove(orgid, b.userid),
    ]);
    expect(results.sort()).toEqual(['done', 'last-admin']);
    expect((await store.organisations.members(orgid)).map((m) => m.role)).toEqual(['admin']);
  });

  it('let a member find the organisation’s private datasets, and nobody else', async () => {
    const owner = await store.userForIdentity(identity('own', 'own'));
    const reader = await store.userForIdentity(identity('rd', 'rd'));
    const stranger = await store.userForIdentity(identity('st', 'st'));
    const orgid = (await store.organisations.create('hidden', owner.userid)) ?? '';
    await store.organisations.setRole(orgid, reader.userid, 'reader');
    const limits = { maxDatasets: 10, maxStorageBytes: 1e9 };
    const created = await store.createRevision({
      ownerid: orgid,
      dataset: 'secret',
      findability: 'private',
      spec: '{}',
      pipelines: '[]',
      requestId: null,
      limits,
    });
    expect(created).toEqual({ revision: 1 });
    await store.publish(
      { ownerid: orgid, dataset: 'secret', revision: 1 },
      { title: 'Secret', description: null, bytes: 1, rows: 1, license: null },
    );
    const names = async (viewer: string | undefined) =>
      (await store.search('', viewer, 10, 0, orgid)).rows.map((row) => row.name);
    expect(await names(owner.userid)).toEqual(['secret']);
    expect(await names(reader.userid)).toEqual(['secret']);
    expect(await names(stranger.userid)).toEqual([]);
    expect(await names(undefined)).toEqual([]);
  });

  it('count what a user made, and delete an organisation only once it has no datasets', async () => {
    const maker = await store.userForIdentity(identity('mk', 'mk'));
    const other = await store.userForIdentity(identity('ot', 'ot'));
    const orgs = store.organisations;
    const made = await orgs.make('gone', maker.userid, 5);
    if (!('made' in made)) throw new Error(JSON.stringify(made));
    const orgid = made.made;
    // Made an admin of it, the other user made nothing; its maker made it, admin or not.
    await orgs.setRole(orgid, other.userid, 'admin');
    await orgs.remove(orgid, maker.userid);
    expect(await orgs.madeBy(maker.userid)).toBe(1);
    expect(await orgs.madeBy(other.userid)).toBe(0);
    const publisher = {
      id: 'gone-ci',
      ownerid: orgid,
      dataset: 'data',
      issuer: 'https://token.actions.githubusercontent.com',
      claims: { repository: 'gone/data' },
      created: new Date().toISOString(),
      created_by: other.userid,
    };
    expect(await store.publishers.add(publisher)).toEqual({ added: true });
    const limits = { maxDatasets: 10, maxStorageBytes: 1e9 };
    const revision = { ownerid: orgid, dataset: 'data', findability: 'private' as const };
    await store.createRevision({
      ...revision,
      spec: '{}',
      pipelines: '[]',
      requestId: null,
      limits,
    });
    expect(await orgs.delete(orgid)).toEqual({ refused: 'datasets', count: 1 });
    expect(await store.deleteDataset(orgid, 'data')).toBe(true);
    expect(await orgs.delete(orgid)).toEqual({ deleted: true, publishers: ['gone-ci'] });
    // Gone, with its members and publishers; its name free, and its maker's count down.
    expect(await store.userByName('gone')).toBeUndefined();
    expect(await orgs.members(orgid)).toEqual([]);
    expect(await store.publishers.list(orgid, 'data')).toEqual([]);
    expect(await orgs.madeBy(maker.userid)).toBe(0);
    expect(await orgs.delete(orgid)).toEqual({ refused: 'missing' });
    // A user is never deleted as an organisation.
    expect(await orgs.delete(other.userid)).toEqual({ refused: 'missing' });
    expect(await store.userById(other.userid)).toBeDefined();
    // The name's next holder goes on after the revision numbers the deleted one used.
    const again = await orgs.make('gone', other.userid, 5);
    if (!('made' in again)) throw new Error(JSON.stringify(again));
    expect(
      await store.createRevision({
        ...revision,
        ownerid: again.made,
        spec: '{}',
        pipelines: '[]',
        requestId: null,
        limits,
      }),
    ).toEqual({ revision: 2 });
  });
});

/**
 * The caps on what one user makes hold under races: each is counted and the row kept in one
 * transaction holding the owner (SQLite's `begin immediate`; PostgreSQL's owner lock, as a
 * count alone under READ COMMITTED lets two racing transactions each see room for one more).
 * Through the store on this run's engine, and through the hub's routes, where the count and
 * the insert were two requests to the database with awaits between.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Metadata } from '../../packages/hub/src/engines/metadata/types.js';
import type { Publisher } from '../../packages/hub/src/engines/metadata/publishers.js';
import { makeNamedToken, TokenCapReached } from '../../packages/hub/src/services/named-tokens.js';
import { browserLogin, identity, storeOfThisRun, withHub } from './helpers.js';

const AT_ONCE = 12;

const times = <T>(count: number, make: (index: number) => T): T[] =>
  Array.from({ length: count }, (_, index) => make(index));

function publisherOf(ownerid: string, dataset: string, index: number): Publisher {
  return {
    id: `p${String(index)}-${dataset}`,
    ownerid,
    dataset,
    issuer: 'https://token.actions.githubusercontent.com',
    claims: { repository: `ada/repo-${String(index)}` },
    created: new Date().toISOString(),
    created_by: ownerid,
  };
}

describe('the caps, racing through the store on this run’s engine', () => {
  const engine = storeOfThisRun();
  let store: Metadata;
  beforeAll(() => {
    store = engine.store;
  });

  it('keep exactly as many tokens, organisations and publishers as the caps allow', async () => {
    const ada = await store.userForIdentity(identity('ada', 'ada'));
    const choice = (index: number) => ({
      userid: ada.userid,
      name: `t${String(index)}`,
      scope: 'read' as const,
      datasets: [],
      days: 1,
      most: 5,
    });
    const tokens = await Promise.allSettled(
      times(AT_ONCE, (index) => makeNamedToken(store, choice(index))),
    );
    expect(tokens.filter((made) => made.status === 'fulfilled')).toHaveLength(5);
    for (const made of tokens)
      if (made.status === 'rejected') expect(made.reason).toBeInstanceOf(TokenCapReached);
    expect(await store.namedTokens.list(ada.userid)).toHaveLength(5);

    const orgs = await Promise.all(
      times(AT_ONCE, (index) => store.organisations.make(`org-${String(index)}`, ada.userid, 3)),
    );
    expect(orgs.filter((made) => 'made' in made)).toHaveLength(3);
    expect(orgs.filter((made) => 'refused' in made && made.refused === 'full')).toHaveLength(
      AT_ONCE - 3,
    );
    expect(await store.organisations.madeBy(ada.userid)).toBe(3);

    // Of one dataset, and of the owner's datasets in all.
    const caps = { perDataset: 4, perOwner: 7 };
    const one = await Promise.all(
      times(AT_ONCE, (index) => store.publishers.add(publisherOf(ada.userid, 'one', index), caps)),
    );
    expect(one.filter((added) => 'added' in added)).toHaveLength(4);
    expect(await store.publishers.list(ada.userid, 'one')).toHaveLength(4);
    const many = await Promise.all(
      times(AT_ONCE, (index) =>
        store.publishers.add(publisherOf(ada.userid, `d${String(index)}`, index), caps),
      ),
    );
    expect(many.filter((added) => 'added' in added)).toHaveLength(3);
    expect(many.filter((added) => 'full' in added && added.full === 'perOwner')).toHaveLength(
      AT_ONCE - 3,
    );
    // The same publisher added at once is kept once.
    const grace = await store.userForIdentity(identity('grace', 'grace'));
    const same = await Promise.all(
      times(5, (index) =>
        store.publishers.add({ ...publisherOf(grace.userid, 'x', 0), id: `same-${String(index)}` }),
      ),
    );
    expect(same.filter((added) => 'added' in added)).toHaveLength(1);
    expect(same.filter((added) => 'same' in added)).toHaveLength(4);
    expect(await store.publishers.list(grace.userid, 'x')).toHaveLength(1);
  });
});

async function post(url: string, path: string, auth: string, body: unknown): Promise<number> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Auth-Token': auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

const count = (statuses: number[], status: number) =>
  statuses.filter((found) => found === status).length;

describe('the caps, racing through the hub', () => {
  it('hold for requests at once: tokens, organisations and trusted publishers', async () => {
    const issuer = 'http://127.0.0.1:1/issuer';
    await withHub(
      {
        caps: { maxTokensPerUser: 3, maxOrganisationsPerUser: 2, maxPublishersPerOwner: 4 },
        trustedIssuers: [issuer],
      },
      async ({ url, hub }) => {
        const ada = await browserLogin(url, 'ada');
        const tokens = await Promise.all(
          times(AT_ONCE, (index) =>
            post(url, '/api/tokens', ada, { name: `t${String(index)}`, scope: 'read' }),
          ),
        );
        expect([count(tokens, 201), count(tokens, 403)]).toEqual([3, AT_ONCE - 3]);
        const adaId = (await hub.store.userByName('ada'))?.userid ?? '';
        expect(await hub.store.namedTokens.list(adaId)).toHaveLength(3);

        const orgs = await Promise.all(
          times(AT_ONCE, (index) => post(url, '/api/orgs', ada, { name: `org-${String(index)}` })),
        );
        expect([count(orgs, 201), count(orgs, 403)]).toEqual([2, AT_ONCE - 2]);

        const publisher = (index: number) => ({
          issuer,
          claims: { repository: `ada/repo-${String(index)}` },
        });
        const perOwner = await Promise.all(
          times(AT_ONCE, (index) =>
            post(url, `/api/publishers/ada/d${String(index)}`, ada, publisher(index)),
          ),
        );
        expect([count(perOwner, 201), count(perOwner, 409)]).toEqual([4, AT_ONCE - 4]);
      },
    );
    // A dataset's own cap, 20, with room under the owner's.
    await withHub({ trustedIssuers: [issuer] }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const perDataset = await Promise.all(
        times(26, (index) =>
          post(url, '/api/publishers/ada/one', ada, {
            issuer,
            claims: { repository: `ada/repo-${String(index)}` },
          }),
        ),
      );
      expect([count(perDataset, 201), count(perDataset, 409)]).toEqual([20, 6]);
    });
  });
});

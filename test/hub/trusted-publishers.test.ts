/**
 * Trusted publishing (issue 49) over real HTTP, on both engine pairs: a dataset's trusted
 * publishers at /api/publishers, and the trade at /auth/trusted of a CI job's ID token,
 * signed by an issuer on loopback, for a hub token that publishes that one dataset.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, readHubConfig } from '../../packages/hub/src/config.js';
import { openMetadata } from '../../packages/hub/src/engines/metadata/open.js';
import { HubRefused } from '../../packages/hub/src/refused.js';
import { migrateHub } from '../../packages/hub/src/services/migrate.js';
import { gitHubClaims, startIdIssuer, type IdIssuer } from '../helpers/id-issuer.js';
import {
  browserLogin,
  CITIES_DIR,
  publish,
  serviceToken,
  tempDir,
  testDatabase,
  waitForState,
  withHub,
} from './helpers.js';

let issuer: IdIssuer;
let untrusted: IdIssuer;
beforeAll(async () => {
  [issuer, untrusted] = await Promise.all([startIdIssuer(), startIdIssuer()]);
});
afterAll(async () => {
  await Promise.all([issuer?.close(), untrusted?.close()]);
});

interface Answer {
  status: number;
  cacheControl: string | null;
  body: Record<string, unknown>;
}

async function call(
  url: string,
  method: string,
  path: string,
  auth?: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(auth ? { 'Auth-Token': auth } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    cacheControl: response.headers.get('cache-control'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

const REPO = 'octo/data';
const MAIN = 'refs/heads/main';

describe('trusted publishing', () => {
  it('is configured with https issuers, or http ones on loopback only', async () => {
    const folder = tempDir();
    const file = join(folder, 'hub.json');
    writeFileSync(file, JSON.stringify({ trustedIssuers: ['http://issuer.example.org'] }));
    expect(() => readHubConfig(file, {})).toThrow(ConfigError);
    expect(() => readHubConfig(file, {})).toThrow(/only on loopback/);
    writeFileSync(file, JSON.stringify({ trustedIssuers: 'https://a.example' }));
    expect(() => readHubConfig(file, {})).toThrow(/must be a list of issuer URLs/);
    writeFileSync(
      file,
      JSON.stringify({
        trustedIssuers: ['https://token.actions.githubusercontent.com', issuer.url],
      }),
    );
    expect(readHubConfig(file, {}).trustedIssuers).toEqual([
      'https://token.actions.githubusercontent.com',
      issuer.url,
    ]);
    await expect(
      withHub({ trustedIssuers: ['http://issuer.example.org'] }, () => Promise.resolve()),
    ).rejects.toThrow(HubRefused);
  });

  it("keeps a dataset's publishers for those who may publish it, and trades a matching token for one that publishes it alone", async () => {
    const lines: string[] = [];
    await withHub(
      { trustedIssuers: [issuer.url], log: (line) => lines.push(line) },
      async ({ url }) => {
        const ada = await browserLogin(url, 'ada');
        const bob = await browserLogin(url, 'bob');
        const path = '/api/publishers/ada/cities';
        const wanted = { issuer: issuer.url, claims: { repository: REPO, ref: MAIN } };

        // Who may not publish ada/cities may not say who may; the dataset need not exist.
        expect((await call(url, 'GET', path)).status).toBe(401);
        expect((await call(url, 'POST', path, bob, wanted)).status).toBe(403);
        const added = await call(url, 'POST', path, ada, wanted);
        expect(added.status).toBe(201);
        expect(added.body).toMatchObject({
          dataset: 'ada/cities',
          issuer: issuer.url,
          claims: { ref: MAIN, repository: REPO },
          created_by: 'ada',
        });
        const again = await call(url, 'POST', path, ada, wanted);
        expect(again).toMatchObject({ status: 200, body: { id: added.body.id } });
        const listed = await call(url, 'GET', path, ada);
        expect(listed.status).toBe(200);
        expect(listed.body).toEqual([added.body]);
        expect((await call(url, 'GET', path, bob)).status).toBe(403);
        // Only an issuer the hub trusts, and at least one claim that names the workflow.
        const refusals = [
          { issuer: untrusted.url, claims: { repository: REPO } },
          { issuer: issuer.url, claims: {} },
          { issuer: issuer.url, claims: { exp: '1' } },
          { issuer: issuer.url, claims: { ref: MAIN, environment: 'production' } },
        ];
        for (const refused of refusals)
          expect((await call(url, 'POST', path, ada, refused)).status).toBe(400);

        // The right repository and branch: a token that publishes ada/cities.
        const idToken = await issuer.sign(gitHubClaims(REPO, MAIN), { audience: url });
        const traded = await call(url, 'POST', '/auth/trusted', undefined, {
          token: idToken,
          dataset: 'ada/cities',
        });
        expect(traded.status).toBe(200);
        expect(traded.body).toMatchObject({ dataset: 'ada/cities' });
        // It carries a credential: kept by no cache (RFC 6749 5.1).
        expect(traded.cacheControl).toBe('no-store');
        const expires = Date.parse(String(traded.body.expires));
        expect(expires - Date.now()).toBeGreaterThan(14 * 60_000);
        expect(expires - Date.now()).toBeLessThanOrEqual(15 * 60_000);
        const hubToken = String(traded.body.token);
        // Published as private, as a CI job would: the token follows its own publication.
        const { flowId } = await publish(url, hubToken, CITIES_DIR, {
          dataset: 'cities',
          findability: 'private',
        });
        const asked = await fetch(`${url}/source/${flowId}`, {
          headers: { 'Auth-Token': hubToken },
        });
        expect(asked.status).toBe(200);
        expect((await waitForState(url, flowId, hubToken)).state).toBe('SUCCEEDED');
        const history = await fetch(
          `${url}/source/${flowId.split('/').slice(0, 2).join('/')}/revisions`,
          {
            headers: { 'Auth-Token': hubToken },
          },
        );
        expect(history.status).toBe(200);
        expect((await fetch(`${url}/ada/cities/datapackage.json`)).status).toBe(404);
        const page = await fetch(`${url}/ada/cities`, { headers: { 'Auth-Token': hubToken } });
        expect(page.status).toBe(200);
        // Never without its owner: neither without a dataset nor by its name alone.
        for (const dataset of [undefined, 'cities', 'Cities', 'ada/', '/cities'])
          expect(
            await call(url, 'POST', '/auth/trusted', undefined, { token: idToken, dataset }),
          ).toMatchObject({ status: 400, body: { check: 'dataset' } });
        const otherName = await call(url, 'POST', '/auth/trusted', undefined, {
          token: idToken,
          dataset: 'ada/towns',
        });
        expect(otherName).toMatchObject({ status: 403, body: { check: 'claims' } });

        // It reads the dataset it publishes, and nothing else its owner keeps private.
        const secret = await publish(url, ada, CITIES_DIR, {
          dataset: 'secret',
          findability: 'private',
        });
        expect((await waitForState(url, secret.flowId, ada)).state).toBe('SUCCEEDED');
        const read = (dataset: string, token: string) =>
          fetch(`${url}/ada/${dataset}/datapackage.json`, { headers: { 'Auth-Token': token } });
        expect((await read('secret', ada)).status).toBe(200);
        expect((await read('secret', hubToken)).status).toBe(404);
        expect((await read('cities', hubToken)).status).toBe(200);
        // Nor does search show it the owner's private datasets.
        const found = async (token: string, q = '') =>
          (
            (await call(url, 'GET', `/metastore/search?owner=ada&q=${q}`, token)).body as {
              results: { name: string }[];
            }
          ).results.map((result) => result.name);
        expect(await found(ada)).toContain('secret');
        expect(await found(hubToken)).not.toContain('secret');
        expect(await found(hubToken, 'secret')).toEqual([]);

        // That token publishes nothing else, manages no publisher and makes no token.
        await expect(publish(url, hubToken, CITIES_DIR, { dataset: 'towns' })).rejects.toThrow();
        expect((await fetch(`${url}/ada/towns/datapackage.json`)).status).toBe(404);
        expect((await call(url, 'POST', path, hubToken, wanted)).status).toBe(403);
        const made = await call(url, 'POST', '/api/tokens', hubToken, {
          name: 'more',
          scope: 'publish',
        });
        expect(made.status).toBe(403);

        // The same ID token trades once: one that leaked publishes nothing more.
        const replayed = await call(url, 'POST', '/auth/trusted', undefined, {
          token: idToken,
          dataset: 'ada/cities',
        });
        expect(replayed).toMatchObject({ status: 401, body: { check: 'token' } });
        expect(String(replayed.body.error)).toContain('traded already');

        // Every trade is logged with its claims, never with a token.
        const trades = lines.filter((line) => line.startsWith('trusted publishing:'));
        expect(trades).toHaveLength(1);
        expect(trades[0]).toContain(`"repository":"${REPO}"`);
        expect(trades[0]).toContain('may publish ada/cities');
        for (const line of lines) {
          expect(line).not.toContain(idToken);
          expect(line).not.toContain(hubToken);
        }

        // Removed: the same workflow's token is refused from then on, and the token it
        // traded already, and the service tokens issued from that, die at once.
        const service = await serviceToken(url, hubToken, 'source');
        const followed = (token: string) =>
          fetch(`${url}/source/${flowId}`, { headers: { 'Auth-Token': token } });
        expect((await followed(service.token)).status).toBe(200);
        expect((await followed(hubToken)).status).toBe(200);
        const removed = await call(url, 'DELETE', `${path}/${String(added.body.id)}`, ada);
        expect(removed.status).toBe(200);
        expect((await call(url, 'DELETE', `${path}/${String(added.body.id)}`, ada)).status).toBe(
          404,
        );
        // Dead, they are refused as such (401), not answered as anonymous.
        expect((await followed(hubToken)).status).toBe(401);
        expect((await followed(service.token)).status).toBe(401);
        expect((await read('cities', hubToken)).status).toBe(401);
        const after = await call(url, 'POST', '/auth/trusted', undefined, {
          token: await issuer.sign(gitHubClaims(REPO, MAIN), { audience: url }),
          dataset: 'ada/cities',
        });
        expect(after).toMatchObject({ status: 403, body: { check: 'claims' } });
      },
    );
  });

  it("never gives a token for another owner's dataset whose publisher names the same repository", async () => {
    await withHub({ trustedIssuers: [issuer.url] }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const eve = await browserLogin(url, 'eve');
      // Ada's publisher requires her branch; Eve names Ada's repository for a dataset of hers.
      const adas = { issuer: issuer.url, claims: { repository: REPO, ref: MAIN } };
      expect((await call(url, 'POST', '/api/publishers/ada/cities', ada, adas)).status).toBe(201);
      const eves = { issuer: issuer.url, claims: { repository: REPO } };
      expect((await call(url, 'POST', '/api/publishers/eve/cities', eve, eves)).status).toBe(201);
      // A job of Ada's repository on another branch, asking by the name alone or for nothing.
      const idToken = await issuer.sign(gitHubClaims(REPO, 'refs/heads/dev'), { audience: url });
      for (const dataset of [undefined, 'cities'])
        expect(
          await call(url, 'POST', '/auth/trusted', undefined, { token: idToken, dataset }),
        ).toMatchObject({ status: 400, body: { check: 'dataset' } });
      expect(
        await call(url, 'POST', '/auth/trusted', undefined, {
          token: idToken,
          dataset: 'ada/cities',
        }),
      ).toMatchObject({ status: 403, body: { check: 'claims' } });
    });
  });

  it("shows an organisation's trusted publisher's token neither its members nor its private datasets", async () => {
    await withHub({ trustedIssuers: [issuer.url] }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      expect((await call(url, 'POST', '/api/orgs', ada, { name: 'acme' })).status).toBe(201);
      const publisher = { issuer: issuer.url, claims: { repository: REPO } };
      expect((await call(url, 'POST', '/api/publishers/acme/cities', ada, publisher)).status).toBe(
        201,
      );
      const traded = await call(url, 'POST', '/auth/trusted', undefined, {
        token: await issuer.sign(gitHubClaims(REPO), { audience: url }),
        dataset: 'acme/cities',
      });
      expect(traded.status).toBe(200);
      const hubToken = String(traded.body.token);
      const published = await publish(url, hubToken, CITIES_DIR, {
        dataset: 'cities',
        findability: 'private',
      });
      expect((await waitForState(url, published.flowId, hubToken)).state).toBe('SUCCEEDED');
      const page = async (token: string) =>
        await (await fetch(`${url}/acme`, { headers: { 'Auth-Token': token } })).text();
      const members = await page(ada);
      expect(members).toContain('Members');
      expect(members).toContain('/acme/cities');
      const shown = await page(hubToken);
      expect(shown).not.toContain('Members');
      expect(shown).not.toContain('>ada</a>');
      expect(shown).not.toContain('/acme/cities');
    });
  });

  it('refuses each wrong token with the check that failed, never quoting it', async () => {
    await withHub({ trustedIssuers: [issuer.url] }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const path = '/api/publishers/ada/cities';
      const publisher = { issuer: issuer.url, claims: { repository: REPO, ref: MAIN } };
      expect((await call(url, 'POST', path, ada, publisher)).status).toBe(201);
      const cases: [string, Promise<string>, number, string][] = [
        [
          'another repository',
          issuer.sign(gitHubClaims('evil/data'), { audience: url }),
          403,
          'claims',
        ],
        [
          'another branch',
          issuer.sign(gitHubClaims(REPO, 'refs/heads/dev'), { audience: url }),
          403,
          'claims',
        ],
        [
          'a wrong audience',
          issuer.sign(gitHubClaims(REPO), { audience: 'https://another-hub.example' }),
          401,
          'aud',
        ],
        [
          'an expired token',
          issuer.sign(gitHubClaims(REPO), { audience: url, expiresIn: -120 }),
          401,
          'exp',
        ],
        [
          'a re-signed token',
          issuer.sign(gitHubClaims(REPO), { audience: url, otherKey: true }),
          401,
          'signature',
        ],
        [
          'an untrusted issuer',
          untrusted.sign(gitHubClaims(REPO), { audience: url }),
          401,
          'issuer',
        ],
        ['no JWT', Promise.resolve('not-a-token'), 400, 'token'],
      ];
      for (const [what, signing, status, check] of cases) {
        const token = await signing;
        const answer = await call(url, 'POST', '/auth/trusted', undefined, {
          token,
          dataset: 'ada/cities',
        });
        expect({ what, ...answer }).toMatchObject({ what, status, body: { check } });
        expect(typeof answer.body.error).toBe('string');
        expect(JSON.stringify(answer.body)).not.toContain(token);
      }
      // The claims refusal says what the token carried, so that its workflow's maker sees why.
      const other = await call(url, 'POST', '/auth/trusted', undefined, {
        token: await issuer.sign(gitHubClaims(REPO, 'refs/heads/dev'), { audience: url }),
        dataset: 'ada/cities',
      });
      expect(String(other.body.error)).toContain('ref=refs/heads/dev');
    });
  });

  it('keeps its publishers through data serve migrate-storage', async () => {
    const dataDir = tempDir();
    const publisher = { issuer: issuer.url, claims: { repository: REPO } };
    await withHub(
      {
        dataDir,
        database: join(dataDir, 'hub.sqlite'),
        storage: dataDir,
        trustedIssuers: [issuer.url],
      },
      async ({ url }) => {
        const ada = await browserLogin(url, 'ada');
        expect((await call(url, 'POST', '/api/publishers/ada/cities', ada, publisher)).status).toBe(
          201,
        );
      },
    );
    const target = await testDatabase();
    const other = tempDir();
    const database = target?.url ?? join(other, 'hub.sqlite');
    try {
      const moved = await migrateHub({ dataDir, database, storage: other });
      expect(moved.rows.publishers).toBe(1);
      const store = await openMetadata(database);
      try {
        const ada = await store.userByName('ada');
        expect(await store.publishers.list(ada?.userid ?? '', 'cities')).toMatchObject([
          { issuer: issuer.url, claims: { repository: REPO }, created_by: ada?.userid },
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await target?.drop();
    }
  });

  it('is off on a hub that trusts no issuer', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const added = await call(url, 'POST', '/api/publishers/ada/cities', ada, {
        issuer: issuer.url,
        claims: { repository: REPO },
      });
      expect(added.status).toBe(400);
      expect(String(added.body.error)).toContain('trustedIssuers');
      const traded = await call(url, 'POST', '/auth/trusted', undefined, {
        token: await issuer.sign(gitHubClaims(REPO), { audience: url }),
        dataset: 'ada/cities',
      });
      expect(traded).toMatchObject({ status: 401, body: { check: 'issuer' } });
    });
  });
});

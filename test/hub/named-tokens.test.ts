/**
 * Named tokens (issue 49) over real HTTP, on both engine pairs: made, listed and revoked at
 * /api/tokens; what each scope may do; revoked and expired tokens refused at once by every
 * hub process; nothing in the database or the log that would open anything.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeNamedToken, namedCredential } from '../../packages/hub/src/services/named-tokens.js';
import { readHubConfig } from '../../packages/hub/src/config.js';
import type { RunningHub } from '../../packages/hub/src/server.js';
import { uploadForm, type AuthorizeReply } from './protocol.js';
import {
  authorizeUploads,
  browserLogin,
  hiddenFields,
  CITIES_DIR,
  publish,
  readPackage,
  serviceToken,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';

interface Made {
  status: number;
  body: {
    token?: string;
    record?: Record<string, unknown>;
    error?: string;
    message?: string;
  };
  cacheControl?: string | null;
}

async function makeToken(base: string, auth: string, request: unknown): Promise<Made> {
  const response = await fetch(`${base}/api/tokens`, {
    method: 'POST',
    headers: { 'Auth-Token': auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(request),
  });
  return {
    status: response.status,
    body: (await response.json()) as Made['body'],
    cacheControl: response.headers.get('cache-control'),
  };
}

/** A token made, or the test fails saying why not. */
async function token(base: string, auth: string, request: unknown): Promise<string> {
  const made = await makeToken(base, auth, request);
  if (made.status !== 201 || !made.body.token) throw new Error(JSON.stringify(made));
  return made.body.token;
}

async function checkOf(base: string, auth: string): Promise<{ authenticated: boolean }> {
  const response = await fetch(`${base}/auth/check`, { headers: { 'Auth-Token': auth } });
  return (await response.json()) as { authenticated: boolean };
}

/** Every row of the tokens table, as text. */
async function tokenRows(hub: RunningHub): Promise<string> {
  const rows: unknown[] = [];
  for await (const row of hub.hub.store.exportRows('tokens')) rows.push(row);
  return JSON.stringify(rows);
}

const message = (made: Made): string => JSON.stringify(made.body);

describe('named tokens', () => {
  it('are made once, listed without the token, refused when asked wrongly, and kept as a hash', async () => {
    const lines: string[] = [];
    await withHub({ log: (line) => lines.push(line) }, async (hub) => {
      const { url } = hub;
      const ada = await browserLogin(url, 'ada');
      await browserLogin(url, 'bob');
      const made = await makeToken(url, ada, {
        name: 'CI <b>"deploy" &amp; ✓',
        scope: 'publish',
        datasets: ['ada/cities'],
        expires_days: 30,
      });
      expect(made.status).toBe(201);
      const secret = made.body.token ?? '';
      expect(secret).toMatch(/^dt_[A-Za-z0-9_-]{43}$/);
      // Answers that carry a credential are kept by no cache (RFC 6749 5.1), a service token too.
      expect(made.cacheControl).toBe('no-store');
      const service = await fetch(`${url}/auth/authorize?service=rawstore`, {
        headers: { 'Auth-Token': secret },
      });
      expect((await service.json()) as { token?: string }).toHaveProperty('token');
      expect(service.headers.get('cache-control')).toBe('no-store');
      expect(made.body.record).toMatchObject({
        name: 'CI <b>"deploy" &amp; ✓',
        scope: 'publish',
        datasets: ['ada/cities'],
        last_used: null,
      });
      const expires = Date.parse(String(made.body.record?.expires));
      expect(Math.round((expires - Date.now()) / 86_400_000)).toBe(30);

      // The token signs in as its user, and says what it is.
      expect(await checkOf(url, secret)).toMatchObject({
        authenticated: true,
        profile: { username: 'ada' },
        token: {
          name: 'CI <b>"deploy" &amp; ✓',
          scope: 'publish',
          datasets: ['ada/cities'],
          expires: made.body.record?.expires,
        },
      });
      expect(await checkOf(url, ada)).not.toHaveProperty('token');

      const listed = await fetch(`${url}/api/tokens`, { headers: { 'Auth-Token': ada } });
      const text = await listed.text();
      expect(listed.status).toBe(200);
      expect(text).not.toContain(secret);
      const records = JSON.parse(text) as Record<string, unknown>[];
      expect(records).toHaveLength(1);
      expect(Object.keys(records[0] ?? {}).sort()).toEqual(
        ['created', 'datasets', 'expires', 'last_used', 'name', 'scope'].sort(),
      );
      // Used (by /auth/check above): when, to the minute at least.
      expect(records[0]?.last_used).toEqual(expect.any(String));

      // The refusals, each with its reason.
      const again = await makeToken(url, ada, { name: 'CI <b>"deploy" &amp; ✓', scope: 'read' });
      expect(again.status).toBe(409);
      expect(message(again)).toContain('already have a token named');
      for (const days of [0, 366, 1.5, '7']) {
        const refused = await makeToken(url, ada, {
          name: `d${String(days)}`,
          scope: 'read',
          expires_days: days,
        });
        expect(refused.status).toBe(400);
        expect(message(refused)).toContain('from 1 to 365 days');
      }
      const scope = await makeToken(url, ada, { name: 'x', scope: 'write' });
      expect(scope.status).toBe(400);
      expect(message(scope)).toContain('read, publish or admin');
      const others = await makeToken(url, ada, {
        name: 'x',
        scope: 'publish',
        datasets: ['bob/data'],
      });
      expect(others.status).toBe(403);
      expect(message(others)).toContain('you may not publish to bob/data');
      const nobody = await makeToken(url, ada, {
        name: 'x',
        scope: 'publish',
        datasets: ['nobody/data'],
      });
      expect(nobody.status).toBe(403);
      const control = await makeToken(url, ada, { name: 'a\u001b[2Jb', scope: 'read' });
      expect(control.status).toBe(400);
      const long = await makeToken(url, ada, { name: 'x'.repeat(101), scope: 'read' });
      expect(long.status).toBe(400);
      // A token that is not a sign-in nor an unlimited admin token manages no tokens.
      const byToken = await makeToken(url, secret, { name: 'y', scope: 'read' });
      expect(byToken.status).toBe(403);
      expect((await fetch(`${url}/api/tokens`, { headers: { 'Auth-Token': secret } })).status).toBe(
        403,
      );
      expect(
        (await makeToken(url, 'dt_' + 'A'.repeat(43), { name: 'y', scope: 'read' })).status,
      ).toBe(401);

      // The database holds a hash, never the token.
      const rows = await tokenRows(hub);
      expect(rows).not.toContain(secret);
      expect(rows).toContain(createHash('sha256').update(secret).digest('hex'));
      // Nor does any file of a SQLite hub (its WAL included), nor any log line.
      if (!process.env.DATA_TEST_DATABASE) {
        for (const name of readdirSync(hub.hub.options.dataDir).filter((file) =>
          file.startsWith('hub.sqlite'),
        ))
          expect(readFileSync(join(hub.hub.options.dataDir, name)).includes(secret)).toBe(false);
      }
      expect(lines.join('\n')).not.toContain(secret);
    });
  });

  it('are named without spaces at either end, one name in any case; a too large expiry is said so', async () => {
    await withHub({}, async (hub) => {
      const { url } = hub;
      const ada = await browserLogin(url, 'ada');
      for (const name of [' sp', 'sp ', '\u00a0sp', 'sp\t']) {
        const spaced = await makeToken(url, ada, { name, scope: 'read' });
        expect(spaced.status, JSON.stringify(name)).toBe(400);
        expect(message(spaced)).toContain('a token name cannot begin or end with a space');
      }
      await token(url, ada, { name: 'Rd', scope: 'read' });
      // "rd", "RD" and the full-width "ｒｄ" are "Rd" again: refused, naming the one kept.
      for (const name of ['rd', 'RD', 'ｒｄ']) {
        const again = await makeToken(url, ada, { name, scope: 'read' });
        expect(again.status, name).toBe(409);
        expect(again.body).toEqual({
          error:
            'you already have a token named "Rd" (names are the same in any case): revoke it first, or choose another name',
        });
      }
      // Another user's names are theirs.
      const bob = await browserLogin(url, 'bob');
      expect((await makeToken(url, bob, { name: 'rd', scope: 'read' })).status).toBe(201);
      // 1e400 is read as Infinity, which JSON would show as null.
      const huge = await fetch(`${url}/api/tokens`, {
        method: 'POST',
        headers: { 'Auth-Token': ada, 'Content-Type': 'application/json' },
        body: '{"name": "huge", "scope": "read", "expires_days": 1e400}',
      });
      expect(huge.status).toBe(400);
      expect(await huge.json()).toEqual({
        error:
          'a token lives from 1 to 365 days on this hub ("expires_days" was a number too large)',
      });
    });
  });

  it("may name an organisation's dataset when the maker may publish there, and record their use once a minute", async () => {
    await withHub({}, async (hub) => {
      const { url } = hub;
      const ada = await browserLogin(url, 'ada');
      const bob = await browserLogin(url, 'bob');
      const org = await fetch(`${url}/api/orgs`, {
        method: 'POST',
        headers: { 'Auth-Token': ada, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'team' }),
      });
      expect(org.status).toBe(201);
      const made = await makeToken(url, ada, {
        name: 'ci',
        scope: 'publish',
        datasets: ['team/data'],
      });
      expect(made.status).toBe(201);
      expect(made.body.record?.datasets).toEqual(['team/data']);
      const outsider = await makeToken(url, bob, {
        name: 'ci',
        scope: 'publish',
        datasets: ['team/data'],
      });
      expect(outsider.status).toBe(403);

      // Used many times within a minute, written once; a minute later, again.
      const secret = made.body.token ?? '';
      const now = Date.now();
      const hash = createHash('sha256').update(secret).digest('hex');
      const record = async () => (await hub.hub.store.namedTokens.byHash(hash))?.last_used;
      expect(await namedCredential(hub.hub.store, secret, now)).toBeDefined();
      expect(await record()).toBe(new Date(now).toISOString());
      await namedCredential(hub.hub.store, secret, now + 30_000);
      expect(await record()).toBe(new Date(now).toISOString());
      await namedCredential(hub.hub.store, secret, now + 61_000);
      expect(await record()).toBe(new Date(now + 61_000).toISOString());
    });
  });

  it('neither add trusted publishers nor make tokens that outlive them, when stolen', async () => {
    const issuer = 'https://token.actions.githubusercontent.com';
    await withHub({ trustedIssuers: [issuer] }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const publisher = { issuer, claims: { repository: 'eve/repo' } };
      const addWith = (auth: string) =>
        fetch(`${url}/api/publishers/ada/cities`, {
          method: 'POST',
          headers: { 'Auth-Token': auth, 'Content-Type': 'application/json' },
          body: JSON.stringify(publisher),
        });
      // A publish token for the very dataset: publishing, not saying who else may publish
      // (a publisher it added would publish on after the token is revoked).
      const one = await token(url, ada, {
        name: 'one',
        scope: 'publish',
        datasets: ['ada/cities'],
      });
      const added = await addWith(one);
      expect(added.status).toBe(403);
      expect(await added.text()).toContain('a sign-in or an admin token');
      // Nor an unlimited publish token.
      const wide = await token(url, ada, { name: 'wide', scope: 'publish' });
      expect((await addWith(wide)).status).toBe(403);
      // A sign-in may.
      expect((await addWith(ada)).status).toBe(201);

      // An admin token living 2 days makes tokens living no longer than itself.
      const admin = await token(url, ada, { name: 'admin', scope: 'admin', expires_days: 2 });
      const adminExpires = Date.parse(
        (await makeToken(url, ada, { name: 'probe', scope: 'read', expires_days: 2 })).body.record
          ?.expires as string,
      );
      const child = await makeToken(url, admin, {
        name: 'child',
        scope: 'read',
        expires_days: 300,
      });
      expect(child.status).toBe(201);
      const childExpires = Date.parse(child.body.record?.expires as string);
      expect(childExpires).toBeLessThanOrEqual(adminExpires);
    });
  });

  it("limited to datasets, get no presigned URL of their owner's objects", async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      // Ada keeps a private object (a file of another dataset of hers).
      const bytes = Buffer.from('salary\n100\n');
      const rawstore = await serviceToken(url, ada, 'rawstore');
      const reply = (await (
        await authorizeUploads(url, rawstore, new Map([['pay.csv', bytes]]), 'private')
      ).json()) as AuthorizeReply;
      const entry = reply.filedata['pay.csv'];
      if (!entry) throw new Error('no filedata');
      await fetch(entry.upload_url, {
        method: 'POST',
        body: uploadForm(entry.upload_query, bytes),
      });
      const objectUrl = `${entry.upload_url}/${entry.upload_query.key ?? ''}`;
      const presign = async (auth: string) =>
        fetch(
          `${url}/rawstore/presign?ownerid=${rawstore.userid}&url=${encodeURIComponent(objectUrl)}`,
          { headers: { 'Auth-Token': auth } },
        );
      // A token for ada/cities alone, given the object's key: no URL that reads it, by
      // itself or by its service tokens.
      const one = await token(url, ada, {
        name: 'one',
        scope: 'publish',
        datasets: ['ada/cities'],
      });
      const refused = await presign(one);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('limited to datasets');
      expect((await presign((await serviceToken(url, one, 'rawstore')).token)).status).toBe(403);
      // Its user's sign-in still gets one.
      expect((await presign(rawstore.token)).status).toBe(200);
      // And the token still publishes its dataset, private too (the hub reads uploads by key).
      const { flowId } = await publish(url, one, CITIES_DIR, {
        dataset: 'cities',
        findability: 'private',
      });
      expect((await waitForState(url, flowId, ada)).state).toBe('SUCCEEDED');
    });
  });

  it('name owners and datasets in any case, as the hub does', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      // Typed as people type them: the owner capitalised, the dataset too.
      const made = await makeToken(url, ada, {
        name: 'ci',
        scope: 'publish',
        datasets: ['Ada/World-Cities'],
      });
      expect(made.status).toBe(201);
      expect(made.body.record?.datasets).toEqual(['ada/World-Cities']);
      // It publishes world-cities, the name the package gives.
      const { flowId } = await publish(url, made.body.token ?? '', CITIES_DIR, {
        dataset: 'world-cities',
      });
      expect((await waitForState(url, flowId, ada)).state).toBe('SUCCEEDED');
      // A dataset that exists is named as it is kept.
      const again = await makeToken(url, ada, {
        name: 'again',
        scope: 'publish',
        datasets: ['ADA/WORLD-CITIES'],
      });
      expect(again.body.record?.datasets).toEqual(['ada/world-cities']);
    });
  });

  it('are never taken from an address (?jwt=), where they would end up in logs', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const secret = await token(url, ada, { name: 'ci', scope: 'read' });
      const inAddress = await fetch(`${url}/auth/check?jwt=${encodeURIComponent(secret)}`);
      expect(((await inAddress.json()) as { authenticated: boolean }).authenticated).toBe(false);
      // In its header it signs in; the old clients' user token still rides in the address.
      expect((await checkOf(url, secret)).authenticated).toBe(true);
      const session = await fetch(`${url}/auth/check?jwt=${encodeURIComponent(ada)}`);
      expect(((await session.json()) as { authenticated: boolean }).authenticated).toBe(true);
    });
  });

  it('used again within the minute write nothing, so the hub keeps what it has looked up', async () => {
    await withHub({}, async (hub) => {
      const { url } = hub;
      const store = hub.hub.store;
      const ada = await browserLogin(url, 'ada');
      const secret = await token(url, ada, { name: 'ci', scope: 'read' });
      expect((await checkOf(url, secret)).authenticated).toBe(true);
      // Its use is recorded; requests within the minute change nothing the store holds, so
      // its version (which empties the hub's caches of lookups) stays. The version also names
      // the second it is read in (rules.ts freshness), so only its count of writes is compared.
      const writes = () => store.version.split(':')[0];
      const version = writes();
      for (let i = 0; i < 3; i++) expect((await checkOf(url, secret)).authenticated).toBe(true);
      expect(writes()).toBe(version);
      // Nor does a statement that changes no row (another process wrote it first).
      const record = await store.namedTokens.byHash(
        createHash('sha256').update(secret).digest('hex'),
      );
      if (!record?.last_used) throw new Error('no use recorded');
      await store.namedTokens.used(record.id, record.last_used, record.last_used);
      expect(writes()).toBe(version);
    });
  });

  it('are held up to the caps of the hub configuration, each naming a bounded list', async () => {
    // The hub configuration sets them, each a whole number above 0, the others their defaults.
    const file = join(tempDir(), 'hub.json');
    writeFileSync(file, JSON.stringify({ maxTokensPerUser: 5 }));
    expect(readHubConfig(file, {}).caps).toEqual({
      maxOrganisationsPerUser: 10,
      maxTokensPerUser: 5,
      maxDatasetsPerToken: 50,
      maxPublishersPerOwner: 100,
    });
    writeFileSync(file, JSON.stringify({ maxDatasetsPerToken: 0 }));
    expect(() => readHubConfig(file, {})).toThrow(
      'maxDatasetsPerToken must be a whole number above 0',
    );
    writeFileSync(file, JSON.stringify({}));
    expect(readHubConfig(file, {}).caps).toBeUndefined();
    await withHub(
      { caps: { maxOrganisationsPerUser: 10, maxTokensPerUser: 2, maxDatasetsPerToken: 2 } },
      async ({ url }) => {
        const ada = await browserLogin(url, 'ada');
        const many = await makeToken(url, ada, {
          name: 'many',
          scope: 'publish',
          datasets: ['ada/a', 'ada/b', 'ada/c'],
        });
        expect(many.status).toBe(400);
        expect(many.body.error).toContain('at most 2 datasets');
        await token(url, ada, { name: 'one', scope: 'publish', datasets: ['ada/a', 'ada/b'] });
        await token(url, ada, { name: 'two', scope: 'read' });
        const third = await makeToken(url, ada, { name: 'three', scope: 'read' });
        expect(third.status).toBe(403);
        expect(third.body.error).toContain('you have 2 live tokens, the most this hub allows');
        // Revoking one makes room.
        await fetch(`${url}/api/tokens/two`, { method: 'DELETE', headers: { 'Auth-Token': ada } });
        expect((await makeToken(url, ada, { name: 'three', scope: 'read' })).status).toBe(201);
      },
    );
  });

  it('count only live tokens toward the cap, dropping those expired a month as one is made', async () => {
    const caps = { maxOrganisationsPerUser: 10, maxTokensPerUser: 2, maxDatasetsPerToken: 2 };
    await withHub({ caps }, async (hub) => {
      const { url } = hub;
      const ada = await browserLogin(url, 'ada');
      const userid = (await hub.hub.store.userByName('ada'))?.userid ?? '';
      const madeDaysAgo = (name: string, days: number) =>
        makeNamedToken(
          hub.hub.store,
          { userid, name, scope: 'read', datasets: [], days: 1 },
          Date.now() - days * 86_400_000,
        );
      await madeDaysAgo('old', 40); // expired 39 days ago
      await madeDaysAgo('recent', 3); // expired 2 days ago
      // Two expired tokens take none of the cap of 2 (the first was refused before).
      await token(url, ada, { name: 'one', scope: 'read' });
      const names = async () => {
        const listed = await fetch(`${url}/api/tokens`, { headers: { 'Auth-Token': ada } });
        return ((await listed.json()) as { name: string }[]).map((record) => record.name);
      };
      // The one expired over a month ago went as a token was made; the other stays listed,
      // so that its user sees why a job using it is refused, and its name stays taken.
      expect(await names()).toEqual(['one', 'recent']);
      const again = await makeToken(url, ada, { name: 'recent', scope: 'read' });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(
        /^your token named "recent" expired on \d{4}-\d\d-\d\d: revoke it to use its name again/,
      );
      await token(url, ada, { name: 'two', scope: 'read' });
      const third = await makeToken(url, ada, { name: 'three', scope: 'read' });
      expect(third.status).toBe(403);
      expect(third.body.error).toContain('you have 2 live tokens, the most this hub allows');
    });
  });

  it('live at most ten years whatever the hub is given, and none is kept that its answer fails', async () => {
    const file = join(tempDir(), 'hub.json');
    writeFileSync(file, JSON.stringify({ maxTokenDays: 1_000_000_000 }));
    expect(() => readHubConfig(file, {})).toThrow(
      'maxTokenDays must be a whole number of days from 1 to 3650 (ten years)',
    );
    writeFileSync(file, JSON.stringify({ maxTokenDays: 3650 }));
    expect(readHubConfig(file, {}).maxTokenDays).toBe(3650);
    // A hub given more by its options keeps to ten years: a token of 1e8 days was kept, then
    // answered 500 (no date for its expiry), as did the list until it was revoked.
    await withHub({ maxTokenDays: 1_000_000_000 }, async (hub) => {
      const { url } = hub;
      const ada = await browserLogin(url, 'ada');
      const long = await makeToken(url, ada, {
        name: 'ci',
        scope: 'read',
        expires_days: 100_000_000,
      });
      expect(long.status).toBe(400);
      expect(message(long)).toContain('from 1 to 3650 days');
      expect(await tokenRows(hub)).toBe('[]');
      const listed = await fetch(`${url}/api/tokens`, { headers: { 'Auth-Token': ada } });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual([]);
      const made = await makeToken(url, ada, { name: 'ci', scope: 'read', expires_days: 3650 });
      expect(made.status).toBe(201);
      // The answer is made before the token is kept: when it fails, nothing is kept.
      const store = hub.hub.store;
      const userById = store.userById.bind(store);
      store.userById = () => Promise.reject(new Error('the database went away'));
      const failed = await makeToken(url, ada, {
        name: 'lost',
        scope: 'publish',
        datasets: ['ada/cities'],
      }).finally(() => (store.userById = userById));
      expect(failed.status).toBe(500);
      expect(await tokenRows(hub)).not.toContain('lost');
    });
  });

  it('are looked up once a request, known or not', async () => {
    await withHub({}, async (hub) => {
      const { url } = hub;
      const tokens = hub.hub.store.namedTokens;
      const byHash = tokens.byHash.bind(tokens);
      let lookups = 0;
      tokens.byHash = (hash) => {
        lookups++;
        return byHash(hash);
      };
      const ada = await browserLogin(url, 'ada');
      const secret = await token(url, ada, { name: 'ci', scope: 'read' });
      lookups = 0;
      expect((await checkOf(url, secret)).authenticated).toBe(true);
      expect(lookups).toBe(1);
      lookups = 0;
      expect((await checkOf(url, `dt_${'B'.repeat(43)}`)).authenticated).toBe(false);
      expect(lookups).toBe(1);
    });
  });

  it('let a hub operator set the longest life of a token', async () => {
    await withHub({ maxTokenDays: 7 }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const long = await makeToken(url, ada, { name: 'ci', scope: 'read', expires_days: 8 });
      expect(long.status).toBe(400);
      expect(message(long)).toContain('from 1 to 7 days');
      // Without a choice: 30 days, or the maximum when it is less.
      const made = await makeToken(url, ada, { name: 'ci', scope: 'read' });
      const expires = Date.parse(String(made.body.record?.expires));
      expect(Math.round((expires - Date.now()) / 86_400_000)).toBe(7);
    });
  });

  it('publish only where their scope and datasets allow', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const bob = await browserLogin(url, 'bob');
      const one = await token(url, ada, {
        name: 'one',
        scope: 'publish',
        datasets: ['ada/cities'],
      });
      const reader = await token(url, ada, { name: 'reader', scope: 'read' });

      // Its own dataset: published.
      const { flowId } = await publish(url, one, CITIES_DIR, {
        dataset: 'cities',
        findability: 'private',
      });
      expect((await waitForState(url, flowId, ada)).state).toBe('SUCCEEDED');
      // Another dataset of the same user: refused.
      await expect(publish(url, one, CITIES_DIR, { dataset: 'towns' })).rejects.toThrow(
        // Refused at the upload's authorization, which names the dataset.
        'rawstore authorize failed: this token may publish only the datasets it was made for, and ada/towns is not one of them',
      );
      // A read token publishes nothing.
      const uploads = await authorizeUploads(
        url,
        await serviceToken(url, reader, 'rawstore'),
        readPackage(CITIES_DIR).files,
      );
      // A valid credential lacking the scope is refused (403), not asked to sign in (401).
      expect(uploads.status).toBe(403);
      expect(await uploads.text()).toContain(
        "this token's scope is read; publishing the datasets of ada needs the publish scope",
      );
      await expect(publish(url, reader, CITIES_DIR, { dataset: 'cities' })).rejects.toThrow();
      expect((await fetch(`${url}/ada/towns/datapackage.json`)).status).toBe(404);

      // The read token reads its user's private dataset; the publish token too (publish
      // includes read); neither reads another user's private dataset.
      const bobs = await publish(url, bob, CITIES_DIR, {
        dataset: 'secret',
        findability: 'private',
      });
      expect((await waitForState(url, bobs.flowId, bob)).state).toBe('SUCCEEDED');
      for (const secret of [reader, one]) {
        const own = await fetch(`${url}/ada/cities/datapackage.json`, {
          headers: { 'Auth-Token': secret },
        });
        expect(own.status).toBe(200);
        const other = await fetch(`${url}/bob/secret/datapackage.json`, {
          headers: { 'Auth-Token': secret },
        });
        expect(other.status).toBe(404);
      }
      // Deleting is more than publishing: neither token deletes.
      for (const secret of [reader, one]) {
        const deleted = await fetch(`${url}/source/ada/cities`, {
          method: 'DELETE',
          headers: { 'Auth-Token': secret },
        });
        expect(deleted.status).toBeGreaterThanOrEqual(401);
        expect(deleted.status).toBeLessThan(405);
      }
      expect(
        (await fetch(`${url}/ada/cities/datapackage.json`, { headers: { 'Auth-Token': ada } }))
          .status,
      ).toBe(200);
    });
  });

  it('are listed on a page of the signed-in user, names escaped, each revoked by its button', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const bob = await browserLogin(url, 'bob');
      const secret = await token(url, ada, {
        name: '<b>"ci" & co',
        scope: 'publish',
        datasets: ['ada/cities'],
      });
      await token(url, bob, { name: 'bobs', scope: 'read' });
      const cookie = `data_session=${ada}`;
      const shown = await fetch(`${url}/settings/tokens`, { headers: { cookie } });
      expect(shown.status).toBe(200);
      const html = await shown.text();
      expect(html).toContain('<th scope="row">&lt;b&gt;&quot;ci&quot; &amp; co</th>');
      expect(html).not.toContain('<b>"ci"');
      expect(html).toContain('<code>ada/cities</code>');
      expect(html).not.toContain('bobs');
      expect(html).not.toContain(secret);
      expect(html).toMatch(/<button type="submit" aria-label="Revoke [^"]+">Revoke<\/button>/);
      // Signed out: to the sign-in page.
      const away = await fetch(`${url}/settings/tokens`, { redirect: 'manual' });
      expect(away.status).toBe(302);

      // The name as a browser sends it (hiddenFields decodes only &amp; and &quot;).
      const hidden = hiddenFields(html);
      const fields = {
        ...hidden,
        name: (hidden.name ?? '').replace(/&lt;/g, '<').replace(/&gt;/g, '>'),
      };
      const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
        fetch(`${url}/settings/tokens/revoke`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(form).toString(),
        });
      expect((await post({ ...fields, csrf: 'forged' })).status).toBe(403);
      expect((await post(fields, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      // No Origin, and a Referer of another site (a browser may send only that).
      expect((await post(fields, { referer: 'https://evil.example/' })).status).toBe(403);
      // Bob's session does not carry Ada's CSRF value.
      const asBob = await fetch(`${url}/settings/tokens/revoke`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: `data_session=${bob}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(fields).toString(),
      });
      expect(asBob.status).toBe(403);
      expect(await checkOf(url, secret)).toMatchObject({ authenticated: true });
      const revoked = await post(fields, { referer: `${url}/settings/tokens` });
      expect(revoked.status).toBe(303);
      expect(revoked.headers.get('location')).toMatch(/^\/settings\/tokens\?revoked=/);
      expect(await checkOf(url, secret)).toMatchObject({ authenticated: false });
      const after = await (
        await fetch(`${url}${revoked.headers.get('location') ?? ''}`, { headers: { cookie } })
      ).text();
      expect(after).toContain('You have no tokens');
      expect(after).toContain('role="status"');
      expect(after).toContain('Token revoked.');
      // A link cannot make the page say what it likes.
      const words = 'Your account is locked: call 555-0100';
      const linked = await (
        await fetch(`${url}/settings/tokens?revoked=${encodeURIComponent(words)}`, {
          headers: { cookie },
        })
      ).text();
      expect(linked).not.toContain('555-0100');
    });
  });

  it('are refused at once by every hub process once revoked or expired, with their service tokens', async () => {
    const dataDir = tempDir();
    await withHub({ dataDir }, async (first) => {
      await withHub({ dataDir }, async (second) => {
        const ada = await browserLogin(first.url, 'ada');
        const secret = await token(first.url, ada, { name: 'ci', scope: 'publish' });
        expect(await checkOf(second.url, secret)).toMatchObject({ authenticated: true });
        const rawstore = await serviceToken(second.url, secret, 'rawstore');
        expect(rawstore.token).toEqual(expect.any(String));

        const revoked = await fetch(`${first.url}/api/tokens/ci`, {
          method: 'DELETE',
          headers: { 'Auth-Token': ada },
        });
        expect(await revoked.json()).toEqual({ revoked: 'ci' });
        expect(await checkOf(second.url, secret)).toMatchObject({ authenticated: false });
        expect((await serviceToken(second.url, secret, 'rawstore')).token).toBeUndefined();
        const authorize = await fetch(`${second.url}/rawstore/authorize`, {
          method: 'POST',
          headers: { 'Auth-Token': rawstore.token },
          body: JSON.stringify({ metadata: { owner: rawstore.userid }, filedata: {} }),
        });
        expect(authorize.status).toBe(401);
        const twice = await fetch(`${second.url}/api/tokens/ci`, {
          method: 'DELETE',
          headers: { 'Auth-Token': ada },
        });
        expect(twice.status).toBe(404);

        // Expired: made two days ago to live one day.
        const user = await first.hub.store.userByName('ada');
        const old = await makeNamedToken(
          first.hub.store,
          { userid: user?.userid ?? '', name: 'old', scope: 'admin', datasets: [], days: 1 },
          Date.now() - 2 * 86_400_000,
        );
        expect(await checkOf(second.url, old?.token ?? '')).toMatchObject({ authenticated: false });
        expect((await serviceToken(second.url, old?.token ?? '', 'source')).token).toBeUndefined();
      });
    });
  });
});

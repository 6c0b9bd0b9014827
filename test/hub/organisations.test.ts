/**
 * Organisations (issue 49) over real HTTP, on both engine pairs: made at /api/orgs, members
 * added, changed and removed; each role does exactly what it allows (read a private
 * dataset, publish a revision, delete, manage members) and a non-member nothing, a private
 * dataset answering to them as a missing one on the API, the reads and the pages; a change
 * of role holds at once on another hub process.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  authorizeUploads,
  browserLogin,
  CITIES_DIR,
  readPackage,
  serviceToken,
  tempDir,
  testDatabase,
  uploadFiles,
  waitForState,
  withHub,
  type AuthorizeReply,
} from './helpers.js';

interface Answer {
  status: number;
  body: unknown;
}

async function call(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { 'Auth-Token': token } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A page, or text: kept as it is.
  }
  return { status: response.status, body: parsed };
}

/**
 * Publishes examples/cities (world-cities) as `ownerid` (an organisation) with `jwt`'s user: the files
 * authorized for that owner, the flow spec naming it. Returns the step that was refused,
 * with its status, or the flow id.
 */
async function publishAs(
  base: string,
  jwt: string,
  ownerid: string,
  owner: string,
  findability = 'private',
): Promise<{ flowId: string } | { refused: string; status: number }> {
  const pkg = readPackage(CITIES_DIR);
  const rawstore = await serviceToken(base, jwt, 'rawstore');
  const authorized = await authorizeUploads(
    base,
    { token: rawstore.token, userid: ownerid },
    pkg.files,
    findability,
  );
  if (authorized.status !== 200) {
    await authorized.text();
    return { refused: 'rawstore', status: authorized.status };
  }
  const reply = (await authorized.json()) as AuthorizeReply;
  const { urls } = await uploadFiles(reply, pkg.files);
  const source = await serviceToken(base, jwt, 'source');
  const { 'datapackage.json': descriptorUrl = '', ...mapping } = urls;
  const response = await fetch(`${base}/source/upload`, {
    method: 'POST',
    headers: { 'Auth-Token': source.token, 'content-type': 'application/json' },
    body: JSON.stringify({
      meta: { version: 1, ownerid, owner, dataset: pkg.descriptor.name, findability },
      inputs: [
        {
          kind: 'datapackage',
          url: descriptorUrl,
          parameters: { descriptor: pkg.descriptor, 'resource-mapping': mapping },
        },
      ],
    }),
  });
  const body = (await response.json()) as { success: boolean; flow_id: string };
  return body.success ? { flowId: body.flow_id } : { refused: 'source', status: response.status };
}

describe('organisations', () => {
  it('give each role exactly what it allows, and a non-member nothing', async () => {
    const dataDir = tempDir();
    await withHub({ dataDir }, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      const mia = await browserLogin(url, 'mia');
      const rob = await browserLogin(url, 'rob');
      const sam = await browserLogin(url, 'sam');

      // Made by a signed-in user, in the namespace of owner names, in any case.
      expect(await call(url, 'POST', '/api/orgs', undefined, { name: 'acme' })).toMatchObject({
        status: 401,
      });
      expect(await call(url, 'POST', '/api/orgs', ada, { name: 'Acme' })).toEqual({
        status: 201,
        body: { name: 'acme', members: [{ user: 'ada', role: 'admin' }] },
      });
      for (const taken of ['acme', 'ACME', 'mia'])
        expect((await call(url, 'POST', '/api/orgs', sam, { name: taken })).status).toBe(409);
      for (const bad of ['healthz', 'api', 'no spaces', ''])
        expect((await call(url, 'POST', '/api/orgs', sam, { name: bad })).status).toBe(400);
      // Nobody signs in as an organisation, not even through the development sign-in.
      await expect(browserLogin(url, 'acme')).rejects.toThrow('login did not redirect: 400');
      const orgid = (await hub.store.userByName('acme'))?.userid ?? '';

      // Members: added by the admin only; a user who never signed in is not there.
      expect(
        await call(url, 'PUT', '/api/orgs/acme/members/mia', ada, { role: 'maintainer' }),
      ).toEqual({ status: 200, body: { user: 'mia', role: 'maintainer' } });
      expect(
        (await call(url, 'PUT', '/api/orgs/ACME/members/Rob', ada, { role: 'reader' })).status,
      ).toBe(200);
      const ghost = await call(url, 'PUT', '/api/orgs/acme/members/ghost', ada, { role: 'reader' });
      expect(ghost.status).toBe(404);
      expect((ghost.body as { error: string }).error).toContain('no user "ghost"');
      // An organisation is no member (of itself nor of another): said so, not "no user".
      const itself = await call(url, 'PUT', '/api/orgs/acme/members/ACME', ada, { role: 'reader' });
      expect(itself).toEqual({
        status: 400,
        body: {
          error:
            '"acme" is an organisation: an organisation cannot be a member of another, only users can',
        },
      });
      // /auth/resolve says whether a name is a user's or an organisation's.
      expect((await call(url, 'GET', '/auth/resolve?username=acme', ada)).body).toEqual({
        userid: orgid,
        kind: 'organisation',
      });
      expect((await call(url, 'GET', '/auth/resolve?username=mia', ada)).body).toMatchObject({
        kind: 'user',
      });
      expect((await call(url, 'GET', '/auth/resolve?username=nobody', ada)).body).toEqual({
        userid: null,
      });
      expect(
        (await call(url, 'PUT', '/api/orgs/acme/members/sam', ada, { role: 'owner' })).status,
      ).toBe(400);
      expect(
        (await call(url, 'PUT', '/api/orgs/acme/members/sam', mia, { role: 'reader' })).status,
      ).toBe(403);
      expect(
        (await call(url, 'PUT', '/api/orgs/acme/members/sam', rob, { role: 'reader' })).status,
      ).toBe(403);
      // Members see the members; anyone else finds no such organisation.
      const listed = {
        status: 200,
        body: [
          { user: 'ada', role: 'admin' },
          { user: 'mia', role: 'maintainer' },
          { user: 'rob', role: 'reader' },
        ],
      };
      expect(await call(url, 'GET', '/api/orgs/acme/members', rob)).toEqual(listed);
      expect(await call(url, 'GET', '/api/orgs/acme/members', mia)).toEqual(listed);
      const strangers = await call(url, 'GET', '/api/orgs/acme/members', sam);
      expect(strangers.status).toBe(404);
      expect(strangers).toEqual({
        ...(await call(url, 'GET', '/api/orgs/nothing/members', sam)),
        body: { error: 'no organisation "acme" of yours' },
      });
      expect((await call(url, 'GET', '/api/orgs/ada/members', sam)).status).toBe(404);

      // Publishing: a reader and a stranger may not (403: signed in, but refused); a
      // maintainer may, under the organisation.
      expect(await publishAs(url, rob, orgid, 'acme')).toEqual({
        refused: 'rawstore',
        status: 403,
      });
      expect(await publishAs(url, sam, orgid, 'acme')).toEqual({
        refused: 'rawstore',
        status: 403,
      });
      const published = await publishAs(url, mia, orgid, 'acme');
      if (!('flowId' in published)) throw new Error(JSON.stringify(published));
      expect(published.flowId).toBe(`${orgid}/world-cities/1`);
      expect((await waitForState(url, published.flowId, mia)).state).toBe('SUCCEEDED');
      // The files are the organisation's, counted against its storage, not mia's.
      expect(await hub.store.storageUsed(orgid)).toBeGreaterThan(0);
      expect(await hub.store.storageUsed((await hub.store.userByName('mia'))?.userid ?? '')).toBe(
        0,
      );

      // Reading the private dataset: members may, a stranger and nobody find nothing there.
      const reads = [
        '/acme/world-cities',
        '/acme/world-cities/datapackage.json',
        '/acme/world-cities/validation_report.json',
        `/source/${orgid}/world-cities/latest`,
        `/source/${orgid}/world-cities/revisions`,
      ];
      for (const path of reads) {
        for (const member of [ada, mia, rob])
          expect((await call(url, 'GET', path, member)).status, path).toBe(200);
        for (const outsider of [sam, undefined]) {
          const answer = await call(url, 'GET', path, outsider);
          const missing = await call(url, 'GET', path.replace('world-cities', 'towns'), outsider);
          expect(answer.status, path).toBe(404);
          // Exactly as a missing one: the same answer but for the name it repeats.
          expect(JSON.stringify(answer.body).replaceAll('world-cities', 'X'), path).toBe(
            JSON.stringify(missing.body).replaceAll('towns', 'X'),
          );
        }
      }
      const names = async (token?: string) =>
        (
          (await call(url, 'GET', '/metastore/search?owner=acme', token)).body as {
            results: { name: string }[];
          }
        ).results.map((result) => result.name);
      expect(await names(rob)).toEqual(['world-cities']);
      expect(await names(sam)).toEqual([]);
      // The organisation's page: its datasets and members to members, neither to others.
      const page = String((await call(url, 'GET', '/acme', rob)).body);
      expect(page).toContain('Members');
      expect(page).toContain('>mia</a></td><td>maintainer</td>');
      expect(page).toContain('/acme/world-cities');
      for (const outsider of [sam, undefined]) {
        const other = String((await call(url, 'GET', '/acme', outsider)).body);
        expect(other).not.toContain('Members');
        expect(other).not.toContain('mia');
        expect(other).not.toContain('/acme/world-cities');
      }

      // Deleting: not a reader, nor a stranger (to whom it is not there); a maintainer may.
      expect((await call(url, 'DELETE', `/source/${orgid}/world-cities`, rob)).status).toBe(403);
      expect((await call(url, 'DELETE', `/source/${orgid}/world-cities`, sam)).status).toBe(404);
      expect(await call(url, 'DELETE', `/source/${orgid}/world-cities`, mia)).toEqual({
        status: 200,
        body: { deleted: `${orgid}/world-cities` },
      });

      // The last admin neither steps down nor leaves; a member may leave.
      expect(
        (await call(url, 'PUT', '/api/orgs/acme/members/ada', ada, { role: 'reader' })).status,
      ).toBe(409);
      expect((await call(url, 'DELETE', '/api/orgs/acme/members/ada', ada)).status).toBe(409);
      expect((await call(url, 'DELETE', '/api/orgs/acme/members/rob', mia)).status).toBe(403);
      expect(await call(url, 'DELETE', '/api/orgs/acme/members/mia', mia)).toEqual({
        status: 200,
        body: { removed: 'mia' },
      });
      expect((await call(url, 'DELETE', '/api/orgs/acme/members/mia', ada)).status).toBe(404);
      expect((await call(url, 'GET', '/api/orgs/acme/members', mia)).status).toBe(404);
    });
  });

  it('are made by one user up to the cap of the hub configuration', async () => {
    await withHub(
      { caps: { maxOrganisationsPerUser: 2, maxTokensPerUser: 50, maxDatasetsPerToken: 50 } },
      async ({ url }) => {
        const eve = await browserLogin(url, 'eve');
        const make = (name: string) => call(url, 'POST', '/api/orgs', eve, { name });
        expect((await make('one')).status).toBe(201);
        expect((await make('two')).status).toBe(201);
        // A third name squatted: refused, saying the cap, and the name stays free.
        expect(await make('ada-corp')).toEqual({
          status: 403,
          body: {
            error:
              'you have made 2 organisations, the most this hub allows one user to make: delete one you no longer need (data org delete ORG)',
          },
        });
        const ada = await browserLogin(url, 'ada');
        expect((await call(url, 'POST', '/api/orgs', ada, { name: 'ada-corp' })).status).toBe(201);
      },
    );
  });

  it('count toward the cap only what a user made: admins made of others’ may leave by deleting them', async () => {
    const caps = { maxOrganisationsPerUser: 3, maxTokensPerUser: 50, maxDatasetsPerToken: 50 };
    await withHub({ caps }, async ({ url, hub }) => {
      const bob = await browserLogin(url, 'bob');
      const carol = await browserLogin(url, 'carol');
      const make = (token: string, name: string) => call(url, 'POST', '/api/orgs', token, { name });
      // The outside trial's: bob, at his cap, hands each organisation to carol and leaves.
      for (const name of ['borg1', 'borg2', 'borg3']) {
        expect((await make(bob, name)).status).toBe(201);
        const path = `/api/orgs/${name}/members`;
        expect((await call(url, 'PUT', `${path}/carol`, bob, { role: 'admin' })).status).toBe(200);
        expect((await call(url, 'DELETE', `${path}/bob`, bob)).status).toBe(200);
      }
      // He made three: no more (he made three more before).
      const fourth = await make(bob, 'borg4');
      expect(fourth.status).toBe(403);
      expect((fourth.body as { error: string }).error).toContain('you have made 3 organisations');
      // carol made none: hers are hers to make (refused before).
      expect((await make(carol, 'carols')).status).toBe(201);
      // The last admin cannot leave, and is told how to: delete it.
      const leave = await call(url, 'DELETE', '/api/orgs/borg1/members/carol', carol);
      expect(leave).toEqual({
        status: 409,
        body: {
          error:
            'you are the last admin of borg1: make another member admin first, or delete borg1 (data org delete borg1) once it has no datasets',
        },
      });
      expect(await call(url, 'DELETE', '/api/orgs/borg1', carol)).toEqual({
        status: 200,
        body: { deleted: 'borg1' },
      });
      expect((await call(url, 'GET', '/api/orgs/borg1/members', carol)).status).toBe(404);
      expect(await hub.store.userByName('borg1')).toBeUndefined();
      // The name is free again; bob's count went down with the organisation he made.
      expect((await make(bob, 'borg1')).status).toBe(201);
      expect((await make(bob, 'borg5')).status).toBe(403);
    });
  });

  it('are deleted by an admin, once they have no datasets, freeing the name', async () => {
    await withHub({ dataDir: tempDir() }, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      const mia = await browserLogin(url, 'mia');
      const rob = await browserLogin(url, 'rob');
      const sam = await browserLogin(url, 'sam');
      expect((await call(url, 'POST', '/api/orgs', ada, { name: 'acme' })).status).toBe(201);
      for (const [user, role] of [
        ['mia', 'maintainer'],
        ['rob', 'reader'],
      ] as const)
        await call(url, 'PUT', `/api/orgs/acme/members/${user}`, ada, { role });
      const orgid = (await hub.store.userByName('acme'))?.userid ?? '';
      const published = await publishAs(url, mia, orgid, 'acme');
      if (!('flowId' in published)) throw new Error(JSON.stringify(published));
      expect((await waitForState(url, published.flowId, mia)).state).toBe('SUCCEEDED');

      // Admins only; to a stranger it is not there; without a sign-in, 401.
      expect((await call(url, 'DELETE', '/api/orgs/acme')).status).toBe(401);
      expect((await call(url, 'DELETE', '/api/orgs/acme', sam)).status).toBe(404);
      expect((await call(url, 'DELETE', '/api/orgs/acme', mia)).status).toBe(403);
      expect((await call(url, 'DELETE', '/api/orgs/acme', rob)).status).toBe(403);
      // Not while it has a dataset: the refusal says how to delete it.
      expect(await call(url, 'DELETE', '/api/orgs/ACME', ada)).toEqual({
        status: 409,
        body: {
          error:
            'acme has 1 dataset: delete each first (data delete acme/DATASET; data list acme lists them), then the organisation',
        },
      });
      expect((await call(url, 'GET', '/acme/world-cities', rob)).status).toBe(200);
      expect((await call(url, 'DELETE', `/source/${orgid}/world-cities`, mia)).status).toBe(200);
      expect(await call(url, 'DELETE', '/api/orgs/acme', ada)).toEqual({
        status: 200,
        body: { deleted: 'acme' },
      });
      // Gone for its members too, with what it held; a user's name is no organisation.
      expect((await call(url, 'GET', '/api/orgs/acme/members', ada)).status).toBe(404);
      expect((await call(url, 'DELETE', '/api/orgs/acme', ada)).status).toBe(404);
      expect((await call(url, 'DELETE', '/api/orgs/ada', ada)).status).toBe(404);
      expect(await hub.store.organisations.members(orgid)).toEqual([]);
      expect(await hub.store.storageUsed(orgid)).toBe(0);

      // The name is free; its new owner's first revision of the same dataset goes on after
      // the deleted organisation's, so /acme/world-cities/v/1/ never serves other bytes.
      expect((await call(url, 'POST', '/api/orgs', sam, { name: 'acme' })).status).toBe(201);
      const newid = (await hub.store.userByName('acme'))?.userid ?? '';
      expect(newid).not.toBe(orgid);
      expect((await call(url, 'GET', '/api/orgs/acme/members', ada)).status).toBe(404);
      const again = await publishAs(url, sam, newid, 'acme');
      expect(again).toEqual({ flowId: `${newid}/world-cities/2` });
    });
  });

  it('have their makers recorded by the migration, from their first admin', async () => {
    const dataDir = tempDir();
    const database = await testDatabase();
    const options = { dataDir, ...(database ? { database: database.url } : {}) };
    try {
      await withHub(options, async ({ url }) => {
        const ada = await browserLogin(url, 'ada');
        const bob = await browserLogin(url, 'bob');
        // "both": two admins, ada joined first; "left": its maker ada left it to bob.
        for (const name of ['both', 'left']) {
          await call(url, 'POST', '/api/orgs', ada, { name });
          await call(url, 'PUT', `/api/orgs/${name}/members/bob`, ada, { role: 'admin' });
        }
        await call(url, 'DELETE', '/api/orgs/left/members/ada', ada);
        await call(url, 'POST', '/api/orgs', bob, { name: 'own' });
      });
      await asBeforeMakers(options);
      await withHub(options, async ({ hub }) => {
        const id = async (name: string) => (await hub.store.userByName(name))?.userid ?? '';
        expect(await hub.store.organisations.madeBy(await id('ada'))).toBe(1);
        expect(await hub.store.organisations.madeBy(await id('bob'))).toBe(2);
      });
    } finally {
      await database?.drop();
    }
  });

  it('apply a change of role at once on another hub process', async () => {
    const dataDir = tempDir();
    await withHub({ dataDir }, async (first) => {
      const ada = await browserLogin(first.url, 'ada');
      const rob = await browserLogin(first.url, 'rob');
      expect((await call(first.url, 'POST', '/api/orgs', ada, { name: 'lab' })).status).toBe(201);
      const orgid = (await first.hub.store.userByName('lab'))?.userid ?? '';
      const set = (role: string) =>
        call(first.url, 'PUT', '/api/orgs/lab/members/rob', ada, { role });
      expect((await set('reader')).status).toBe(200);
      await withHub({ dataDir }, async (second) => {
        const published = await publishAs(second.url, ada, orgid, 'lab');
        if (!('flowId' in published)) throw new Error(JSON.stringify(published));
        expect((await waitForState(second.url, published.flowId, ada)).state).toBe('SUCCEEDED');
        const read = async () =>
          (await call(second.url, 'GET', '/lab/world-cities/datapackage.json', rob)).status;
        expect(await read()).toBe(200);
        expect(await publishAs(second.url, rob, orgid, 'lab')).toEqual({
          refused: 'rawstore',
          status: 403,
        });
        expect((await set('maintainer')).status).toBe(200);
        const again = await publishAs(second.url, rob, orgid, 'lab');
        // Accepted: the same package again is its published revision, unchanged.
        expect(again).toEqual({ flowId: `${orgid}/world-cities/1` });
        expect((await call(first.url, 'DELETE', '/api/orgs/lab/members/rob', ada)).status).toBe(
          200,
        );
        expect(await read()).toBe(404);
      });
    });
  });
});

/** Takes a stopped hub's database back to before makers were recorded: none, one migration less. */
async function asBeforeMakers(options: { dataDir: string; database?: string }): Promise<void> {
  if (options.database === undefined) {
    const db = new DatabaseSync(join(options.dataDir, 'hub.sqlite'));
    try {
      const { user_version: version } = db.prepare('pragma user_version').get() as {
        user_version: number;
      };
      db.exec(`update users set maker = null; pragma user_version = ${String(version - 1)}`);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: options.database });
  await client.connect();
  try {
    await client.query('update users set maker = null');
    await client.query('update schema_version set version = version - 1');
  } finally {
    await client.end();
  }
}

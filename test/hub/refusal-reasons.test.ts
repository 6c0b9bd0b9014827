/**
 * A refusal names what refused: the credential's scope, or the datasets it was made for,
 * before the role of its user, under the user's own name or an organisation's; and an
 * organisation's name, its limit in characters.
 */
import { describe, expect, it } from 'vitest';
import {
  authorizeUploads,
  browserLogin,
  CITIES_DIR,
  publish,
  readPackage,
  serviceToken,
  waitForState,
  withHub,
} from './helpers.js';

async function send(
  url: string,
  method: string,
  path: string,
  auth: string,
  body?: unknown,
): Promise<{ status: number; body: { error?: string; errors?: string[] } }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'Auth-Token': auth, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

async function namedToken(url: string, auth: string, request: unknown): Promise<string> {
  const made = await send(url, 'POST', '/api/tokens', auth, request);
  const token = (made.body as { token?: string }).token;
  if (!token) throw new Error(JSON.stringify(made));
  return token;
}

describe('a refusal', () => {
  it("names the token's scope, or its datasets, before any role", async () => {
    await withHub({}, async (hub) => {
      const { url } = hub;
      const ada = await browserLogin(url, 'ada');
      const { flowId } = await publish(url, ada, CITIES_DIR, { dataset: 'cities' });
      expect((await waitForState(url, flowId, ada)).state).toBe('SUCCEEDED');
      const reader = await namedToken(url, ada, { name: 'reader', scope: 'read' });
      const one = await namedToken(url, ada, {
        name: 'one',
        scope: 'publish',
        datasets: ['ada/cities'],
      });
      const narrowAdmin = await namedToken(url, ada, {
        name: 'narrow',
        scope: 'admin',
        datasets: ['ada/cities'],
      });

      // Deleting (by the owner's id): the scope is named, not a role the user has.
      const adaId = (await hub.hub.store.userByName('ada'))?.userid ?? '';
      expect(await send(url, 'DELETE', `/source/${adaId}/cities`, reader)).toEqual({
        status: 403,
        body: { error: "this token's scope is read; deleting ada/cities needs the admin scope" },
      });
      expect((await send(url, 'DELETE', `/source/${adaId}/cities`, one)).body.error).toBe(
        "this token's scope is publish; deleting ada/cities needs the admin scope",
      );
      // Making an organisation.
      expect(await send(url, 'POST', '/api/orgs', reader, { name: 'acme' })).toEqual({
        status: 403,
        body: {
          error:
            "this token's scope is read; making an organisation takes a sign-in or an admin token limited to no dataset",
        },
      });
      expect((await send(url, 'POST', '/api/orgs', narrowAdmin, { name: 'acme' })).body.error).toBe(
        'this token is limited to some datasets; making an organisation takes a sign-in or an admin token limited to no dataset',
      );
      expect((await send(url, 'GET', '/api/tokens', reader)).body.error).toBe(
        "this token's scope is read; managing tokens takes a sign-in or an admin token limited to no dataset",
      );

      // An organisation's name: its limit is in characters.
      const long = await send(url, 'POST', '/api/orgs', ada, { name: 'a'.repeat(40) });
      expect(long.status).toBe(400);
      expect(long.body.error).toContain('at most 39 characters');

      // Under an organisation, a token made for one of its datasets is refused another by
      // its list, not told that the organisation is not one it may publish to.
      expect((await send(url, 'POST', '/api/orgs', ada, { name: 'acme' })).status).toBe(201);
      const orgid = (await hub.hub.store.userByName('acme'))?.userid ?? '';
      const acmeCi = await namedToken(url, ada, {
        name: 'acme-ci',
        scope: 'publish',
        datasets: ['acme/data'],
      });
      const rawstore = await serviceToken(url, acmeCi, 'rawstore');
      const files = readPackage(CITIES_DIR).files;
      const asOrg = { token: rawstore.token, userid: orgid };
      const other = await authorizeUploads(url, asOrg, files, 'published', undefined, 'other');
      expect(other.status).toBe(403);
      expect(((await other.json()) as { error: string }).error).toBe(
        'this token may publish only the datasets it was made for, and acme/other is not one of them',
      );
      const own = await authorizeUploads(url, asOrg, files, 'published', undefined, 'data');
      expect(own.status).toBe(200);
      await own.arrayBuffer();
      const source = await serviceToken(url, acmeCi, 'source');
      const spec = {
        meta: {
          version: 1,
          ownerid: orgid,
          owner: 'acme',
          dataset: 'other',
          findability: 'published',
        },
        inputs: [
          { kind: 'datapackage', url: '', parameters: { descriptor: {}, 'resource-mapping': {} } },
        ],
      };
      expect(await send(url, 'POST', '/source/upload', source.token, spec)).toMatchObject({
        status: 403,
        body: {
          errors: [
            'this token may publish only the datasets it was made for, and acme/other is not one of them',
          ],
        },
      });
    });
  });
});

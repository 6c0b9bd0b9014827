/**
 * A credential sent in a header that is not live (revoked, expired, unknown, or not the
 * hub's) is refused with a 401 that says so, on every route but those that answer a dead
 * credential themselves, where it was answered as if no credential were sent: "no dataset
 * … (or it is private)". A browser's stale cookie still sees the pages as anyone does.
 */
import { describe, expect, it } from 'vitest';
import { makeNamedToken } from '../../packages/hub/src/services/named-tokens.js';
import {
  browserLogin,
  CITIES_DIR,
  publish,
  serviceToken,
  waitForState,
  withHub,
} from './helpers.js';

const REFUSED = 'the token was refused: it is unknown, revoked or expired';

async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; challenge: string | null; body: unknown }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // A page, or a text answer.
  }
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
}

describe('a dead credential in a header', () => {
  it('is refused with a 401 that says so on every route, but those that answer it themselves', async () => {
    await withHub({}, async (hub) => {
      const { url } = hub;
      const ada = await browserLogin(url, 'ada');
      const { flowId } = await publish(url, ada, CITIES_DIR, { findability: 'private' });
      expect((await waitForState(url, flowId, ada)).state).toBe('SUCCEEDED');
      const descriptor = `${url}/ada/world-cities/datapackage.json`;

      const made = await fetch(`${url}/api/tokens`, {
        method: 'POST',
        headers: { 'Auth-Token': ada, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'reader', scope: 'read' }),
      });
      const reader = ((await made.json()) as { token: string }).token;
      // Live, in either header, it reads the private dataset.
      expect((await call(descriptor, { headers: { 'Auth-Token': reader } })).status).toBe(200);
      const bearer = await call(descriptor, { headers: { Authorization: `Bearer ${reader}` } });
      expect(bearer.status).toBe(200);
      const revoked = await fetch(`${url}/api/tokens/reader`, {
        method: 'DELETE',
        headers: { 'Auth-Token': ada },
      });
      expect(revoked.status).toBe(200);

      const user = await hub.hub.store.userByName('ada');
      const expired = await makeNamedToken(
        hub.hub.store,
        { userid: user?.userid ?? '', name: 'old', scope: 'admin', datasets: [], days: 1 },
        Date.now() - 2 * 86_400_000,
      );
      const signedOut = await browserLogin(url, 'ada');
      await fetch(`${url}/auth/logout`, { method: 'POST', headers: { 'Auth-Token': signedOut } });
      const rawstore = await serviceToken(url, ada, 'rawstore');
      const dead: Record<string, string> = {
        revoked: reader,
        expired: expired?.token ?? '',
        unknown: `dt_${'B'.repeat(43)}`,
        'signed out': signedOut,
        'not a token': 'not-a-token',
      };
      const routes: [string, string, string?][] = [
        ['GET', '/ada/world-cities/datapackage.json'],
        ['GET', '/ada/world-cities'],
        ['GET', '/ada/world-cities/r/countries.csv'],
        ['GET', '/ada'],
        ['GET', '/'],
        ['GET', '/metastore/search?q=cities'],
        ['GET', '/api/tokens'],
        ['POST', '/api/tokens', '{"name":"x","scope":"read"}'],
        ['POST', '/api/orgs', '{"name":"acme"}'],
        ['GET', '/api/publishers/ada/world-cities'],
        ['POST', '/rawstore/authorize', '{}'],
        ['GET', `/source/${flowId}`],
        ['DELETE', '/source/ada/world-cities'],
      ];
      for (const [name, token] of Object.entries(dead))
        for (const [method, path, body] of routes)
          for (const header of ['Auth-Token', 'Authorization']) {
            const value = header === 'Authorization' ? `Bearer ${token}` : token;
            const answer = await call(`${url}${path}`, {
              method,
              headers: { [header]: value, 'Content-Type': 'application/json' },
              ...(body === undefined ? {} : { body }),
            });
            const what = `${name} in ${header}: ${method} ${path}`;
            expect(answer.status, what).toBe(401);
            expect(answer.body, what).toEqual({ error: REFUSED });
            expect(answer.challenge, what).toBe(
              `Bearer realm="data hub", error="invalid_token", error_description="${REFUSED}"`,
            );
          }
      // The dataset is still there for a live credential: nothing was changed.
      expect((await call(descriptor, { headers: { 'Auth-Token': ada } })).status).toBe(200);

      // The routes that answer a dead credential in the protocol's own way keep doing so.
      const check = await call(`${url}/auth/check`, { headers: { 'Auth-Token': reader } });
      expect(check).toMatchObject({ status: 200, body: { authenticated: false } });
      const authorize = await call(`${url}/auth/authorize?service=rawstore`, {
        headers: { 'Auth-Token': reader },
      });
      expect(authorize.status).toBe(200);
      expect(authorize.body).not.toHaveProperty('token');
      const logout = await call(`${url}/auth/logout`, {
        method: 'POST',
        headers: { 'Auth-Token': signedOut },
      });
      expect(logout).toMatchObject({ status: 200, body: { revoked: false } });
      // The answers that are the same for all look at no credential (http-refusals.test.ts).
      const css = await fetch(`${url}/static/hub.css`, { headers: { 'Auth-Token': reader } });
      expect(css.status).toBe(200);
      await css.arrayBuffer();
      // A live service token passes the gate: its route decides.
      const upload = await call(`${url}/rawstore/authorize`, {
        method: 'POST',
        headers: { 'Auth-Token': rawstore.token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ metadata: { owner: rawstore.userid }, filedata: {} }),
      });
      expect(upload.status).toBe(200);

      // A stale session cookie sees the pages as anyone: a private dataset is not there.
      const page = await call(`${url}/ada/world-cities`, {
        headers: { Cookie: `data_session=${reader}`, Accept: 'text/html' },
      });
      expect(page.status).toBe(404);
      expect(page.challenge).toBeNull();

      // A 401 without a credential says how to authenticate, with no error (RFC 6750 3.1).
      const anonymous = await call(`${url}/api/tokens`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.challenge).toBe('Bearer realm="data hub"');
    });
  });
});

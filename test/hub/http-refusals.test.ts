/**
 * The HTTP surface as an outsider met it (issue 49, second outside trial): a JSON field a
 * route does not take is refused naming it, an address that is not there is a 404 whatever
 * the method (a 405 always names methods), the health checks look at no credential, a token
 * refused for its scope says so as RFC 6750 says, and a browser's stale form is answered
 * with a page of the site. Driven against a real hub on loopback.
 */
import { describe, expect, it } from 'vitest';
import { JSON_BODIES } from '../../packages/hub/src/http/bodies.js';
import { ROUTES } from '../../packages/hub/src/routes.js';
import { tokensPage } from '../../packages/hub/src/views/tokens.js';
import { browserLogin, serviceToken, withHub } from './helpers.js';

const JSON_TYPE = { 'content-type': 'application/json' };

async function answer(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

async function makeToken(url: string, jwt: string, body: Record<string, unknown>) {
  const made = await answer(`${url}/api/tokens`, {
    method: 'POST',
    headers: { 'Auth-Token': jwt, ...JSON_TYPE },
    body: JSON.stringify(body),
  });
  expect(made.status, made.text).toBe(201);
  return (JSON.parse(made.text) as { token: string }).token;
}

describe('the JSON bodies the hub takes', () => {
  it('refuse a field their route does not take, naming it and the one it may have meant', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await answer(`${url}/api/orgs`, {
        method: 'POST',
        headers: { 'Auth-Token': ada, ...JSON_TYPE },
        body: JSON.stringify({ name: 'acme' }),
      });
      await browserLogin(url, 'bob');
      const cases: [string, string, Record<string, unknown>, string, string | undefined][] = [
        // The trial's: a token for every dataset of ada's, for the default days.
        [
          'POST',
          '/api/tokens',
          { name: 'typo', scope: 'publish', dataset: ['ada/one'], expires: 1 },
          'dataset',
          'datasets',
        ],
        ['POST', '/api/tokens', { name: 'ci', scope: 'read', expires: 1 }, 'expires', undefined],
        // The trial's: a publisher that no claim limits.
        [
          'POST',
          '/api/publishers/ada/one',
          { issuer: 'https://token.actions.githubusercontent.com', claim: { ref: 'main' } },
          'claim',
          'claims',
        ],
        ['POST', '/api/orgs', { name: 'other', nmae: 'x' }, 'nmae', 'name'],
        ['PUT', '/api/orgs/acme/members/bob', { role: 'reader', rol: 'admin' }, 'rol', 'role'],
        [
          'POST',
          '/auth/trusted',
          { token: 'x', dataset: 'ada/one', datset: 'x' },
          'datset',
          'dataset',
        ],
        [
          'POST',
          '/auth/token',
          { code: 'x', code_verifier: 'y', verifier: 'z' },
          'verifier',
          undefined,
        ],
      ];
      for (const [method, path, body, field, meant] of cases) {
        const refused = await answer(`${url}${path}`, {
          method,
          headers: { 'Auth-Token': ada, ...JSON_TYPE },
          body: JSON.stringify(body),
        });
        const what = `${method} ${path} ${field}`;
        expect(refused.status, what).toBe(400);
        const { error } = JSON.parse(refused.text) as { error: string };
        expect(error, what).toContain(`has no field "${field}"`);
        if (meant) expect(error, what).toContain(`(did you mean "${meant}"?)`);
        else expect(error, what).not.toContain('did you mean');
        expect(error, what).toContain(': it takes ');
      }
      expect(
        JSON.parse(
          (
            await answer(`${url}/api/tokens/typo`, {
              method: 'DELETE',
              headers: { 'Auth-Token': ada },
            })
          ).text,
        ),
      ).toEqual({ error: 'you have no token named "typo"' });
      const publishers = await answer(`${url}/api/publishers/ada/one`, {
        headers: { 'Auth-Token': ada },
      });
      expect(JSON.parse(publishers.text)).toEqual([]);
      // The owner in any case, as the tokens' datasets are named.
      const anyCase = await answer(`${url}/api/publishers/Ada/one`, {
        headers: { 'Auth-Token': ada },
      });
      expect([anyCase.status, JSON.parse(anyCase.text)]).toEqual([200, []]);
      // The body as documented still passes.
      await makeToken(url, ada, { name: 'ok', scope: 'publish', datasets: ['ada/one'] });
    });
  });

  it("take any field on the old DataHub client's routes, which it may send", async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const rawstore = await serviceToken(url, ada, 'rawstore');
      const authorized = await answer(`${url}/rawstore/authorize`, {
        method: 'POST',
        headers: { 'Auth-Token': rawstore.token, ...JSON_TYPE },
        body: JSON.stringify({
          // An older version's: the old raw store needed a name.
          metadata: {
            owner: rawstore.userid,
            findability: 'published',
            name: 'does-not-matter-what-this-is',
          },
          filedata: {},
          something_new: true,
        }),
      });
      expect(authorized.status, authorized.text).toBe(200);
    });
  });

  it('each has its rule, and the routes of the rules are routes of the hub', () => {
    for (const route of Object.keys(JSON_BODIES)) expect(ROUTES).toContain(route);
    const open = Object.entries(JSON_BODIES)
      .filter(([, rule]) => rule.fields === 'any')
      .map(([route]) => route);
    expect(open.sort()).toEqual(['POST /rawstore/authorize', 'POST /source/upload']);
  });
});

describe('an address', () => {
  it('that is not there is a 404 whatever the method, and a 405 always names methods', async () => {
    await withHub({}, async ({ url }) => {
      const missing = [
        '/api',
        '/api/nosuch',
        '/api/orgs/acme/nosuch',
        '/api/tokens/a/b',
        '/auth/nosuch',
        '/metastore/nosuch',
        '/settings',
        '/rawstore',
      ];
      for (const path of missing)
        for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
          const got = await answer(`${url}${path}`, { method });
          expect(got.status, `${method} ${path}`).toBe(404);
          expect(got.headers.get('allow'), `${method} ${path}`).toBeNull();
        }
      // Every route of the table, asked with every method: a 405 names the others.
      let refusals = 0;
      for (const route of ROUTES) {
        const template = route.split(' ')[1] ?? '/';
        const path = template.replace(/:key\b/, `${'a'.repeat(32)}.csv`).replace(/:\w+/g, 'x');
        for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH']) {
          const got = await answer(`${url}${path}`, { method });
          if (got.status !== 405) continue;
          refusals++;
          const allow = got.headers.get('allow') ?? '';
          expect(allow, `${method} ${path}`).not.toBe('');
          expect(allow.split(', '), `${method} ${path}`).not.toContain(method);
        }
      }
      expect(refusals).toBeGreaterThan(50);
    });
  });
});

describe('a dead credential', () => {
  it('is not looked at by the health checks and the fixed files, which read nothing private', async () => {
    await withHub({}, async ({ url }) => {
      const dead = `dt_${'B'.repeat(43)}`;
      for (const headers of [
        { Authorization: `Bearer ${dead}` },
        { 'Auth-Token': dead },
        { Authorization: 'Bearer not-a-token' },
      ])
        for (const path of ['/healthz', '/readyz', '/healthz/', '/static/hub.css']) {
          const got = await answer(`${url}${path}`, { headers });
          expect(got.status, `${path} ${JSON.stringify(headers)}`).toBe(200);
          expect(got.headers.get('vary'), path).toBeNull();
        }
      // Elsewhere it is refused, as before.
      const refused = await answer(`${url}/api/tokens`, { headers: { 'Auth-Token': dead } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('vary')).toContain('Auth-Token');
    });
  });
});

describe('a token refused for its scope', () => {
  it('is told so in WWW-Authenticate (RFC 6750 3.1), which a browser app may read', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const reader = await makeToken(url, ada, { name: 'reader', scope: 'read' });
      // Managing tokens, making an organisation: the admin scope.
      for (const [method, path, body] of [
        ['GET', '/api/tokens', undefined],
        ['POST', '/api/orgs', '{"name":"acme"}'],
      ] as const) {
        const got = await answer(`${url}${path}`, {
          method,
          headers: { 'Auth-Token': reader, ...JSON_TYPE },
          ...(body ? { body } : {}),
        });
        expect(got.status, path).toBe(403);
        expect(got.headers.get('www-authenticate'), path).toBe(
          'Bearer realm="data hub", error="insufficient_scope", scope="admin"',
        );
      }
      // Uploading, with the service token a read token gets: the publish scope.
      const rawstore = await serviceToken(url, reader, 'rawstore');
      const upload = await answer(`${url}/rawstore/authorize`, {
        method: 'POST',
        headers: { 'Auth-Token': rawstore.token, ...JSON_TYPE },
        body: JSON.stringify({ metadata: { owner: rawstore.userid }, filedata: {} }),
      });
      expect(upload.status).toBe(403);
      expect(upload.headers.get('www-authenticate')).toBe(
        'Bearer realm="data hub", error="insufficient_scope", scope="publish"',
      );
      // A 403 that is not the token's (another user's tokens are none of its business) has none.
      const bob = await browserLogin(url, 'bob');
      const notMember = await answer(`${url}/api/orgs`, {
        method: 'POST',
        headers: { 'Auth-Token': bob, ...JSON_TYPE },
        body: '{"name":"ada"}',
      });
      expect(notMember.status).toBe(409);
      expect(notMember.headers.get('www-authenticate')).toBeNull();
      // A cross-origin read exposes it.
      const read = await answer(`${url}/ada/none/datapackage.json`);
      expect(read.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    });
  });
});

describe("a browser's form refused", () => {
  it('is a page of the site with the reason and a way back, for a stale CSRF value', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const cookie = `data_session=${ada}`;
      const form = {
        cookie,
        origin: url,
        'content-type': 'application/x-www-form-urlencoded',
      };
      const cases: [string, string, string][] = [
        ['/settings/tokens/revoke', 'csrf=stale&name=ci', '/settings/tokens'],
        ['/auth/logout', 'csrf=stale', '/auth/logout'],
      ];
      for (const [path, body, back] of cases) {
        const page = await answer(`${url}${path}`, {
          method: 'POST',
          headers: { ...form, accept: 'text/html,application/xhtml+xml' },
          body,
        });
        expect(page.status, path).toBe(403);
        expect(page.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
        expect(page.text, path).toContain('<header class="top">');
        expect(page.text, path).toContain('<h1>Forbidden</h1>');
        expect(page.text, path).toMatch(/<p role="alert">[A-Z][^<]+\.<\/p>/);
        expect(page.text, path).toContain(`<a href="${back}">`);
        // A program is answered as before, in plain text.
        const plain = await answer(`${url}${path}`, { method: 'POST', headers: form, body });
        expect(plain.status, path).toBe(403);
        expect(plain.headers.get('content-type'), path).toBe('text/plain; charset=utf-8');
      }
      // Still signed in: the stale form did nothing.
      const check = await answer(`${url}/auth/check`, { headers: { 'Auth-Token': ada } });
      expect(JSON.parse(check.text)).toMatchObject({ authenticated: true });
    });
  });
});

describe('the page of tokens', () => {
  it('shows times to the minute in UTC, and marks an expired token', () => {
    const html = tokensPage({
      viewer: 'ada',
      csrf: 'c',
      now: new Date('2026-11-27T01:00:00Z'),
      tokens: [
        {
          name: 'old',
          scope: 'read',
          datasets: [],
          created: '2026-11-26T00:42:10.000Z',
          last_used: null,
          expires: '2026-11-27T00:42:10.000Z',
        },
        {
          name: 'live',
          scope: 'publish',
          datasets: ['ada/one'],
          created: '2026-11-26T09:05:00.000Z',
          last_used: '2026-11-26T10:15:00.000Z',
          expires: '2026-12-26T09:05:00.000Z',
        },
      ],
    });
    expect(html).toContain('Times are in UTC');
    expect(html).toContain('<time datetime="2026-11-27T00:42:10.000Z">2026-11-27 00:42 UTC</time>');
    expect(html).toContain('<time datetime="2026-11-26T10:15:00.000Z">2026-11-26 10:15 UTC</time>');
    const [old = '', live = ''] = html.split('<tr><th scope="row">').slice(1);
    expect(old).toContain('expired');
    expect(live).not.toContain('expired');
    expect(old).toContain('never');
  });
});

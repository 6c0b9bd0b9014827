/**
 * A hub's refusal is said in the user's words: what it would not do (never the protocol's
 * route, `rawstore authorize: 403`), its reason with the request's fields named as the
 * options the user typed (`--expires`, `--role`, never `expires_days` or
 * `"metadata.owner"`), shown escaped. A refusal of an argument (400) is a usage error, exit
 * 2, as when data refuses the same argument itself; a request refused as understood (403,
 * 404, 409) exits 1.
 */
import { join } from 'node:path';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { serviceTokens, signedIn } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';

const server = setupServer();
beforeAll(() => server.listen());
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const CITIES = join(import.meta.dirname, '../../examples/cities');

function data(args: string[]) {
  return runCli(args, {
    env: { DATA_API: HUB, DATA_TOKEN: 'session-token' },
    fetch: globalThis.fetch,
  });
}

const refuse = (status: number, error: string) => HttpResponse.json({ error }, { status });

describe("a hub's refusal", () => {
  it('of a publication names what it would not do and the owner in words, exit 1', async () => {
    server.use(
      signedIn(),
      serviceTokens(),
      http.post(`${HUB}/rawstore/authorize`, () =>
        refuse(
          403,
          '"metadata.owner" is not the owner of the token, nor an organisation it may publish to\u001b[2J',
        ),
      ),
    );
    const { code, out, err } = await data(['publish', CITIES, '--owner', 'ada']);
    expect({ code, out }).toEqual({ code: 1, out: '' });
    const line = err.split('\n').find((each) => each.startsWith('error:'));
    expect(line).toBe(
      `error: ${HUB} refused to take the upload: the owner it is published under is not the owner of the token, nor an organisation it may publish to\\x1b[2J`,
    );
    expect(err).not.toMatch(/rawstore|metadata\.owner|403/);
    expect(err).not.toContain('\u001b');
  });

  it('of an argument (400) is a usage error, exit 2, naming the option typed', async () => {
    server.use(
      signedIn(),
      http.put(`${HUB}/api/orgs/acme/members/grace`, () =>
        refuse(400, '"role" must be one of admin, maintainer, reader'),
      ),
      http.post(`${HUB}/api/publishers/ada/cities`, () =>
        refuse(400, 'the issuer must be one this hub trusts: https://gitlab.com'),
      ),
    );
    const role = await data(['org', 'add', 'acme', 'grace', '--role', 'reader']);
    expect({ code: role.code, out: role.out }).toEqual({ code: 2, out: '' });
    expect(role.err).toBe('error: org add: --role must be one of admin, maintainer, reader\n');
    const claim = await data([
      'publisher',
      'add',
      'ada/cities',
      '--issuer',
      'https://token.actions.githubusercontent.com',
      '--claim',
      'repository=ada/cities',
    ]);
    expect({ code: claim.code, out: claim.out }).toEqual({ code: 2, out: '' });
    expect(claim.err).toContain('the issuer must be one this hub trusts');
    const json = await data(['--json', 'org', 'add', 'acme', 'grace', '--role', 'reader']);
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'E_USAGE' } });
  });
});

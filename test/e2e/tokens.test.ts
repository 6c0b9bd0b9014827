/**
 * Named tokens end to end: the real `bin/data` against a real hub on loopback. A token made
 * with `data token create` is printed alone, once; it signs in with `login --with-token` and
 * as DATA_TOKEN, publishes its one dataset and no other, and is refused once revoked. The
 * token never reaches the hub's log, `token list`, or anything `data` prints but that once.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { browserLogin, EXAMPLES, runData, tempDir, withHub } from '../hub/helpers.js';

const CITIES = join(EXAMPLES, 'cities');

describe('data token against a real hub', () => {
  it('makes a token that publishes its one dataset, signs in, and is refused once revoked', async () => {
    const log: string[] = [];
    await withHub({ log: (line) => log.push(line), logFormat: 'json' }, async ({ url }) => {
      const session = await browserLogin(url, 'ada');
      const asAda = { DATA_API: url, DATA_TOKEN: session };
      const made = await runData(
        [
          'token',
          'create',
          'ci',
          '--scope',
          'publish',
          '--dataset',
          'ada/world-cities',
          '--expires',
          '10',
        ],
        { env: asAda },
      );
      expect(made.code).toBe(0);
      expect(made.out).toMatch(/^dt_[A-Za-z0-9_-]{43}\n$/);
      const token = made.out.trim();
      expect(made.err).toContain('"ci" (publish on ada/world-cities)');
      expect(made.err).not.toContain(token);

      const again = await runData(['token', 'create', 'ci', '--scope', 'read'], { env: asAda });
      expect(again.code).toBe(1);
      expect(again.err).toContain('already have a token named "ci"');
      // Days out of range are a usage error, exit 2, whether data (below 1) or the hub (past
      // its maximum) finds them, in the option's name.
      const none = await runData(['token', 'create', 'none', '--scope', 'read', '--expires', '0'], {
        env: asAda,
      });
      expect(none.code).toBe(2);
      expect(none.err).toContain('expected a whole number of days, 1 or more');
      const long = await runData(
        ['token', 'create', 'long', '--scope', 'read', '--expires', '366'],
        { env: asAda },
      );
      expect(long.code).toBe(2);
      expect(long.err).toContain('from 1 to 365 days on this hub (--expires was 366)');
      const scope = await runData(['token', 'create', 'x', '--scope', 'write'], { env: asAda });
      expect(scope.code).toBe(2);
      const other = await runData(
        ['token', 'create', 'x', '--scope', 'publish', '--dataset', 'bob/x'],
        {
          env: asAda,
        },
      );
      expect(other.code).toBe(1);
      expect(other.err).toContain('you may not publish to bob/x');

      // `data login --with-token` keeps it; `data whoami` then is ada.
      const home = tempDir();
      const login = await runBin(['login', '--with-token'], {
        cwd: home,
        env: { DATA_API: url, DATA_CONFIG_DIR: join(home, '.config'), DATA_KEYCHAIN: '0' },
        stdin: `${token}\n`,
      });
      rmSync(home, { recursive: true, force: true });
      expect(login.code).toBe(0);
      expect(login.out).toContain('as ada');

      // As DATA_TOKEN: publishes its dataset, not another name.
      const asToken = { DATA_API: url, DATA_TOKEN: token };
      const published = await runData(['publish', CITIES], { env: asToken });
      expect(published.err).not.toMatch(/^error/m);
      expect(published.code).toBe(0);
      const elsewhere = await runData(
        ['publish', join(CITIES, 'data', 'cities.csv'), '--name', 'towns'],
        {
          env: asToken,
        },
      );
      // A refusal, exit 1: neither a hub failure (3) nor a credential to renew (4).
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.err).toContain(
        'may publish only the datasets it was made for, and ada/towns is not one of them',
      );

      // A read token publishing: rawstore refuses its valid credential (403), exit 1, no
      // "data login" advice.
      const reader = await runData(['token', 'create', 'reader', '--scope', 'read'], {
        env: asAda,
      });
      expect(reader.code).toBe(0);
      const readOnly = await runData(['publish', CITIES], {
        env: { DATA_API: url, DATA_TOKEN: reader.out.trim() },
      });
      expect(readOnly.err).not.toContain('data login');
      expect(readOnly.code).toBe(1);
      expect((await runData(['token', 'revoke', 'reader'], { env: asAda })).code).toBe(0);

      const listed = await runData(['token', 'list', '--json'], { env: asAda });
      expect(listed.code).toBe(0);
      expect(listed.out).not.toContain(token);
      const records = JSON.parse(listed.out) as { name: string; last_used: string | null }[];
      expect(records.map((record) => record.name)).toEqual(['ci']);
      expect(records[0]?.last_used).toEqual(expect.any(String));

      const who = await runData(['whoami'], { env: asToken });
      expect(who.code).toBe(0);
      expect(who.out).toContain('token:    "ci" (publish on ada/world-cities)');
      expect(who.out).toMatch(/expires: {2}20\d\d-\d\d-\d\dT/);

      const revoked = await runData(['token', 'revoke', 'ci'], { env: asAda });
      expect(revoked).toMatchObject({ code: 0, out: 'revoked "ci"\n' });
      const whoami = await runData(['whoami'], { env: asToken });
      expect(whoami.code).toBe(4);
      expect(whoami.err).toContain('refused the token in DATA_TOKEN');
      // Every command that sends it says so, exit 4, where a read of the dataset said it was
      // missing (or private), exit 2; the hub answers 401 to it everywhere.
      for (const args of [
        ['get', 'ada/world-cities'],
        ['info', 'ada/world-cities'],
        ['history', 'ada/world-cities'],
        ['search', 'cities'],
        ['validate', `${url}/ada/world-cities/datapackage.json`],
        ['token', 'list'],
        ['publish', CITIES],
      ]) {
        const dead = await runData(args, { env: asToken });
        expect(dead.code, `${args.join(' ')}: ${dead.err}`).toBe(4);
        expect(dead.err, args.join(' ')).toContain(
          `${url} refused the token in DATA_TOKEN: it is unknown, revoked or expired`,
        );
      }

      expect(log.join('\n')).not.toContain(token);
    });
  });
});

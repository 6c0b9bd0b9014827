/**
 * Organisations end to end: the real `data` against a real `data serve` on loopback with
 * its development sign-in. `data org create|add|remove|members` and `data publish --owner`,
 * each role doing what it may, and the refusals said with their exit codes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { browserLogin, CITIES_DIR, runData } from '../hub/helpers.js';

let hub: ServeProcess;
beforeAll(async () => {
  const folder = mkdtempSync(join(tmpdir(), 'data-orgs-'));
  hub = await startServe(['--data-dir', join(folder, 'hub')]);
});
afterAll(async () => {
  await hub?.stop();
});

describe('data org and data publish --owner', () => {
  it('make an organisation, manage its members, and publish under it by role', async () => {
    const tokens = {
      ada: await browserLogin(hub.url, 'ada'),
      grace: await browserLogin(hub.url, 'grace'),
      rob: await browserLogin(hub.url, 'rob'),
      sam: await browserLogin(hub.url, 'sam'),
    };
    const as = (who: keyof typeof tokens, args: string[]) =>
      runData(args, { env: { DATA_API: hub.url, DATA_TOKEN: tokens[who], NO_COLOR: '1' } });

    const made = await as('ada', ['org', 'create', 'Acme']);
    expect(made.code, made.err).toBe(0);
    expect(made.out).toContain('made the organisation acme');
    // Taken in any case, by a user's name too: refused, exit 1; a malformed name is usage, 2.
    for (const taken of ['acme', 'grace']) {
      const again = await as('sam', ['org', 'create', taken]);
      expect(again.code, again.err).toBe(1);
      expect(again.err).toContain('is taken');
    }
    expect((await as('sam', ['org', 'create', 'no/slash'])).code).toBe(2);

    const added = await as('ada', ['org', 'add', 'acme', 'grace', '--role', 'maintainer']);
    expect(added.code, added.err).toBe(0);
    expect(added.out).toBe('grace is now maintainer of acme\n');
    expect((await as('ada', ['org', 'add', 'acme', 'rob', '--role', 'reader'])).code).toBe(0);
    // A user who never signed in: said so, exit 1 (not a crash).
    const ghost = await as('ada', ['org', 'add', 'acme', 'ghost', '--role', 'reader']);
    expect(ghost.code).toBe(1);
    expect(ghost.err).toContain('there is no user "ghost" on this hub');
    // Only an admin adds members.
    expect((await as('grace', ['org', 'add', 'acme', 'sam', '--role', 'reader'])).code).toBe(1);

    const listed = await as('rob', ['org', 'members', 'acme', '--json']);
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out)).toEqual([
      { user: 'ada', role: 'admin' },
      { user: 'grace', role: 'maintainer' },
      { user: 'rob', role: 'reader' },
    ]);
    // In a pipe, as the other lists: tab-separated lines, no heading.
    const table = await as('rob', ['org', 'members', 'acme']);
    expect(table.out).toBe('ada\tadmin\ngrace\tmaintainer\nrob\treader\n');
    const stranger = await as('sam', ['org', 'members', 'acme']);
    expect(stranger.code).toBe(1);
    expect(stranger.out).toBe('');

    // A maintainer publishes under the organisation; a reader and a stranger may not.
    const published = await as('grace', [
      'publish',
      CITIES_DIR,
      '--owner',
      'acme',
      '--findability',
      'private',
      '--json',
    ]);
    expect(published.code, published.err).toBe(0);
    expect(JSON.parse(published.out)).toMatchObject({
      owner: 'acme',
      dataset: 'world-cities',
      state: 'SUCCEEDED',
      url: `${hub.url}/acme/world-cities`,
    });
    const reader = await as('rob', ['publish', CITIES_DIR, '--owner', 'acme']);
    expect(reader.code).toBe(1);
    expect(reader.err).toContain('you are a reader of acme');
    const outsider = await as('sam', ['publish', CITIES_DIR, '--owner', 'acme']);
    expect(outsider.code).toBe(1);
    expect(outsider.err).toContain('no organisation "acme" that you are a member of');

    // The private dataset: members read it, a stranger finds nothing there.
    const read = (who: keyof typeof tokens) => as(who, ['info', 'acme/world-cities', '--json']);
    expect((await read('rob')).code).toBe(0);
    const hidden = await read('sam');
    expect(hidden.code).toBe(2);

    // Deleting: a reader is refused with the reason (exit 1), a maintainer deletes it.
    const readerDeletes = await as('rob', ['delete', 'acme/world-cities', '--yes']);
    expect(readerDeletes.code).toBe(1);
    expect(readerDeletes.err).toContain('may delete it');

    // The last admin stays; a member is removed.
    const last = await as('ada', ['org', 'remove', 'acme', 'ada']);
    expect(last.code).toBe(1);
    expect(last.err).toContain(
      'you are the last admin of acme: make another member admin first, or delete acme (data org delete acme) once it has no datasets',
    );
    // Not while it has a dataset: said with how to delete them, exit 1.
    const early = await as('ada', ['org', 'delete', 'acme']);
    expect(early.code).toBe(1);
    expect(early.err).toContain('acme has 1 dataset: delete each first (data delete acme/DATASET');
    const removed = await as('ada', ['org', 'remove', 'acme', 'rob']);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.out).toBe('removed rob from acme\n');
    expect((await read('rob')).code).toBe(2);
    const deleted = await as('grace', ['delete', 'acme/world-cities', '--yes']);
    expect(deleted.code, deleted.err).toBe(0);
    expect((await read('grace')).code).toBe(2);

    // Then an admin deletes it (a maintainer may not), and its name is free.
    expect((await as('grace', ['org', 'delete', 'acme'])).code).toBe(1);
    const gone = await as('ada', ['org', 'delete', 'acme']);
    expect(gone.code, gone.err).toBe(0);
    expect(gone.out).toBe('deleted the organisation acme\n');
    expect((await as('ada', ['org', 'members', 'acme'])).code).toBe(1);
    const again = await as('sam', ['org', 'create', 'acme', '--json']);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toEqual({
      name: 'acme',
      members: [{ user: 'sam', role: 'admin' }],
    });
  });
});

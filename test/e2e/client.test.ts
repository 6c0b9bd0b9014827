import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../hub/helpers.js';
import { submitSignInForm } from '../hub/protocol.js';
import { runBin } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');

interface Run {
  code: number | null;
  out: string;
  err: string;
}

let hub: ChildProcessWithoutNullStreams;
let api = '';
const home = mkdtempSync(join(tmpdir(), 'data-client-'));
const env = (): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  DATA_API: api,
  DATA_CONFIG_DIR: join(home, 'config'),
  DATA_KEYCHAIN: '0',
  NO_COLOR: '1',
  CI: 'true',
  DATA_TOKEN: '',
});

function data(
  args: string[],
  options: {
    cwd?: string;
    onErr?: (text: string, child: ChildProcessWithoutNullStreams) => void;
    input?: string;
    env?: Record<string, string>;
  } = {},
): Promise<Run> {
  return runBin(args, {
    cwd: options.cwd ?? ROOT,
    env: { ...env(), ...options.env },
    stdin: options.input ?? '',
    ...(options.onErr ? { onErr: options.onErr } : {}),
  });
}

/** Plays the browser's part: opens the printed address, fills the hub's form, follows the redirect. */
async function completeSignIn(url: string, username: string): Promise<void> {
  const back = await submitSignInForm(url, username, `${username}@example.org`);
  // The token never travels in the address: the client gets a one-time code.
  expect(new URL(back).searchParams.get('code')).toBeTruthy();
  expect(back).not.toContain('jwt=');
  const page = await (await fetch(back)).text();
  expect(page).toContain('You may close this page');
}

function storedToken(): string {
  const file = join(home, 'config', 'credentials.json');
  return (
    Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, { token: string }>)[0]
      ?.token ?? ''
  );
}

beforeAll(async () => {
  hub = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', join(home, 'hub')]);
  api = await new Promise<string>((resolve) => {
    let out = '';
    hub.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (found) resolve(found);
    });
  });
});

afterAll(() => {
  hub.kill('SIGINT');
  rmSync(home, { recursive: true, force: true });
});

describe('the publishing client against data serve', () => {
  it('refuses to publish before login, naming both ways to log in', async () => {
    const run = await data(['publish', join(EXAMPLES, 'cities')]);
    expect(run.code).toBe(4);
    expect(run.err).toContain('data login');
    expect(run.err).toContain('DATA_TOKEN');
  });

  it('logs in through the browser flow with --no-browser and stores the token in a 0600 file', async () => {
    let signing: Promise<void> | undefined;
    const run = await data(['login', '--no-browser'], {
      onErr: (text) => {
        const url = /Sign in at:\n\s+(\S+)/.exec(text)?.[1];
        if (url && !signing) signing = completeSignIn(url, 'ada');
      },
    });
    await signing;
    expect(run.code).toBe(0);
    expect(run.out).toBe(`Logged in to ${api} as ada\n`);
    const file = join(home, 'config', 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(run.err).toContain(file);
    const token =
      Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, { token: string }>)[0]
        ?.token ?? '';
    expect(run.out + run.err).not.toContain(token);
  });

  it('says where it cannot write the token when the configuration folder is unusable', async () => {
    const run = await data(['login', '--with-token'], {
      input: storedToken(),
      env: { DATA_CONFIG_DIR: '/proc/data-config-nope' },
    });
    expect(run.code).toBe(2);
    expect(run.err).toContain('cannot use /proc/data-config-nope: no such file or folder');
  });

  it('stops waiting for the browser at Ctrl-C, not at the time-out', async () => {
    let interrupted = false;
    const run = await data(['login', '--no-browser', '--timeout', '60'], {
      onErr: (text, child) => {
        if (interrupted || !text.includes('Sign in at:')) return;
        interrupted = true;
        child.kill('SIGINT');
      },
    });
    expect(run.code).toBe(130);
    expect(run.err).toContain('interrupted');
    expect(run.err).not.toContain('no sign-in arrived');
  });

  it('says who is logged in, where the token is and when it expires', async () => {
    const run = await data(['--json', 'whoami']);
    expect(run.code).toBe(0);
    const who = JSON.parse(run.out) as {
      username: string;
      hub: string;
      stored: string;
      expires: string;
    };
    expect(who).toMatchObject({
      username: 'ada',
      hub: api,
      stored: join(home, 'config', 'credentials.json'),
    });
    expect(Date.parse(who.expires)).toBeGreaterThan(Date.now() + 13 * 86_400_000);
  });

  it.each(['cities', 'sales-v2'])(
    'publishes the %s example and ends with its URL',
    async (example) => {
      const run = await data(['publish', join(EXAMPLES, example)]);
      expect(run.err).toContain('succeeded');
      expect(run.code).toBe(0);
      expect(run.out).toMatch(new RegExp(`^✔ published ${api}/ada/[a-z-]+ \\(revision 1\\)\\n$`));
    },
  );

  it('shows the report and exits 1 on an invalid package, uploading nothing', async () => {
    const run = await data(['push', join(EXAMPLES, 'invalid-data')]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('nothing was uploaded');
    expect(run.out).toContain('type-error');
  });

  it('reports a second publish with --json: nothing to upload again, and no new revision', async () => {
    const run = await data(['--json', 'publish', join(EXAMPLES, 'cities')]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({
      dataset: 'world-cities',
      owner: 'ada',
      revision: 1,
      state: 'SUCCEEDED',
      unchanged: true,
      uploaded: [],
      url: `${api}/ada/world-cities`,
    });
  });

  it('gets a dataset back byte-identical into a folder that validates', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'data-get-'));
    const run = await data(['get', 'ada/world-cities'], { cwd });
    expect(run.code).toBe(0);
    const folder = join(cwd, 'ada', 'world-cities');
    for (const path of ['data/cities.csv', 'data/countries.csv']) {
      expect(
        readFileSync(join(folder, path)).equals(readFileSync(join(EXAMPLES, 'cities', path))),
      ).toBe(true);
    }
    expect((await data(['validate', folder])).code).toBe(0);
    expect((await data(['get', 'ada/world-cities'], { cwd })).code).toBe(2);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('reads owner/dataset from the folder data get made only with a note naming both', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'data-rule-'));
    expect((await data(['get', 'ada/world-cities'], { cwd })).code).toBe(0);
    const note = `note: reading the folder ./ada/world-cities; the hub's dataset ada/world-cities is ${api}/ada/world-cities`;
    for (const args of [
      ['info', 'ada/world-cities'],
      ['cat', 'ada/world-cities', 'countries'],
      ['diff', 'ada/world-cities', `${api}/ada/world-cities`],
    ]) {
      const run = await data(args, { cwd });
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.err, args.join(' ')).toContain(note);
    }
    // Written as a path, the folder is meant: no note.
    const path = await data(['info', './ada/world-cities'], { cwd });
    expect(path.code).toBe(0);
    expect(path.err).toBe('');
    // A folder with no descriptor (a get that broke off) is no package: the hub's is read.
    rmSync(join(cwd, 'ada/world-cities/datapackage.json'));
    for (const args of [
      ['info', 'ada/world-cities'],
      ['cat', 'ada/world-cities', 'countries'],
    ]) {
      const run = await data(args, { cwd });
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.err, args.join(' ')).toBe('');
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  it('gets single files by index and by file name', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'data-get-'));
    expect((await data(['get', 'ada/world-cities/r/1.csv'], { cwd })).code).toBe(0);
    expect((await data(['get', 'ada/world-cities/r/countries.csv'], { cwd })).code).toBe(0);
    expect(
      readFileSync(join(cwd, '1.csv')).equals(
        readFileSync(join(EXAMPLES, 'cities/data/cities.csv')),
      ),
    ).toBe(true);
    expect(
      readFileSync(join(cwd, 'countries.csv')).equals(
        readFileSync(join(EXAMPLES, 'cities/data/countries.csv')),
      ),
    ).toBe(true);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('replaces a local file that differs from the one it gets only with --force', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'data-get-'));
    const local = join(cwd, 'countries.csv');
    const hubs = readFileSync(join(EXAMPLES, 'cities/data/countries.csv'));
    expect((await data(['get', 'ada/world-cities/r/countries.csv'], { cwd })).code).toBe(0);
    const again = await data(['get', 'ada/world-cities/r/countries.csv'], { cwd });
    expect(again.code).toBe(0);
    expect(again.err).toContain('countries.csv is up to date');
    writeFileSync(local, 'my own work\n');
    const refused = await data(['get', 'ada/world-cities/r/countries.csv'], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('--force');
    expect(readFileSync(local, 'utf8')).toBe('my own work\n');
    expect(readdirSync(cwd)).toEqual(['countries.csv']);
    const forced = await data(['get', 'ada/world-cities/r/countries.csv', '--force'], { cwd });
    expect(forced.code).toBe(0);
    expect(readFileSync(local).equals(hubs)).toBe(true);
    expect(readdirSync(cwd)).toEqual(['countries.csv']);
    // A FIFO of that name is refused at once, not read to compare (which would never end).
    spawnSync('mkfifo', [join(cwd, 'cities.csv')]);
    const fifo = await data(['get', 'ada/world-cities/r/cities.csv'], { cwd });
    expect(fifo.code).toBe(2);
    expect(fifo.err).toContain('is no file');
    rmSync(cwd, { recursive: true, force: true });
  });

  it('publishes what validate takes: a descriptor path, and one data file as a package', async () => {
    const byDescriptor = await data(['publish', join(EXAMPLES, 'cities', 'datapackage.json')]);
    expect(byDescriptor.code).toBe(0);
    const folder = mkdtempSync(join(tmpdir(), 'data-single-'));
    writeFileSync(
      join(folder, 'Prices 2026.csv'),
      'id,price,day\n1,9.5,2026-01-02\n2,10,2026-01-03\n',
    );
    const named = await data(['--json', 'publish', join(folder, 'Prices 2026.csv')]);
    expect(named.code).toBe(0);
    expect(JSON.parse(named.out)).toMatchObject({ dataset: 'prices-2026', state: 'SUCCEEDED' });
    const renamed = await data(['publish', join(folder, 'Prices 2026.csv'), '--name', 'prices']);
    expect(renamed.code).toBe(0);
    const descriptor = (await (await fetch(`${api}/ada/prices/datapackage.json`)).json()) as {
      resources: { path: string; schema: { fields: { name: string; type: string }[] } }[];
    };
    expect(descriptor.resources[0]?.path).toBe('Prices 2026.csv');
    expect(descriptor.resources[0]?.schema.fields.map((field) => field.type)).toEqual([
      'integer',
      'number',
      'date',
    ]);
    const wrong = await data(['publish', join(EXAMPLES, 'cities'), '--name', 'x']);
    expect(wrong.code).toBe(2);
    rmSync(folder, { recursive: true, force: true });
  });

  it('makes no revision when nothing changed, unless forced', async () => {
    const pkg = mkdtempSync(join(tmpdir(), 'data-again-'));
    writeFileSync(join(pkg, 'a.csv'), 'id\n1\n');
    writeFileSync(
      join(pkg, 'datapackage.json'),
      JSON.stringify({ name: 'again', resources: [{ name: 'a', path: 'a.csv' }] }),
    );
    const first = await data(['--json', 'publish', pkg]);
    expect(JSON.parse(first.out)).toMatchObject({
      revision: 1,
      state: 'SUCCEEDED',
      unchanged: false,
    });
    const again = await data(['publish', pkg]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('nothing changed since revision 1');
    const forced = await data(['--json', 'publish', pkg, '--force']);
    expect(JSON.parse(forced.out)).toMatchObject({
      revision: 2,
      state: 'SUCCEEDED',
      unchanged: false,
    });
    writeFileSync(join(pkg, 'a.csv'), 'id\n2\n');
    const changed = await data(['--json', 'publish', pkg]);
    expect(JSON.parse(changed.out)).toMatchObject({ revision: 3, unchanged: false });
    const unlisted = await data(['--json', 'publish', pkg, '--findability', 'unlisted']);
    expect(JSON.parse(unlisted.out)).toMatchObject({ revision: 4, unchanged: false });
    rmSync(pkg, { recursive: true, force: true });
  });

  it('gets an earlier revision with --revision and @N, and some files with --include and --exclude', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'data-get-rev-'));
    expect(
      (await data(['get', 'ada/again', '--revision', '1', '--out', 'one'], { cwd })).code,
    ).toBe(0);
    expect(readFileSync(join(cwd, 'one/a.csv'), 'utf8')).toBe('id\n1\n');
    expect((await data(['get', 'ada/again@1', '--out', 'at'], { cwd })).code).toBe(0);
    expect(readFileSync(join(cwd, 'at/a.csv'), 'utf8')).toBe('id\n1\n');
    expect((await data(['get', 'ada/again', '--out', 'now'], { cwd })).code).toBe(0);
    expect(readFileSync(join(cwd, 'now/a.csv'), 'utf8')).toBe('id\n2\n');
    const some = await data(
      [
        'get',
        'ada/world-cities',
        '--out',
        'some',
        '--include',
        'data/*.csv',
        '--exclude',
        '**/countries*',
      ],
      { cwd },
    );
    expect(some.code).toBe(0);
    expect(readdirSync(join(cwd, 'some/data'))).toEqual(['cities.csv']);
    const saved = JSON.parse(readFileSync(join(cwd, 'some/datapackage.json'), 'utf8')) as {
      resources: { name: string }[];
    };
    expect(saved.resources.map((resource) => resource.name)).toEqual(['cities']);
    rmSync(cwd, { recursive: true, force: true });
  });

  it('publishes a private dataset that only its owner can get', async () => {
    const pkg = mkdtempSync(join(tmpdir(), 'data-private-'));
    cpSync(join(EXAMPLES, 'cities'), pkg, { recursive: true });
    const descriptor = JSON.parse(readFileSync(join(pkg, 'datapackage.json'), 'utf8')) as {
      name: string;
      resources: object[];
    };
    const notes = `note\nseen only by ada ${String(Date.now())}\n`;
    writeFileSync(join(pkg, 'data/notes.csv'), notes);
    descriptor.name = 'private-cities';
    descriptor.resources.push({ name: 'notes', path: 'data/notes.csv' });
    writeFileSync(join(pkg, 'datapackage.json'), JSON.stringify(descriptor));
    const published = await data(['publish', pkg, '--findability', 'private']);
    expect(published.code).toBe(0);
    expect(published.out).toContain('published');
    const cwd = mkdtempSync(join(tmpdir(), 'data-get-'));
    expect((await data(['get', 'ada/private-cities'], { cwd })).code).toBe(0);
    expect(readFileSync(join(cwd, 'ada/private-cities/data/notes.csv'), 'utf8')).toBe(notes);
    const stranger = await data(['get', 'ada/private-cities', '--out', join(cwd, 'x')], {
      env: { DATA_CONFIG_DIR: join(home, 'nobody') },
    });
    expect(stranger.code).toBe(2);
    expect(stranger.err).toContain('there is no dataset ada/private-cities (or it is private)');
    rmSync(pkg, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints a table of a hub dataset, a /r/ file, and standard input', async () => {
    const hub = await data(['cat', 'ada/world-cities', 'countries', '--format', 'ndjson']);
    expect(hub.code).toBe(0);
    expect(hub.out.split('\n')[0]).toBe('{"code":"FR","name":"France","continent":"Europe"}');
    const file = await data(['cat', `${api}/ada/world-cities/r/countries.csv`]);
    expect(file.out).toBe(readFileSync(join(EXAMPLES, 'cities/data/countries.csv'), 'utf8'));
    const piped = await data(['cat', '-', '--format', 'markdown'], { input: 'a,b\n1,2\n' });
    expect(piped.out).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |\n');
    const missing = await data(['cat', 'ada/nope']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('there is no dataset ada/nope');
  });

  it('searches, lists your datasets with the private ones, and shows the history', async () => {
    const found = await data(['--json', 'search', 'cities']);
    const names = (
      JSON.parse(found.out) as { datasets: { owner: string; name: string }[] }
    ).datasets.map((dataset) => `${dataset.owner}/${dataset.name}`);
    expect(names).toContain('ada/world-cities');
    expect(names).toContain('ada/private-cities');
    const anonymous = await data(['search', 'cities'], {
      env: { DATA_CONFIG_DIR: join(home, 'nobody') },
    });
    expect(anonymous.out).toContain('ada/world-cities');
    expect(anonymous.out).not.toContain('private-cities');
    const mine = await data(['list']);
    expect(mine.out).toMatch(/^ada\/private-cities\t.*\tprivate$/m);
    const theirs = await data(['list', 'ada'], { env: { DATA_CONFIG_DIR: join(home, 'nobody') } });
    expect(theirs.out).not.toContain('private-cities');
    const history = await data(['--json', 'history', 'ada/again']);
    const revisions = (
      JSON.parse(history.out) as { revisions: { revision: number; state: string }[] }
    ).revisions;
    expect(revisions.map((entry) => entry.revision)).toEqual([4, 3, 2, 1]);
    expect(revisions.every((entry) => entry.state === 'SUCCEEDED')).toBe(true);
    const none = await data(['history', 'ada/nope']);
    expect(none.code).toBe(2);
  });

  it('deletes a dataset only with --yes where no one can be asked, and only its owner', async () => {
    const refused = await data(['delete', 'ada/again']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('needs --yes');
    const deleted = await data(['delete', 'ada/again', '--yes']);
    expect(deleted.code).toBe(0);
    expect(deleted.out).toBe('deleted ada/again\n');
    expect((await fetch(`${api}/ada/again/datapackage.json`)).status).toBe(404);
    expect((await data(['history', 'ada/again'])).code).toBe(2);
    expect((await data(['delete', 'ada/again', '--yes'])).code).toBe(2);
  });

  it('shows a dataset with info', async () => {
    const run = await data(['--json', 'info', 'ada/world-cities']);
    expect(run.code).toBe(0);
    const info = JSON.parse(run.out) as {
      title: string;
      resources: { name: string; bytes: number; preview: string[][] }[];
    };
    expect(info.title).toBe('World cities and their countries');
    expect(info.resources[1]).toMatchObject({ name: 'cities', bytes: 542 });
    expect(info.resources[1]?.preview[1]?.[1]).toBe('Paris');
  });

  it('logs out, revoking the token at the hub, after which whoami exits 4', async () => {
    const token = storedToken();
    const authenticated = async () =>
      (
        (await (await fetch(`${api}/auth/check`, { headers: { 'Auth-Token': token } })).json()) as {
          authenticated: boolean;
        }
      ).authenticated;
    expect(await authenticated()).toBe(true);
    expect((await data(['logout'])).out).toBe(`Logged out of ${api}\n`);
    expect(await authenticated()).toBe(false);
    expect((await data(['whoami'])).code).toBe(4);
    expect((await data(['whoami'], { env: { DATA_TOKEN: token } })).code).toBe(4);
  });
});

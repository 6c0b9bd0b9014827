/**
 * `data` in a real pseudo-terminal (tmux): keys are typed as a person types them, and the
 * screen is read back. Ctrl-C is the byte the terminal sends, not a signal from a test.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../hub/helpers.js';
import { backtrackingPackage } from '../helpers/fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
const NODE = process.execPath;
/**
 * Each terminal gets a tmux server of its own: a server just told to exit may still hold a
 * socket name, and a new session on it then fails ("server exited unexpectedly").
 */
let terminals = 0;
let socket = '';
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0 || Boolean(process.env.CI);

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tmux ${args[0] ?? ''}: ${result.stderr}`);
  return result.stdout;
}

const screen = (): string => tmux('capture-pane', '-p', '-t', 'main');

/**
 * Waits for text on the screen. The deadline only turns a missing event into a failure that
 * shows the screen, well before the test's own time-out: it is no measure of speed.
 */
async function waitFor(text: RegExp): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    if (text.test(screen())) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`"${String(text)}" did not appear; the screen:\n${screen()}`);
}

/**
 * The terminal's mode as the shell prints it after the exit code: `icanon` when data left the
 * terminal as it found it. Waited for, since stty prints a moment after the exit code.
 */
async function terminalMode(): Promise<string> {
  await waitFor(/^-?icanon$/m);
  return /^-?icanon$/m.exec(screen())?.[0] ?? '';
}

/** Ctrl-C typed into the terminal; the command must end with exit 130. */
async function interruptedByCtrlC(): Promise<void> {
  tmux('send-keys', '-t', 'main', 'C-c');
  await waitFor(/EXIT=\d+/);
  expect(screen()).toMatch(/EXIT=130/);
}

/** Runs a data command in a fresh terminal; afterwards the shell prints its exit code and the terminal mode. */
function startInTerminal(args: string, env: Record<string, string>): void {
  const assignments = Object.entries({ NO_COLOR: '1', DATA_KEYCHAIN: '0', ...env })
    .map(([name, value]) => `${name}='${value}'`)
    .join(' ');
  const command = `cd '${ROOT}' && env -u CI ${assignments} '${NODE}' bin/data ${args}; echo "EXIT=$?"; stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'; sleep 60`;
  socket = `data-test-${String(process.pid)}-${String(++terminals)}`;
  tmux('new-session', '-d', '-s', 'main', '-x', '150', '-y', '40', command);
}

/** A server that sends a CSV a line at a time, never finishing: reading it takes forever. */
function slowServer(): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method ?? ''} ${request.url ?? ''}`);
    const url = request.url ?? '';
    if (url === '/slow.csv' || url === '/o/d/r/slow.csv' || url === '/o/slow/slow.csv') {
      response.writeHead(200, { 'Content-Type': 'text/csv' });
      response.write('id,name\n');
      let row = 0;
      const timer = setInterval(() => response.write(`${String(row++)},x\n`), 100);
      response.on('close', () => clearInterval(timer));
      return;
    }
    const json = (body: unknown) =>
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    // A dataset whose one table never ends.
    if (url === '/o/slow/datapackage.json')
      return json({ name: 'slow', resources: [{ name: 'slow', path: 'slow.csv' }] });
    if (url.startsWith('/auth/check'))
      return json({ authenticated: true, profile: { id: 'u1', username: 'ada' } });
    if (url.startsWith('/auth/resolve')) return json({ userid: 'u1' });
    if (request.method === 'DELETE') return json({ deleted: url });
    if (url.startsWith('/auth/authorize'))
      return json({ userid: 'u1', permissions: {}, service: 'x', token: 'service' });
    if (url === '/rawstore/authorize') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const paths = Object.keys((JSON.parse(body) as { filedata: object }).filedata);
        json({
          filedata: Object.fromEntries(
            paths.map((path) => [
              path,
              {
                upload_url: `http://${request.headers.host ?? ''}/upload`,
                upload_query: { key: 'k' },
                exists: false,
              },
            ]),
          ),
        });
      });
      return;
    }
    // Uploads and anything else: taken, never answered.
    request.resume();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
        requests,
      }),
    ),
  );
}

describe.skipIf(!HAS_TMUX)('in a terminal', () => {
  let slow: Awaited<ReturnType<typeof slowServer>>;
  const home = mkdtempSync(join(tmpdir(), 'data-terminal-'));
  beforeAll(async () => {
    slow = await slowServer();
  });
  afterAll(() => {
    slow.server.closeAllConnections();
    slow.server.close();
    rmSync(home, { recursive: true, force: true });
  });

  const kill = () => spawnSync('tmux', ['-L', socket, 'kill-server']);
  /** Starts `data <args>` in a new terminal whose settings are in this run's own folder. */
  const inTerminal = (args: string, env: Record<string, string> = {}) =>
    startInTerminal(args, { DATA_CONFIG_DIR: join(home, 'config'), ...env });
  /** The slow server as the hub, with a token for it. */
  const signedInToSlowServer = () => ({ DATA_API: slow.url, DATA_TOKEN: 'token' });
  /** Runs `test` in a new folder; at its end, passed or failed, stops the terminal and removes the folder. */
  async function inFolder(prefix: string, test: (dir: string) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    try {
      await test(dir);
    } finally {
      kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it.each([
    ['a table that never ends', () => `${slow.url}/slow.csv`, /validating/],
    [
      'a pattern on a million cells',
      () => `${backtrackingPackage(1_000_000)} --limit-errors 0`,
      /validating t/,
    ],
  ])(
    'stops validating %s at Ctrl-C, exit 130, the terminal as it was',
    async (_what, source, busy) => {
      try {
        inTerminal(`validate ${source()}`);
        await waitFor(busy);
        await interruptedByCtrlC();
        expect(await terminalMode()).toBe('icanon');
      } finally {
        kill();
      }
    },
  );

  it.each([
    ['y', 0, 'deleted ada/old'],
    ['n', 1, 'nothing deleted'],
  ])('asks before deleting; typing %s answers', async (key, code, shown) => {
    const deletes = () => slow.requests.filter((line) => line.startsWith('DELETE')).length;
    const before = deletes();
    try {
      inTerminal('delete ada/old', signedInToSlowServer());
      await waitFor(/Delete ada\/old and all its revisions/);
      tmux('send-keys', '-t', 'main', key, 'Enter');
      await waitFor(/EXIT=\d+/);
      expect(screen()).toContain(`EXIT=${String(code)}`);
      expect(screen()).toContain(shown);
      expect(deletes() - before).toBe(code === 0 ? 1 : 0);
      expect(await terminalMode()).toBe('icanon');
    } finally {
      kill();
    }
  });

  it('draws the delete question as the terminal shows it, never its escape codes as text', async () => {
    try {
      inTerminal('delete ada/old', signedInToSlowServer());
      await waitFor(/Delete ada\/old and all its revisions/);
      expect(screen()).not.toMatch(/\\x1b|\\u001b|\[\d+m|\[\?25/);
      tmux('send-keys', '-t', 'main', 'n', 'Enter');
      await waitFor(/EXIT=\d+/);
      expect(screen()).not.toMatch(/\\x1b|\\u001b|\[\d+m|\[\?25/);
    } finally {
      kill();
    }
  });

  it('stops at Ctrl-C at the delete question: exit 130, the question cleared, nothing deleted', async () => {
    const deletes = () => slow.requests.filter((line) => line.startsWith('DELETE')).length;
    const before = deletes();
    try {
      inTerminal('delete ada/old', signedInToSlowServer());
      await waitFor(/Delete ada\/old and all its revisions/);
      await interruptedByCtrlC();
      expect(screen()).not.toContain('Delete ada/old');
      expect(screen()).not.toMatch(/force closed|bug in data/);
      expect(deletes()).toBe(before);
      expect(await terminalMode()).toBe('icanon');
    } finally {
      kill();
    }
  });

  it('clears the hidden token question of data login --with-token at Ctrl-C, exit 130, nothing kept', async () => {
    await inFolder('data-login-', async (dir) => {
      const config = join(dir, 'config');
      inTerminal('login --with-token', { DATA_API: slow.url, DATA_CONFIG_DIR: config });
      await waitFor(/Paste a token for/);
      tmux('send-keys', '-t', 'main', 'dt_abc');
      await interruptedByCtrlC();
      expect(screen()).not.toMatch(/Paste a token|input is masked|toggle visibility/);
      expect(screen()).not.toMatch(/force closed|bug in data/);
      expect(existsSync(join(config, 'credentials.json'))).toBe(false);
      expect(await terminalMode()).toBe('icanon');
    });
  });

  it('refuses data login --with-token 2>file on a terminal, exit 2, rather than wait unseen', async () => {
    await inFolder('data-login-', async (dir) => {
      inTerminal(`login --with-token 2>'${join(dir, 'err')}'`, { DATA_API: slow.url });
      await waitFor(/EXIT=\d+/);
      expect(screen()).toContain('EXIT=2');
      expect(readFileSync(join(dir, 'err'), 'utf8')).toContain(
        'hint: pipe the token in (echo "$TOKEN" | data login --with-token)',
      );
    });
  });

  it('asks data init --interactive for the name, title and licence, and about each resource', async () => {
    await inFolder('data-init-', async (dir) => {
      writeFileSync(join(dir, 'a.csv'), 'id,v\n1,x\n');
      writeFileSync(join(dir, 'b.csv'), 'id,w\n1,y\n');
      inTerminal(`init '${dir}' --interactive`);
      await waitFor(/Name/);
      tmux('send-keys', '-t', 'main', 'C-u', 'my-data', 'Enter');
      await waitFor(/Title/);
      tmux('send-keys', '-t', 'main', 'Prices of things', 'Enter');
      await waitFor(/Licence/);
      tmux('send-keys', '-t', 'main', 'Enter');
      await waitFor(/Describe a\.csv/);
      tmux('send-keys', '-t', 'main', 'y', 'Enter');
      await waitFor(/Describe b\.csv/);
      tmux('send-keys', '-t', 'main', 'n', 'Enter');
      await waitFor(/EXIT=\d+/);
      expect(screen()).toContain('EXIT=0');
      const written = JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8')) as {
        name: string;
        title: string;
        licenses: { name: string }[];
        resources: { name: string }[];
      };
      expect(written).toMatchObject({
        name: 'my-data',
        title: 'Prices of things',
        licenses: [{ name: 'CC-BY-4.0' }],
      });
      expect(written.resources.map((resource) => resource.name)).toEqual(['a']);
    });
  });

  it('stops data init --interactive at Ctrl-C at a question: exit 130, nothing written', async () => {
    await inFolder('data-init-', async (dir) => {
      writeFileSync(join(dir, 'a.csv'), 'id,v\n1,x\n');
      inTerminal(`init '${dir}' --interactive`);
      await waitFor(/Name/);
      expect(screen()).not.toMatch(/\\x1b|\\u001b|\[\d+m|\[\?25/);
      await interruptedByCtrlC();
      expect(screen()).not.toContain('Name (lower case');
      expect(screen()).not.toMatch(/force closed|bug in data/);
      expect(existsSync(join(dir, 'datapackage.json'))).toBe(false);
      expect(await terminalMode()).toBe('icanon');
    });
  });

  it('shows how long a get has waited on a silent hub, and clears it for good at Ctrl-C', async () => {
    await inFolder('data-get-', async (dir) => {
      // The hub takes the request and says nothing, as while it makes a Parquet copy.
      inTerminal(`get ${slow.url}/o/d/r/t.parquet --out '${dir}'`);
      await waitFor(/fetching .*t\.parquet · [1-9]\d* s/);
      await interruptedByCtrlC();
      expect(screen()).toMatch(/^error: interrupted$/m);
      expect(screen()).not.toContain('fetching');
      expect(await terminalMode()).toBe('icanon');
    });
  });

  it('leaves the local file as it was when a get --force of it stops at Ctrl-C', async () => {
    await inFolder('data-get-', async (dir) => {
      writeFileSync(join(dir, 'slow.csv'), 'my own work\n');
      inTerminal(`get ${slow.url}/o/d/r/slow.csv --force --out '${dir}'`);
      await waitFor(/downloading [1-9]/);
      await interruptedByCtrlC();
      expect(readFileSync(join(dir, 'slow.csv'), 'utf8')).toBe('my own work\n');
    });
  });

  it('shows the rows a diff has read, and clears the line for good at Ctrl-C', async () => {
    await inFolder('data-diff-', async (dir) => {
      writeFileSync(join(dir, 'slow.csv'), 'id,name\n1,x\n2,y\n3,z\n');
      writeFileSync(
        join(dir, 'datapackage.json'),
        JSON.stringify({
          name: 'slow',
          resources: [
            {
              name: 'slow',
              path: 'slow.csv',
              schema: {
                fields: [
                  { name: 'id', type: 'integer' },
                  { name: 'name', type: 'string' },
                ],
                primaryKey: ['id'],
              },
            },
          ],
        }),
      );
      // Side b is a hub's table that never ends: the diff reads until Ctrl-C.
      inTerminal(`diff '${dir}' ${slow.url}/o/slow`);
      await waitFor(/comparing .* slow \(1\/1\) · 3 rows read/);
      await interruptedByCtrlC();
      expect(screen()).toMatch(/^error: interrupted$/m);
      expect(screen()).not.toContain('comparing');
      expect(await terminalMode()).toBe('icanon');
    });
  });

  it('stops publishing at Ctrl-C during the uploads, and publishes nothing', async () => {
    try {
      inTerminal(`publish ${join(EXAMPLES, 'cities')} --no-wait`, signedInToSlowServer());
      await waitFor(/upload|MB|kB|B of/);
      await interruptedByCtrlC();
      // The progress line is cleared at Ctrl-C and never drawn again after "interrupted".
      const after = screen().split('interrupted')[1] ?? '';
      expect(after.split('EXIT=')[0]).not.toMatch(/upload|publishing|B of|B\/s/);
      expect(await terminalMode()).toBe('icanon');
      expect(slow.requests.some((line) => line.includes('/source/upload'))).toBe(false);
    } finally {
      kill();
    }
  });
});

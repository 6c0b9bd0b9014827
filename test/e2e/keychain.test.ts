import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserLogin } from '../hub/protocol.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const TOOLS = ['dbus-daemon', 'gnome-keyring-daemon', 'secret-tool'];
const installed = TOOLS.every((tool) => spawnSync('which', [tool]).status === 0);

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/**
 * A private session bus with gnome-keyring's Secret Service on it, unlocked, in a home of
 * its own: the keychain path of the credentials, against the real thing.
 */
describe.skipIf(!installed && !process.env.CI)('credentials in a real Secret Service', () => {
  const home = mkdtempSync(join(tmpdir(), 'data-keychain-'));
  const children: ChildProcess[] = [];
  let bus = '';
  let busPid = 0;
  let api = '';
  let token = '';

  const env = (overrides: Record<string, string> = {}): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: home,
    DBUS_SESSION_BUS_ADDRESS: bus,
    DATA_API: api,
    DATA_CONFIG_DIR: join(home, 'config'),
    NO_COLOR: '1',
    ...overrides,
  });

  function data(args: string[], input = '', overrides: Record<string, string> = {}) {
    const child = spawn(process.execPath, [BIN, ...args], { env: env(overrides) });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdin.end(input);
    return new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  }

  /** The attributes of what the Secret Service holds for the CLI (secret-tool prints them on stderr). */
  function stored(): string {
    const search = spawnSync('secret-tool', ['search', '--all', 'service', 'data-cli'], {
      env: env(),
      encoding: 'utf8',
    });
    return search.stderr
      .split('\n')
      .filter((line) => line.startsWith('attribute.'))
      .join('\n');
  }

  function waitFor(child: ChildProcess, pattern: RegExp): Promise<string> {
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = pattern.exec(out)?.[1];
        if (found) resolve(found);
      });
      child.on('exit', (code) => reject(new Error(`exited with ${String(code)}: ${out}`)));
    });
  }

  beforeAll(async () => {
    const daemon = spawnSync(
      'dbus-daemon',
      ['--session', '--fork', '--print-address=1', '--print-pid=1'],
      { env: env(), encoding: 'utf8' },
    );
    const [address = '', pid = ''] = daemon.stdout.trim().split('\n');
    bus = address;
    busPid = Number(pid);
    const keyring = spawn(
      'gnome-keyring-daemon',
      ['--foreground', '--unlock', '--components=secrets'],
      { env: env() },
    );
    children.push(keyring);
    keyring.stdin.end('a password for the test keyring\n');
    await waitFor(keyring, /GNOME_KEYRING_CONTROL=(\S+)/);
    const hub = spawn(process.execPath, [
      BIN,
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(home, 'hub'),
    ]);
    children.push(hub);
    api = await waitFor(hub, /(http:\/\/127\.0\.0\.1:\d+)/);
    token = await browserLogin(api);
  });

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    if (busPid > 0) process.kill(busPid, 'SIGKILL');
    rmSync(home, { recursive: true, force: true });
  });

  it('stores the token of data login --with-token in the keychain, not in a file', async () => {
    const login = await data(['login', '--with-token'], token);
    expect(login.err).toBe('');
    expect(login.code).toBe(0);
    expect(login.out).toContain('Logged in');
    expect(existsSync(join(home, 'config', 'credentials.json'))).toBe(false);
    expect(stored()).toContain(`attribute.username = ${api}`);
  });

  it('reads it back for whoami and for the hub', async () => {
    const whoami = await data(['--json', 'whoami']);
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.out)).toMatchObject({
      username: 'ada',
      hub: api,
      stored: 'OS keychain (data-cli)',
    });
    expect(whoami.out + whoami.err).not.toContain(token);
  });

  it('deletes it on logout', async () => {
    const logout = await data(['logout']);
    expect(logout.code).toBe(0);
    expect(stored()).toBe('');
    expect((await data(['whoami'])).code).toBe(4);
  });

  it('falls back to a 0600 file, after the time-out, when the bus never answers', async () => {
    const silent: Server = createServer(() => undefined);
    const socket = join(home, 'silent-bus');
    await new Promise<void>((resolve) => silent.listen(socket, resolve));
    try {
      // The token stored before was revoked by logout: sign in again.
      token = await browserLogin(api);
      const login = await data(['login', '--with-token'], token, {
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${socket}`,
      });
      expect(login.code).toBe(0);
      expect(login.err).toContain('warning: no OS keychain answered');
      const file = join(home, 'config', 'credentials.json');
      expect(spawnSync('stat', ['-c', '%a', file], { encoding: 'utf8' }).stdout.trim()).toBe('600');
    } finally {
      silent.close();
    }
  });
});

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopWhenEnding } from './stop-when-ending.js';

/** The user PostgreSQL runs as when the tests run as root: it refuses to run as root. */
const TEST_USER = 'data-test';

/** Debian's PostgreSQL programs, newest version first; undefined when none is installed. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions
    .map((version) => join(root, version, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')));
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface RunningPostgres {
  /** The administrator's address: postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** Stops the server at once (as a crash would), keeping its data for `resume`. */
  pause(): void;
  /** Starts it again on the same port, with the same data. */
  resume(): void;
  stop(): void;
}

/** Runs a program as the test user when this process is root, else as ourselves. */
function runAs(program: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [command, commandArgs] = asRoot
    ? ['runuser', ['-u', TEST_USER, '--', program, ...args]]
    : [program, args];
  execFileSync(command, commandArgs, { stdio: 'pipe' });
}

function ensureTestUser(): void {
  if (process.getuid?.() !== 0) return;
  try {
    execFileSync('id', ['-u', TEST_USER], { stdio: 'pipe' });
  } catch {
    execFileSync('useradd', [
      '--system',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      TEST_USER,
    ]);
  }
}

/**
 * A PostgreSQL server of its own for the tests: a new cluster in a temporary folder, on a
 * loopback port, run as a user made for the tests, without durability (fsync off).
 */
export async function startPostgres(bin: string): Promise<RunningPostgres> {
  ensureTestUser();
  const dir = mkdtempSync(join(tmpdir(), 'data-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  runAs(join(bin, 'initdb'), [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const start = () =>
    runAs(join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${String(port)} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`,
      'start',
    ]);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${String(port)}/postgres`,
    pause: () => runAs(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']),
    resume: start,
    // Stopped even when the run is ended by a signal: the server is a daemon of its own.
    stop: stopWhenEnding(() => {
      try {
        runAs(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // stopped already (paused)
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
  };
}

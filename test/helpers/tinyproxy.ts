import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TINYPROXY = '/usr/bin/tinyproxy';

/** Whether the proxy tests run: always in CI (where a missing tinyproxy fails them). */
export const HAS_TINYPROXY = existsSync(TINYPROXY) || Boolean(process.env.CI);

export interface RunningProxy {
  url: string;
  /** What the proxy logged so far: a line per request it took. */
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Debian's tinyproxy on a loopback port, in the foreground, logging every request. */
export async function startTinyproxy(): Promise<RunningProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'data-proxy-'));
  const port = await freePort();
  const config = join(dir, 'tinyproxy.conf');
  writeFileSync(
    config,
    [`Port ${String(port)}`, 'Listen 127.0.0.1', 'Allow 127.0.0.1', 'Timeout 60', 'LogLevel Info']
      .map((line) => `${line}\n`)
      .join(''),
  );
  const child: ChildProcess = spawn(TINYPROXY, ['-d', '-c', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  for (let tries = 0; !(await accepting(port)); tries++) {
    if (tries > 100 || child.exitCode !== null) throw new Error(`tinyproxy did not start: ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${String(port)}`,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.on('exit', resolve));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's nginx in front of a hub, with the recipe of docs/scaling.md as it is written. */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { accepting, freePort } from './helpers.js';

export const NGINX = '/usr/sbin/nginx';
export const RECIPE = join(import.meta.dirname, '../../docs/nginx-hub.conf');

/** The lines of the recipe a deployment changes, and what this test puts in their place. */
function placed(recipe: string, hubPort: number, port: number, cache: string): string {
  const changes: [string, string][] = [
    ['server 127.0.0.1:8080;', `server 127.0.0.1:${String(hubPort)};`],
    ['listen 80;', `listen 127.0.0.1:${String(port)};`],
    ['server_name hub.example.org;', 'server_name 127.0.0.1;'],
    ['proxy_cache_path /var/cache/nginx/data-hub ', `proxy_cache_path ${cache} `],
  ];
  let text = recipe;
  for (const [from, to] of changes) {
    if (text.split(from).length !== 2) throw new Error(`the recipe has no single "${from}"`);
    text = text.replace(from, to);
  }
  return text;
}

export interface RunningNginx {
  url: string;
  port: number;
  /** nginx's error log so far. */
  errors(): string;
  /** A line per request so far: `HIT GET /ada/x/v/1/datapackage.json 200`. */
  requests(): string[];
  stop(): Promise<void>;
}

/**
 * nginx in the foreground with its own prefix, temporary folders and logs in a new folder,
 * listening on a loopback port (given, or a free one), before the hub at `hubUrl`. `edit`
 * changes the recipe first (a cache configured otherwise).
 */
export async function startNginx(
  hubUrl: string,
  options: { port?: number; edit?: (recipe: string) => string } = {},
): Promise<RunningNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'data-nginx-'));
  const port = options.port ?? (await freePort());
  const hubPort = Number(new URL(hubUrl).port);
  for (const sub of ['cache', 'body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, sub));
  const recipe = (options.edit ?? ((text: string) => text))(readFileSync(RECIPE, 'utf8'));
  const config = join(dir, 'nginx.conf');
  writeFileSync(
    config,
    [
      // As root, nginx's workers would otherwise be `nobody`, who cannot write to the folder.
      ...(process.getuid?.() === 0 ? [`user ${userInfo().username};`] : []),
      'daemon off;',
      // One worker: a request is taken once the one before has been put in the cache.
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${join(dir, 'error.log')} notice;`,
      'events { worker_connections 64; }',
      'http {',
      // A line per request: its status in the cache, its method and address, its answer's status.
      "  log_format cached '$upstream_cache_status $request_method $request_uri $status';",
      `  access_log ${join(dir, 'access.log')} cached;`,
      `  client_body_temp_path ${join(dir, 'body')};`,
      `  proxy_temp_path ${join(dir, 'proxy')};`,
      `  fastcgi_temp_path ${join(dir, 'fastcgi')};`,
      `  uwsgi_temp_path ${join(dir, 'uwsgi')};`,
      `  scgi_temp_path ${join(dir, 'scgi')};`,
      placed(recipe, hubPort, port, join(dir, 'cache')),
      '}',
      '',
    ].join('\n'),
  );
  const errorLog = join(dir, 'error.log');
  const readLog = (file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  const errors = (): string => readLog(errorLog);
  const requests = (): string[] =>
    readLog(join(dir, 'access.log'))
      .split('\n')
      .filter((line) => line !== '');
  const child = spawn(NGINX, ['-p', dir, '-c', config, '-e', errorLog], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    child.on('error', (error) => {
      output += String(error);
      resolve();
    });
    child.on('exit', () => resolve());
  });
  // A test process that ends before its stop (killed at a time-out) takes nginx with it.
  const orphaned = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', orphaned);
  const stop = async (): Promise<void> => {
    process.off('exit', orphaned);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Until it accepts connections, or has ended; the deadline only names a start that never came.
  for (let tries = 0; !(await accepting(port)); tries++) {
    if (tries > 200 || child.exitCode !== null || child.pid === undefined) {
      const said = `${output}${errors()}`;
      await stop();
      throw new Error(`nginx did not start: ${said}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { url: `http://127.0.0.1:${String(port)}`, port, errors, requests, stop };
}

import { Option, type Command } from 'commander';
import { locationOf, port, whole } from './arguments.js';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '@data/core';
import { loadHub, type Hub } from './serve-hub.js';
import type { LogFormat } from '@data/hub';
import type { ContextFor, SetExitCode } from './types.js';
import { registerServeBackup } from './serve-backup.js';
import { registerServeGc } from './serve-gc.js';
import { registerServeMigrate } from './serve-migrate.js';

export interface ServeOptions {
  port: number;
  host: string;
  dataDir: string;
  tokenDays: number;
  maxStorageMb: number;
  derivedCacheMb?: number;
  maxDatasets: number;
  config: string | undefined;
  devSignIn: boolean | undefined;
  publicUrl: string | undefined;
  database: string | undefined;
  storage: string | undefined;
  role: 'api' | 'worker' | 'all';
  shutdownSeconds: number;
  metrics: boolean | undefined;
  logFormat: 'text' | 'json' | undefined;
}

export function registerServe(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  const serve = program
    .command('serve')
    .summary(
      'run a data hub on this machine: auth, uploads, publication pipeline, read endpoints and web pages',
    )
    .option('--port <n>', 'port to listen on (0: any free port)', port, 8080)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--data-dir <dir>', 'folder for all of the hub state', 'data-hub')
    .option('--token-days <n>', 'lifetime of user tokens in days', whole(), 14)
    .option('--max-storage-mb <n>', 'storage allowed per user, in MB', whole(), 10_240)
    .option('--max-datasets <n>', 'datasets allowed per user', whole(), 1000)
    .option(
      '--derived-cache-mb <n>',
      'bytes the cache of CSV, JSON and zip copies made when asked for may keep, in MB (default 1024)',
      whole(),
    )
    .option('--config <file>', 'hub configuration (JSON): sign-in providers, fetch hosts, limits')
    .option(
      '--dev-sign-in',
      'offer the development sign-in (anyone signs in under any name) beyond loopback too',
    )
    .option('--public-url <url>', 'the address users reach the hub at, behind a proxy')
    .addOption(
      new Option(
        '--role <role>',
        'api: answer requests only; worker: process revisions only (no port); all: both',
      )
        .choices(['api', 'worker', 'all'])
        .default('all'),
    )
    .option(
      '--metrics',
      'serve Prometheus metrics at /metrics beyond loopback too (a token can be set in --config)',
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'text: a line per problem; json: an object per line, every request answered included',
      ).choices(['text', 'json']),
    )
    .option(
      '--shutdown-seconds <s>',
      'on SIGTERM or Ctrl-C, how long requests in flight may take to finish (a second signal stops at once)',
      whole(),
      30,
    )
    .option(
      '--database <url>',
      'metadata database: a SQLite file (default <data-dir>/hub.sqlite) or postgres://… (also DATA_HUB_DATABASE)',
    )
    .option(
      '--storage <url>',
      'where files go: a folder (default <data-dir>), file://… or s3://<bucket>[/<prefix>]?endpoint=…&region=…&path_style=true (also DATA_HUB_STORAGE)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  data serve                       # http://127.0.0.1:8080, state in ./data-hub, development sign-in\n  data serve --host 0.0.0.0 --config hub.json --public-url https://hub.example.org',
    )
    .action(async (options: ServeOptions, command: Command) => {
      setExitCode(await runServe(options, contextFor(command)));
    });
  registerServeMigrate(serve, contextFor, setExitCode);
  registerServeBackup(serve, contextFor, setExitCode);
  registerServeGc(serve, contextFor, setExitCode);
}

function defined<T extends Record<string, string | undefined>>(
  values: T,
): Partial<Record<keyof T, string>> {
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== undefined),
  ) as Partial<Record<keyof T, string>>;
}

async function startConfigured(hubPackage: Hub, options: ServeOptions, ctx: Context) {
  const { startHub, HubRefused, readHubConfig, ConfigError } = hubPackage;
  try {
    const config = options.config
      ? readHubConfig(resolve(ctx.io.cwd, options.config), ctx.io.env)
      : { providers: [] };
    const devSignIn = options.devSignIn ?? config.devSignIn;
    const logFormat = options.logFormat ?? config.logFormat ?? 'text';
    if (devSignIn)
      notice(
        hubPackage,
        ctx,
        logFormat,
        'warn',
      )(
        'warning: the development sign-in is on: anyone who reaches this hub may sign in under any name',
      );
    return await startHub({
      ...config,
      ...(devSignIn !== undefined ? { devSignIn } : {}),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
      dataDir: resolve(ctx.io.cwd, options.dataDir),
      ...defined({
        database: locationOf(
          options.database,
          ctx.io.env.DATA_HUB_DATABASE,
          config.database,
        )(ctx.io.cwd),
        storage: locationOf(
          options.storage,
          ctx.io.env.DATA_HUB_STORAGE,
          config.storage,
        )(ctx.io.cwd),
      }),
      role: options.role,
      shutdownSeconds: options.shutdownSeconds,
      logFormat,
      ...(options.metrics || config.metrics
        ? { metrics: { ...config.metrics, ...(options.metrics ? { enabled: true } : {}) } }
        : {}),
      host: options.host,
      port: options.port,
      tokenDays: options.tokenDays,
      maxStorageBytes: options.maxStorageMb * 1024 * 1024,
      maxDatasets: options.maxDatasets,
      ...cacheBudget(options.derivedCacheMb ?? config.derivedCacheMb),
      log: (line) => ctx.io.stderr.write(`${line}\n`),
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    if (error instanceof HubRefused)
      throw new UsageError(error.message, {
        hint: error.hint,
        ...(error.setting ? { reason: `hub-${error.setting}` as const } : {}),
      });
    throw startFailure(error, options) ?? error;
  }
}

function cacheBudget(mb: number | undefined): { derivedCacheBytes?: number } {
  return mb === undefined ? {} : { derivedCacheBytes: mb * 1024 * 1024 };
}

/** Why the hub could not start where the operator said, and what to do instead. */
function startFailure(error: unknown, options: ServeOptions): UsageError | undefined {
  const { code, path } = error as NodeJS.ErrnoException;
  const where = `${options.host}:${String(options.port)}`;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(
        `something already listens on ${where}`,
        'choose another --port, or --port 0 for any free one',
      );
    case 'EACCES':
      return path
        ? new UsageError(
            `no permission to use the data folder (${path})`,
            'choose another --data-dir',
          )
        : new UsageError(
            `no permission to listen on ${where}`,
            'ports below 1024 need privileges: choose --port 8080, or --port 0',
          );
    case 'EADDRNOTAVAIL':
      return new UsageError(
        `${options.host} is not an address of this machine`,
        "use --host 127.0.0.1, or one of this machine's addresses",
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new UsageError(
        `the host name ${options.host} does not resolve`,
        'use --host 127.0.0.1, or an address of this machine',
      );
    case 'ENOENT':
    case 'ENOTDIR':
    case 'EROFS':
    case 'EEXIST':
    case 'ENOSPC':
      return new UsageError(
        `the data folder cannot be used: ${(error as Error).message}`,
        'choose a --data-dir in a folder you can write to',
      );
    case undefined:
    default:
      return undefined;
  }
}

/** A line of the command's own on stderr: as it is, or a JSON object of the hub's log. */
function notice(hubPackage: Hub, ctx: Context, format: LogFormat, level: 'info' | 'warn') {
  const json = hubPackage.hubLog('json', (line) => void ctx.io.stderr.write(`${line}\n`));
  return (line: string): void => {
    if (format === 'text') ctx.io.stderr.write(`${line}\n`);
    else json(line, { level });
  };
}

export async function runServe(options: ServeOptions, ctx: Context): Promise<number> {
  // The hub's package, loaded once for the whole command.
  const hubPackage = await loadHub();
  const hub = await startConfigured(hubPackage, options, ctx);
  const info = notice(hubPackage, ctx, hub.hub.options.logFormat, 'info');
  const storage = {
    quotaMb: options.maxStorageMb,
    derivedCacheMb: hub.hub.options.derivedCacheBytes / 1024 / 1024,
  };
  if (ctx.globals.json)
    ctx.io.stdout.write(
      `${JSON.stringify({ url: hub.url, dataDir: resolve(ctx.io.cwd, options.dataDir), ...storage })}\n`,
    );
  else if (options.role === 'worker')
    ctx.io.stdout.write('data hub worker: processing revisions from its database\n');
  else ctx.io.stdout.write(`data hub listening on ${hub.url}\n`);
  // What the hub may keep: each user's quota (their data, package info and previews), and
  // one cache of derived copies for all.
  if (!ctx.globals.json && options.role !== 'worker')
    info(
      `storage: ${String(storage.quotaMb)} MB per user; derived copies: a cache of ${String(storage.derivedCacheMb)} MB`,
    );
  await new Promise<void>((done) => {
    if (ctx.signal.aborted) done();
    ctx.signal.addEventListener('abort', () => done(), { once: true });
  });
  info('stopping…');
  await hub.close();
  return 0;
}

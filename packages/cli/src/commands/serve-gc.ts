import type { Command } from 'commander';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '@data/core';
import { loadHub } from './serve-hub.js';
import { hubLocation, whole, type HubLocation } from './arguments.js';
import { writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerServeGc(
  serve: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  serve
    .command('gc')
    .summary('remove stored files no revision, upload in progress or user needs any more')
    .option('--dry-run', 'list what would be removed, and the bytes, without removing it')
    .option(
      '--grace-minutes <n>',
      'keep what was made or used more recently than this (default 120)',
      whole(),
    )
    .addHelpText(
      'after',
      '\nSafe while the hub runs, publications included: what a publication takes in while\nit runs is kept. Quotas go down by what is freed; a deleted dataset\'s files go once no\nother revision uses them.\n\nExamples:\n  data serve gc --data-dir data-hub --dry-run\n  data serve gc --database postgres://hub@db/hub --storage "s3://hub-data?region=eu-west-1"',
    )
    .action(async (options: { dryRun?: boolean; graceMinutes?: number }, command: Command) => {
      const ctx = contextFor(command);
      setExitCode(await runGc(hubLocation(command, ctx.io), options, ctx));
    });
}

export async function runGc(
  hub: HubLocation,
  options: { dryRun?: boolean; graceMinutes?: number },
  ctx: Context,
): Promise<number> {
  const {
    collectGarbage,
    DEFAULT_GRACE_MINUTES,
    openMetadata,
    openStorage,
    DatabaseUnavailable,
    StorageAddressError,
  } = await loadHub();
  const database = hub.database ?? join(hub.dataDir, 'hub.sqlite');
  const storageAddress = hub.storage ?? hub.dataDir;
  try {
    const store = await openMetadata(database);
    const storage = await openStorage(storageAddress).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    try {
      const report = await collectGarbage(
        { store, storage, log: (line) => void ctx.io.stderr.write(`${line}\n`) },
        {
          dryRun: options.dryRun ?? false,
          graceMinutes: options.graceMinutes ?? DEFAULT_GRACE_MINUTES,
        },
      );
      if (ctx.globals.json) writeJson(ctx, report);
      else {
        const { gcSummary } = await import('../output/gc.js');
        ctx.io.stdout.write(gcSummary(report));
      }
      return 0;
    } finally {
      storage.close();
      await store.close();
    }
  } catch (error) {
    if (error instanceof StorageAddressError) throw new UsageError(error.message, error.hint);
    if (error instanceof DatabaseUnavailable)
      throw new UsageError(error.message, 'check --database and --data-dir');
    throw error;
  }
}

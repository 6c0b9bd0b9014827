import type { Command } from 'commander';
import type { Context } from '../context.js';
import { UsageError } from '@data/core';
import { loadHub } from './serve-hub.js';
import { hubLocation, type HubLocation } from './arguments.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerServeMigrate(
  serve: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  serve
    .command('migrate-storage')
    .summary("move a stopped hub's SQLite file and folder into PostgreSQL and a bucket")
    // --data-dir (the hub to move), --database and --storage (where it goes) are the
    // options of `data serve` itself, which reads them wherever they stand.
    .addHelpText(
      'after',
      '\nThe hub in --data-dir moves to --database (postgres://…) and --storage (s3://…).\nEvery object is checked against its MD5 on the way; what is there already is kept,\nso an interrupted move is finished by running it again. Stop the hub first.\n\nExample:\n  data serve migrate-storage --data-dir data-hub --database postgres://hub@db/hub --storage "s3://hub-data?region=eu-west-1"',
    )
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextFor(command);
      setExitCode(await runMigrate(hubLocation(command, ctx.io), ctx));
    });
}

function target({ database, storage }: HubLocation): { database: string; storage: string } {
  if (!database || !storage)
    throw new UsageError(
      'say where the hub goes: --database and --storage',
      'for example --database postgres://hub@db/hub --storage s3://hub-data',
    );
  return { database, storage };
}

export async function runMigrate(hub: HubLocation, ctx: Context): Promise<number> {
  const { database, storage } = target(hub);
  const { migrateHub, MigrationRefused, StorageAddressError, DatabaseUnavailable } =
    await loadHub();
  const { startProgress } = await import('../output/spinner.js');
  const { migrationProgress, migrationSummary } = await import('../output/migrate.js');
  const progress = await startProgress(ctx, 'moving the hub');
  try {
    const result = await migrateHub({
      dataDir: hub.dataDir,
      database,
      storage,
      onEvent: migrationProgress(progress.update, progress.log),
    });
    progress.stop();
    const where = storage.split('?')[0] ?? storage;
    ctx.io.stdout.write(
      ctx.globals.json ? `${JSON.stringify(result)}\n` : migrationSummary(result, where),
    );
    return result.damaged.length > 0 ? 1 : 0;
  } catch (error) {
    progress.stop();
    if (error instanceof MigrationRefused) throw new UsageError(error.message);
    if (error instanceof StorageAddressError) throw new UsageError(error.message, error.hint);
    if (error instanceof DatabaseUnavailable)
      throw new UsageError(error.message, 'check --database: postgres://user@host/database');
    throw error;
  }
}

import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '@data/core';
import { loadHub } from './serve-hub.js';
import { hubLocation, type HubLocation } from './arguments.js';
import { writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerServeBackup(
  serve: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  serve
    .command('backup')
    .summary('copy an embedded hub (SQLite and its folder) consistently, while it runs')
    .argument('<folder>', 'a new or empty folder: the copy, itself a data folder')
    .addHelpText(
      'after',
      "\nThe database is copied with SQLite's online backup, then the files. To restore, serve\nthe copy (or move it where the hub keeps its data): data serve --data-dir <folder>.\n\nExample:\n  data serve backup --data-dir data-hub /backups/hub-2026-11-25",
    )
    .action(async (folder: string, _options: unknown, command: Command) => {
      const ctx = contextFor(command);
      setExitCode(await runBackup(hubLocation(command, ctx.io), folder, ctx));
    });
}

export async function runBackup(hub: HubLocation, folder: string, ctx: Context): Promise<number> {
  const { backupHub, BackupRefused } = await loadHub();
  try {
    const done = await backupHub({ ...hub, to: resolve(ctx.io.cwd, folder) });
    if (ctx.globals.json) writeJson(ctx, { backup: resolve(ctx.io.cwd, folder), ...done });
    else ctx.io.stdout.write(`backed up to ${resolve(ctx.io.cwd, folder)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof BackupRefused) throw new UsageError(error.message, error.hint);
    const { code } = error as NodeJS.ErrnoException;
    if (typeof code === 'string' && code.startsWith('E'))
      throw new UsageError(
        `the backup could not be made: ${(error as Error).message}`,
        'check --data-dir, and that the backup folder can be written',
      );
    throw error;
  }
}

import type { Command } from 'commander';
import type { Context } from '../context.js';
import type * as Edit from '../config/edit.js';
import { writeJson } from './auth-common.js';
import type { ContextFor, SetExitCode } from './types.js';

type Settings = typeof Edit;
type Action = (ctx: Context, settings: Settings) => number;

export function registerConfig(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  const config = program
    .command('config')
    .summary('read and change the settings file (hub addresses)')
    .addHelpText(
      'after',
      '\nSettings: api (the hub API address), site (the hub site for read URLs).\nFlags and DATA_API/DATA_SITE take precedence over them.\n\nExamples:\n  data config set api https://hub.example.org\n  data config get api\n  data config list --json\n  data config unset site',
    );
  const run = (command: Command, action: Action) => async () => {
    const settings = await import('../config/edit.js');
    setExitCode(action(contextFor(command), settings));
  };
  const get = config.command('get').description('print one setting (exit 1 when it is not set)');
  get.argument('<key>').action((key: string) => run(get, (ctx, s) => configGet(key, ctx, s))());
  const set = config.command('set').description('set one setting, after checking its value');
  set
    .argument('<key>')
    .argument('<value>')
    .action((key: string, value: string) => run(set, (ctx, s) => configSet(key, value, ctx, s))());
  const unset = config.command('unset').description('remove one setting');
  unset
    .argument('<key>')
    .action((key: string) => run(unset, (ctx, s) => configUnset(key, ctx, s))());
  const list = config.command('list').description('print every setting that is set, and its file');
  list.action(() => run(list, configList)());
}

function configGet(key: string, ctx: Context, settings: Settings): number {
  const value = settings.getSetting(ctx.io.env, key);
  if (ctx.globals.json) writeJson(ctx, { [key]: value ?? null });
  else if (value !== undefined) ctx.io.stdout.write(`${value}\n`);
  return value === undefined ? 1 : 0;
}

function configSet(key: string, value: string, ctx: Context, settings: Settings): number {
  const stored = settings.setSetting(ctx.io.env, key, value);
  if (ctx.globals.json) writeJson(ctx, { [key]: stored });
  else ctx.io.stderr.write(`${key} = ${stored}\n`);
  return 0;
}

function configUnset(key: string, ctx: Context, settings: Settings): number {
  const removed = settings.unsetSetting(ctx.io.env, key);
  if (ctx.globals.json) writeJson(ctx, { [key]: null, removed });
  else ctx.io.stderr.write(removed ? `${key} removed\n` : `${key} was not set\n`);
  return 0;
}

function configList(ctx: Context, settings: Settings): number {
  const values = settings.listSettings(ctx.io.env);
  const file = settings.settingsFile(ctx.io.env);
  if (ctx.globals.json) writeJson(ctx, { file, settings: values });
  else {
    for (const [key, value] of Object.entries(values)) ctx.io.stdout.write(`${key}\t${value}\n`);
    ctx.io.stderr.write(`(${file})\n`);
  }
  return 0;
}

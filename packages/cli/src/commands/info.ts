import { DESCRIPTOR_NAMES, isDescriptorPath, YamlSyntaxError } from '@data/core';
import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context } from '../context.js';
import type { DatasetInfo } from '../client/info.js';
import { ApiError, InputError, InvalidDataError } from '@data/core';
import type { ResourceDescriptor } from '@data/core';
import { tokenBelongsTo } from '@data/core';
import { hubReader, writeJson } from './auth-common.js';
import { readsLocally } from './local-or-hub.js';
import type { ContextFor, SetExitCode } from './types.js';

export function registerInfo(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('info')
    .summary('show a dataset: title, description, resources and their first rows')
    .argument('<target>', 'owner/dataset, a local package folder or datapackage.json, or a URL')
    .addHelpText(
      'after',
      '\nExamples:\n  data info ada/world-cities\n  data info examples/cities --json',
    )
    .action(async (target: string, _options: unknown, command: Command) => {
      setExitCode(await runInfo(target, contextFor(command)));
    });
}

/** A local file that is not a descriptor: shown as the one-resource package it would make. */
function isDataFile(path: string): boolean {
  return statSync(path).isFile() && !isDescriptorPath(path);
}

async function showDataFile(path: string, target: string, ctx: Context): Promise<number> {
  const { describeFile } = await import('@data/core');
  const { datasetInfo } = await import('../client/info.js');
  const described = await describeFile(path);
  const descriptor = {
    ...described,
    resources: await Promise.all(described.resources.map((resource) => asTable(resource, path))),
  } as unknown as Record<string, unknown>;
  const info = await datasetInfo({ dir: dirname(path), descriptor }, ctx.fetch, ctx.signal);
  return printInfo(info, target, ctx);
}

/**
 * A single file is read as a table, as validate reads it (validator/index.ts): without an
 * extension it is taken for one, and one whose format is another's (a PDF, a README) is
 * invalid, as validate says.
 */
async function asTable(resource: ResourceDescriptor, path: string): Promise<ResourceDescriptor> {
  const { formatOf, isTableFormat } = await import('@data/core');
  const format = formatOf(resource);
  if (format === undefined) return { ...resource, type: 'table' };
  if (isTableFormat(format)) return resource;
  throw new InvalidDataError(`"${path}" is not a table (format "${format}")`, {
    hint: 'tables are CSV, TSV, Excel, OpenDocument and Parquet files',
  });
}

/** The folder of the local package the target names: a folder, or a descriptor's folder. */
function localPackage(local: string, target: string): string {
  const dir = statSync(local).isDirectory() ? local : dirname(local);
  if (DESCRIPTOR_NAMES.some((name) => existsSync(resolve(dir, name)))) return dir;
  throw new InputError(`${target} has no datapackage.json`);
}

export async function runInfo(target: string, ctx: Context): Promise<number> {
  const { datasetInfo } = await import('../client/info.js');
  const { parseTarget, noSuchDataset } = await import('../client/get.js');
  const local = resolve(ctx.io.cwd, target);
  const here = readsLocally(target, ctx);
  if (here && isDataFile(local)) return showDataFile(local, target, ctx);
  const dir = here ? localPackage(local, target) : undefined;
  const remote = dir ? undefined : parseTarget(target, ctx.hub().site);
  const { fetch, token } = remote ? await hubReader(ctx) : { fetch: ctx.fetch, token: undefined };
  const location = remote ? { descriptorUrl: remote.url } : { dir };
  const info = await datasetInfo(location, fetch, ctx.signal).catch((error: unknown) => {
    // A local descriptor that is not JSON or YAML, or is an alias bomb.
    if (!remote && (error instanceof SyntaxError || error instanceof YamlSyntaxError))
      throw new InputError(`${target}: the descriptor cannot be read: ${error.message}`);
    if (remote && error instanceof ApiError && error.status === 404)
      throw noSuchDataset(remote, token !== undefined && tokenBelongsTo(remote.url, ctx.hub()));
    throw error;
  });
  return printInfo(info, target, ctx);
}

async function printInfo(info: DatasetInfo, target: string, ctx: Context): Promise<number> {
  if (ctx.globals.json) {
    writeJson(ctx, info);
    return 0;
  }
  const { renderInfo, renderInfoPlain } = await import('../output/info.js');
  ctx.io.stdout.write(
    ctx.io.isStdoutTTY ? renderInfo(info, target, ctx.colors) : renderInfoPlain(info, target),
  );
  return 0;
}

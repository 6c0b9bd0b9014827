import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context } from '../context.js';
import { ApiError } from '@data/core';
import type { RowFormat } from '@data/core';
import { tokenBelongsTo } from '@data/core';
import { hubReader } from './auth-common.js';
import { readsLocally } from './local-or-hub.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface CatOptions {
  source: string;
  resource: string | undefined;
  format: RowFormat;
}

export function registerCat(
  program: Command,
  contextFor: ContextFor,
  setExitCode: SetExitCode,
): void {
  program
    .command('cat')
    .summary('print a table: as CSV, TSV, JSON, NDJSON or Markdown, streamed')
    .argument(
      '<source>',
      'a package folder or descriptor, a data file, - (standard input), owner/dataset or a URL',
    )
    .argument('[resource]', 'which resource of a package (default: the first)')
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['csv', 'tsv', 'json', 'ndjson', 'markdown'])
        .default('csv'),
    )
    .addHelpText(
      'after',
      '\nJSON and NDJSON values are typed by the schema (numbers, booleans, null for missing\nvalues); the text formats print cells as written.\n\nExamples:\n  data cat examples/cities cities\n  data cat prices.csv --format ndjson | head\n  data cat ada/world-cities countries --format markdown\n  curl -s https://example.org/t.csv | data cat - --format json',
    )
    .action(
      async (
        source: string,
        resource: string | undefined,
        options: { format: RowFormat },
        command: Command,
      ) => {
        setExitCode(
          await runCat({ source, resource, format: options.format }, contextFor(command)),
        );
      },
    );
}

export async function runCat(options: CatOptions, ctx: Context): Promise<number> {
  const { catSource } = await import('@data/core');
  const { parseTarget, noSuchDataset } = await import('../client/get.js');
  const { readRows } = await import('@data/core');
  const { rowWriter } = await import('@data/core');
  const format: RowFormat = ctx.globals.json ? 'json' : options.format;
  const { fetch, token } = await hubReader(ctx);
  const targetOf = (input: string) => {
    try {
      return parseTarget(input, ctx.hub().site);
    } catch {
      return undefined;
    }
  };
  const source = await catSource(options.source, options.resource, {
    stdin: ctx.rawIO.stdin,
    fetch,
    descriptorUrlOf: targetOf,
    isLocal: (input) => readsLocally(input, ctx),
  }).catch((error: unknown) => {
    const target = targetOf(options.source);
    if (target && error instanceof ApiError && error.status === 404)
      throw noSuchDataset(target, token !== undefined && tokenBelongsTo(target.url, ctx.hub()));
    throw error;
  });
  const writer = rowWriter(format);
  const schemaNames = (
    (source.resource.schema as { fields?: { name: string }[] } | undefined)?.fields ?? []
  ).map((field) => field.name);
  let labels: string[] | undefined;
  let started = false;
  // To a pipe the formats for programs go byte for byte; to a terminal, and Markdown (for
  // reading) anywhere, with control characters shown as escapes.
  const exact = !ctx.io.isStdoutTTY && format !== 'markdown';
  const stdout = exact ? ctx.rawIO.stdout : ctx.io.stdout;
  const out = (text: string) => text !== '' && stdout.write(text);
  const begin = (width: number) => {
    if (started) return;
    started = true;
    const names = schemaNames.length > 0 ? schemaNames : (labels ?? []);
    const all =
      names.length > 0 ? names : Array.from({ length: width }, (_, i) => `field${String(i + 1)}`);
    labels = all;
    out(writer.start(all));
  };
  await readRows(
    source.resource,
    source.base,
    { fetch: source.fetch, signal: ctx.signal, typed: format === 'json' || format === 'ndjson' },
    {
      labels: (found) => (labels = found.length > 0 ? found : undefined),
      row: (values) => {
        begin(values.length);
        out(writer.row(values));
      },
      open: true,
    },
  );
  begin(0);
  out(writer.end());
  return 0;
}

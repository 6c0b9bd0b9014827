import type { Command } from 'commander';
import { Option } from 'commander';
import type { Context } from '../context.js';
import type { CatOptions } from '../client/cat.js';
import type { RowFormat } from '@data/core';
import { tokenBelongsTo } from '@data/core';
import { hubReader } from './auth-common.js';
import { readsLocally } from './local-or-hub.js';
import type { ContextFor, SetExitCode } from './types.js';

export interface CatCommandOptions extends Omit<CatOptions, 'typed'> {
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
          await showCat({ source, resource, format: options.format }, contextFor(command)),
        );
      },
    );
}

export async function showCat(options: CatCommandOptions, ctx: Context): Promise<number> {
  const { rowWriter } = await import('@data/core');
  const { runCat } = await import('../client/cat.js');
  const format: RowFormat = ctx.globals.json ? 'json' : options.format;
  const { fetch, token } = await hubReader(ctx);
  const writer = rowWriter(format);
  // To a pipe the formats for programs go byte for byte; to a terminal, and Markdown (for
  // reading) anywhere, with control characters shown as escapes.
  const exact = !ctx.io.isStdoutTTY && format !== 'markdown';
  const stdout = exact ? ctx.rawIO.stdout : ctx.io.stdout;
  const out = (text: string) => text !== '' && stdout.write(text);
  await runCat(
    { ...options, typed: format === 'json' || format === 'ndjson' },
    {
      stdin: () => ctx.rawIO.stdin,
      fetch,
      site: () => ctx.hub().site,
      signedIn: (url) => token !== undefined && tokenBelongsTo(url, ctx.hub()),
      isLocal: (input) => readsLocally(input, ctx),
      signal: ctx.signal,
    },
    {
      header: (names) => out(writer.start(names)),
      row: (values) => out(writer.row(values)),
      open: true,
    },
  );
  out(writer.end());
  return 0;
}

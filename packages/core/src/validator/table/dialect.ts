import type { DialectDescriptor } from '../descriptor/types.js';
import type { CsvOptions } from './csv-parser.js';
import type { TableLayout } from './table-validator.js';

export interface ResolvedDialect {
  csv: CsvOptions;
  layout: TableLayout;
  /** What was sniffed rather than declared, for the report's warnings. */
  sniffed: string[];
}

const CANDIDATES = [',', ';', '\t', '|'];

/** Picks the delimiter whose count per line is the most consistent across the sample. */
export function sniffDelimiter(sample: string, quoteChar: string): string | undefined {
  const lines = stripQuoted(sample, quoteChar)
    .split(/\r\n|\n|\r/)
    .slice(0, 50);
  if (lines.length > 1 && !/[\r\n]$/.test(sample)) lines.pop();
  const usable = lines.filter((line) => line.length > 0);
  let best: { delimiter: string; score: number; count: number } | undefined;
  for (const delimiter of CANDIDATES) {
    const counts = usable.map((line) => line.split(delimiter).length - 1);
    const mode = modeOf(counts);
    if (mode === 0) continue;
    const score = counts.filter((count) => count === mode).length / counts.length;
    if (!best || score > best.score || (score === best.score && mode > best.count)) {
      best = { delimiter, score, count: mode };
    }
  }
  return best?.delimiter;
}

function stripQuoted(text: string, quoteChar: string): string {
  if (!quoteChar) return text;
  const quote = quoteChar.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${quote}[^${quote}]*${quote}`, 'g'), 'x');
}

function modeOf(counts: number[]): number {
  const tally = new Map<number, number>();
  for (const count of counts) tally.set(count, (tally.get(count) ?? 0) + 1);
  let mode = 0;
  let best = 0;
  for (const [count, times] of tally) {
    if (times > best || (times === best && count > mode)) [mode, best] = [count, times];
  }
  return mode;
}

function sniffQuote(sample: string, delimiter: string): string {
  const single = new RegExp(
    `(^|[${escapeClass(delimiter)}\\n])'[^'\\n]*'([${escapeClass(delimiter)}\\r\\n]|$)`,
    'm',
  );
  return !sample.includes('"') && single.test(sample) ? "'" : '"';
}

function escapeClass(char: string): string {
  return char.replace(/[\\\]^-]/g, '\\$&');
}

export function resolveDialect(
  declared: DialectDescriptor | undefined,
  sample: string,
  defaultDelimiter: string | undefined,
): ResolvedDialect {
  const dialect = declared ?? {};
  const sniffed: string[] = [];
  let delimiter = dialect.delimiter ?? defaultDelimiter;
  if (delimiter === undefined) {
    delimiter = sniffDelimiter(sample, dialect.quoteChar ?? '"') ?? ',';
    if (delimiter !== ',') sniffed.push(`delimiter "${delimiter === '\t' ? '\\t' : delimiter}"`);
  }
  let quoteChar: string | null = dialect.quoteChar ?? '"';
  if (dialect.quoteChar === undefined && dialect.escapeChar === undefined) {
    quoteChar = sniffQuote(sample, delimiter);
    if (quoteChar !== '"') sniffed.push(`quote character "${quoteChar}"`);
  }
  const headerRows = dialect.header === false ? [] : (dialect.headerRows ?? [1]);
  return {
    csv: {
      delimiter,
      quoteChar: quoteChar === '' ? null : quoteChar,
      doubleQuote: dialect.doubleQuote ?? true,
      escapeChar: dialect.escapeChar ?? null,
      skipInitialSpace: dialect.skipInitialSpace ?? false,
    },
    layout: {
      headerRows,
      headerJoin: dialect.headerJoin ?? ' ',
      commentChar: dialect.commentChar,
      commentRows: new Set(dialect.commentRows ?? []),
    },
    sniffed,
  };
}

/** Writers of rows in the formats `data cat` prints and the hub derives: each returns the text to write. */
export type RowFormat = 'csv' | 'tsv' | 'json' | 'ndjson' | 'markdown';

export interface RowWriter {
  start(labels: string[]): string;
  row(values: unknown[]): string;
  end(): string;
}

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/** RFC 4180: quoted when needed, inner quotes doubled, rows ending in \n. */
function csvCell(value: unknown): string {
  const cell = text(value);
  return /[",\r\n]/.test(cell) || cell !== cell.trim() ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** Tab-separated values cannot hold tabs or line breaks: they are written as \t, \n, \r, \\. */
function tsvCell(value: unknown): string {
  return text(value)
    .replace(/\\/g, '\\\\')
    .replace(/\t/g, '\\t')
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r');
}

function markdownCell(value: unknown): string {
  return text(value).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** A heading of a Markdown table: a blank label is headed by the name a schema gives it. */
function headingCell(label: string, index: number): string {
  return label.trim() === '' ? `field${String(index + 1)}` : markdownCell(label);
}

/** What JSON.stringify escapes in a string: quotes, backslashes, controls, lone surrogates. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A JSON value as text: `JSON.stringify` of it, with the common kinds done directly. */
function jsonText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'null';
    case 'object':
      return value === null ? 'null' : (JSON.stringify(value) ?? 'null');
    case 'bigint':
    case 'function':
    case 'symbol':
      return JSON.stringify(value) ?? 'null';
  }
}

/**
 * Writes a row as a JSON object, `JSON.stringify` of the record of its labels and values:
 * with the keys encoded once, not an object built and walked for every row, which took
 * most of the time of writing a table's JSON copy. Labels that repeat are left to the record,
 * where the last value of a label wins.
 */
function objectWriter(labels: string[]): (values: unknown[]) => string {
  if (new Set(labels).size !== labels.length)
    return (values) => JSON.stringify(record(labels, values));
  const keys = labels.map((label, index) => `${index === 0 ? '{' : ','}${JSON.stringify(label)}:`);
  return (values) => {
    let text = '';
    for (let index = 0; index < keys.length; index++)
      text += `${keys[index] ?? ''}${jsonText(values[index] ?? null)}`;
    return keys.length === 0 ? '{}' : `${text}}`;
  };
}

function record(labels: string[], values: unknown[]): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  for (const [index, label] of labels.entries()) entry[label] = values[index] ?? null;
  return entry;
}

export function rowWriter(format: RowFormat): RowWriter {
  let object: (values: unknown[]) => string = () => '{}';
  let first = true;
  switch (format) {
    case 'csv':
      return {
        start: (names) => `${names.map(csvCell).join(',')}\n`,
        row: (values) => `${values.map(csvCell).join(',')}\n`,
        end: () => '',
      };
    case 'tsv':
      return {
        start: (names) => `${names.map(tsvCell).join('\t')}\n`,
        row: (values) => `${values.map(tsvCell).join('\t')}\n`,
        end: () => '',
      };
    case 'ndjson':
      return {
        start: (names) => ((object = objectWriter(names)), ''),
        row: (values) => `${object(values)}\n`,
        end: () => '',
      };
    case 'json':
      return {
        start: (names) => ((object = objectWriter(names)), '['),
        row: (values) => {
          const line = `${first ? '\n' : ',\n'}  ${object(values)}`;
          first = false;
          return line;
        },
        end: () => (first ? ']\n' : '\n]\n'),
      };
    case 'markdown':
      return {
        start: (names) =>
          `| ${names.map(headingCell).join(' | ')} |\n|${names.map(() => ' --- |').join('')}\n`,
        row: (values) => `| ${values.map(markdownCell).join(' | ')} |\n`,
        end: () => '',
      };
  }
}

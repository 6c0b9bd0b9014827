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

function record(labels: string[], values: unknown[]): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  for (const [index, label] of labels.entries()) entry[label] = values[index] ?? null;
  return entry;
}

export function rowWriter(format: RowFormat): RowWriter {
  let labels: string[] = [];
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
        start: (names) => ((labels = names), ''),
        row: (values) => `${JSON.stringify(record(labels, values))}\n`,
        end: () => '',
      };
    case 'json':
      return {
        start: (names) => ((labels = names), '['),
        row: (values) => {
          const line = `${first ? '\n' : ',\n'}  ${JSON.stringify(record(labels, values))}`;
          first = false;
          return line;
        },
        end: () => (first ? ']\n' : '\n]\n'),
      };
    case 'markdown':
      return {
        start: (names) =>
          `| ${names.map(markdownCell).join(' | ')} |\n|${names.map(() => ' --- |').join('')}\n`,
        row: (values) => `| ${values.map(markdownCell).join(' | ')} |\n`,
        end: () => '',
      };
  }
}

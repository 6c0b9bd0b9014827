import type { Report, ReportError, Task } from '@data/core';
import type { Palette } from '@data/core';
import { visibleDeep } from '@data/core';
import { counted, grouped } from '@data/core';

const MAX_ROW_TEXT = 120;

function where(error: ReportError): string {
  const parts: string[] = [];
  if (error.rowNumber !== undefined) parts.push(`row ${String(error.rowNumber)}`);
  if (error.fieldNumber !== undefined) {
    parts.push(
      error.fieldName
        ? `field "${error.fieldName}" (${String(error.fieldNumber)})`
        : `field ${String(error.fieldNumber)}`,
    );
  }
  return parts.join(', ');
}

/**
 * A row once, with every offending cell of the errors about it marked, cut to a readable
 * width after the last marked cell.
 */
function rowPreview(errors: ReportError[], colors: Palette): string | undefined {
  const cells = errors.find((error) => error.cells)?.cells;
  const marked = new Set(
    errors
      .filter((error) => error.tags.includes('#cell') && error.fieldNumber !== undefined)
      .map((error) => (error.fieldNumber ?? 0) - 1),
  );
  if (!cells || marked.size === 0) return undefined;
  const last = Math.max(...marked);
  let length = 0;
  const shown: string[] = [];
  for (const [position, cell] of cells.entries()) {
    const text = cell.length > 40 ? `${cell.slice(0, 37)}...` : cell;
    length += text.length + 2;
    if (length > MAX_ROW_TEXT && position > last) {
      shown.push('...');
      break;
    }
    shown.push(marked.has(position) ? colors.red(colors.bold(`[${text}]`)) : text);
  }
  if (last >= cells.length) shown.push(colors.red(colors.bold('[ ]')));
  return shown.join(', ');
}

/** The error limit a resource stopped at, if it did. */
function limitReached(task: Task): number | undefined {
  for (const warning of task.warnings) {
    const limit = /^reached error limit: (\d+)$/.exec(warning)?.[1];
    if (limit) return Number(limit);
  }
  return undefined;
}

function verdict(report: Report, colors: Palette): string {
  const seconds = `${report.stats.seconds.toFixed(2)} s`;
  const rows = report.tasks.reduce((sum, task) => sum + (task.stats.rows ?? 0), 0);
  if (report.valid) {
    return colors.green(
      `✔ valid: ${counted(report.tasks.length, 'resource')}, ${counted(rows, 'row')} checked (${seconds})`,
    );
  }
  const failing = report.tasks.filter((task) => !task.valid).length;
  const scope =
    report.tasks.length > 0
      ? ` in ${String(failing)} of ${counted(report.tasks.length, 'resource')}`
      : ' in the descriptor';
  const stopped = report.tasks.some((task) => limitReached(task) !== undefined);
  const count = `${stopped ? 'at least ' : ''}${counted(report.stats.errors, 'error')}`;
  const limit = stopped ? '; stopped at the error limit (--limit-errors 0 shows every error)' : '';
  return colors.red(`✖ invalid: ${count}${scope} (${seconds})${limit}`);
}

function taskHeading(task: Task, colors: Palette): string {
  const summary = task.valid
    ? colors.green('✔')
    : colors.red(`✖ ${counted(task.errors.length, 'error')}`);
  const rows = task.stats.rows !== undefined ? `, ${counted(task.stats.rows, 'row')}` : '';
  return `${colors.bold(task.name)}  ${colors.dim(`${task.place} (${task.type}${rows})`)}  ${summary}`;
}

function errorLines(error: ReportError, colors: Palette): string[] {
  const place = where(error);
  return [
    `  ${colors.red(error.type)}${place ? `  ${colors.cyan(place)}` : ''}`,
    `    ${error.message}`,
  ];
}

/** Errors in order, those about one row together, with the row shown once after them. */
function groupedErrorLines(errors: readonly ReportError[], colors: Palette): string[] {
  const lines: string[] = [];
  for (let start = 0; start < errors.length;) {
    const row = errors[start]?.rowNumber;
    let end = start + 1;
    while (row !== undefined && end < errors.length && errors[end]?.rowNumber === row) end++;
    const group = errors.slice(start, end);
    for (const error of group) lines.push(...errorLines(error, colors));
    const preview = rowPreview(group, colors);
    if (preview) lines.push(`    ${colors.dim('│')} ${preview}`);
    start = end;
  }
  return lines;
}

/** The most frequent values, most first: `type-error 950, missing-cell 50`. */
function tally(values: string[], most = 8): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  const shown = sorted.slice(0, most).map(([value, count]) => `${value} ${grouped(count)}`);
  if (sorted.length > most) shown.push(`${grouped(sorted.length - most)} more`);
  return shown.join(', ');
}

/** Where many errors are: by type and by field, and which resources stopped at the limit. */
function summaryLines(report: Report, colors: Palette): string[] {
  const errors = [...report.errors, ...report.tasks.flatMap((task) => task.errors)];
  const lines: string[] = [];
  if (errors.length > 10) {
    lines.push(colors.bold('Summary'));
    lines.push(`  by type:  ${tally(errors.map((error) => error.type))}`);
    const fields = errors.flatMap((error) =>
      error.fieldName !== undefined ? [error.fieldName] : [],
    );
    if (fields.length > 0) lines.push(`  by field: ${tally(fields)}`);
  }
  for (const task of report.tasks) {
    const limit = limitReached(task);
    if (limit !== undefined)
      lines.push(
        colors.yellow(
          `  ${task.name}: stopped after ${counted(limit, 'error')}, the error limit; more may follow (--limit-errors 0 shows them all)`,
        ),
      );
  }
  return lines.length > 0 ? [...lines, ''] : [];
}

/** The report for a person at a terminal: grouped by resource, one verdict at the end. */
export function renderHuman(shown: Report, colors: Palette): string {
  const report = visibleDeep(shown);
  const lines: string[] = report.warnings.map((warning) => `${colors.yellow('!')} ${warning}`);
  if (report.errors.length > 0) {
    lines.push(
      colors.bold('datapackage.json') +
        '  ' +
        colors.red(`✖ ${counted(report.errors.length, 'error')}`),
    );
    lines.push(...groupedErrorLines(report.errors, colors));
    lines.push('');
  }
  for (const task of report.tasks) {
    lines.push(taskHeading(task, colors));
    for (const warning of task.warnings) lines.push(`  ${colors.yellow('!')} ${warning}`);
    lines.push(...groupedErrorLines(task.errors, colors));
    if (!task.valid) lines.push('');
  }
  lines.push(...summaryLines(report, colors));
  lines.push(verdict(report, colors));
  return `${lines.join('\n')}\n`;
}

/** One tab-separated line per error (resource, row, field, type, message), then the verdict. */
export function renderPlain(shown: Report, colors: Palette): string {
  const report = visibleDeep(shown);
  const lines: string[] = report.warnings.map((warning) =>
    ['', '', '', 'warning', warning].join('\t'),
  );
  const line = (resource: string, error: ReportError): string =>
    [
      resource,
      error.rowNumber ?? '',
      error.fieldName ?? error.fieldNumber ?? '',
      error.type,
      error.message,
    ].join('\t');
  for (const error of report.errors) lines.push(line('', error));
  for (const task of report.tasks) {
    for (const warning of task.warnings)
      lines.push([task.name, '', '', 'warning', warning].join('\t'));
    for (const error of task.errors) lines.push(line(task.name, error));
  }
  lines.push(verdict(report, colors));
  return `${lines.join('\n')}\n`;
}

function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** GitHub Actions workflow commands: one annotation per error, on the file it belongs to. */
export function renderGithub(
  shown: Report,
  descriptorFile: string,
  fileOf: (task: Task) => string,
): string {
  const report = visibleDeep(shown);
  const lines: string[] = [];
  const annotate = (file: string, error: ReportError): string => {
    const props = [`file=${escapeProperty(file)}`];
    // A header error is on the header's (first) line.
    const line = error.rowNumber ?? error.rowNumbers?.[0];
    if (line !== undefined) props.push(`line=${String(line)}`);
    if (error.fieldNumber !== undefined) props.push(`col=${String(error.fieldNumber)}`);
    props.push(`title=${escapeProperty(error.title)}`);
    return `::error ${props.join(',')}::${escapeData(error.message)}`;
  };
  for (const warning of report.warnings)
    lines.push(`::warning file=${escapeProperty(descriptorFile)}::${escapeData(warning)}`);
  for (const error of report.errors) lines.push(annotate(descriptorFile, error));
  for (const task of report.tasks) {
    for (const warning of task.warnings)
      lines.push(`::warning file=${escapeProperty(fileOf(task))}::${escapeData(warning)}`);
    for (const error of task.errors) lines.push(annotate(fileOf(task), error));
  }
  return `${lines.join('\n')}${lines.length > 0 ? '\n' : ''}`;
}

export { verdict };

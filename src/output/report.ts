import type { Report, ReportError, Task } from '../validator/report/types.js';
import type { Palette } from './colors.js';

const MAX_ROW_TEXT = 120;

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

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

/** The offending row, with the offending cell marked, cut to a readable width. */
function rowPreview(error: ReportError, colors: Palette): string | undefined {
  if (!error.cells || error.fieldNumber === undefined || !error.tags.includes('#cell'))
    return undefined;
  const index = error.fieldNumber - 1;
  let length = 0;
  const shown: string[] = [];
  for (const [position, cell] of error.cells.entries()) {
    const text = cell.length > 40 ? `${cell.slice(0, 37)}...` : cell;
    length += text.length + 2;
    if (length > MAX_ROW_TEXT && position > index) {
      shown.push('...');
      break;
    }
    shown.push(position === index ? colors.red(colors.bold(`[${text}]`)) : text);
  }
  if (index >= error.cells.length) shown.push(colors.red(colors.bold('[ ]')));
  return shown.join(', ');
}

function verdict(report: Report, colors: Palette): string {
  const seconds = `${report.stats.seconds.toFixed(2)} s`;
  const rows = report.tasks.reduce((sum, task) => sum + (task.stats.rows ?? 0), 0);
  if (report.valid) {
    return colors.green(
      `✔ valid: ${plural(report.tasks.length, 'resource')}, ${plural(rows, 'row')} checked (${seconds})`,
    );
  }
  const failing = report.tasks.filter((task) => !task.valid).length;
  const scope =
    report.tasks.length > 0
      ? ` in ${String(failing)} of ${plural(report.tasks.length, 'resource')}`
      : ' in the descriptor';
  return colors.red(`✖ invalid: ${plural(report.stats.errors, 'error')}${scope} (${seconds})`);
}

function taskHeading(task: Task, colors: Palette): string {
  const summary = task.valid
    ? colors.green('✔')
    : colors.red(`✖ ${plural(task.errors.length, 'error')}`);
  const rows = task.stats.rows !== undefined ? `, ${plural(task.stats.rows, 'row')}` : '';
  return `${colors.bold(task.name)}  ${colors.dim(`${task.place} (${task.type}${rows})`)}  ${summary}`;
}

function errorLines(error: ReportError, colors: Palette): string[] {
  const place = where(error);
  const lines = [
    `  ${colors.red(error.type)}${place ? `  ${colors.cyan(place)}` : ''}`,
    `    ${error.message}`,
  ];
  const preview = rowPreview(error, colors);
  if (preview) lines.push(`    ${colors.dim('│')} ${preview}`);
  return lines;
}

/** The report for a person at a terminal: grouped by resource, one verdict at the end. */
export function renderHuman(report: Report, colors: Palette): string {
  const lines: string[] = [];
  if (report.errors.length > 0) {
    lines.push(
      colors.bold('datapackage.json') +
        '  ' +
        colors.red(`✖ ${plural(report.errors.length, 'error')}`),
    );
    for (const error of report.errors) lines.push(...errorLines(error, colors));
    lines.push('');
  }
  for (const task of report.tasks) {
    lines.push(taskHeading(task, colors));
    for (const warning of task.warnings) lines.push(`  ${colors.yellow('!')} ${warning}`);
    for (const error of task.errors) lines.push(...errorLines(error, colors));
    if (!task.valid) lines.push('');
  }
  lines.push(verdict(report, colors));
  return `${lines.join('\n')}\n`;
}

/** One tab-separated line per error (resource, row, field, type, message), then the verdict. */
export function renderPlain(report: Report, colors: Palette): string {
  const lines: string[] = [];
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
  report: Report,
  descriptorFile: string,
  fileOf: (task: Task) => string,
): string {
  const lines: string[] = [];
  const annotate = (file: string, error: ReportError): string => {
    const props = [`file=${escapeProperty(file)}`];
    if (error.rowNumber !== undefined) props.push(`line=${String(error.rowNumber)}`);
    if (error.fieldNumber !== undefined) props.push(`col=${String(error.fieldNumber)}`);
    props.push(`title=${escapeProperty(error.title)}`);
    return `::error ${props.join(',')}::${escapeData(error.message)}`;
  };
  for (const error of report.errors) lines.push(annotate(descriptorFile, error));
  for (const task of report.tasks) {
    for (const warning of task.warnings)
      lines.push(`::warning file=${escapeProperty(fileOf(task))}::${escapeData(warning)}`);
    for (const error of task.errors) lines.push(annotate(fileOf(task), error));
  }
  return `${lines.join('\n')}${lines.length > 0 ? '\n' : ''}`;
}

export { verdict };

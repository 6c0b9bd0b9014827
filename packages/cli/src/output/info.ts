import type { DatasetInfo, ResourceInfo } from '../client/info.js';
import type { Palette } from '@data/core';
import { displayWidth, graphemes } from './width.js';
import { humanBytes } from './units.js';
import { visibleDeep } from '@data/core';
import { counted, noun } from '@data/core';

const CELL_WIDTH = 24;

/**
 * Text cut to `width` terminal columns, ending in "…" when cut: by whole graphemes (an emoji
 * of several code points, a letter and its accents) and their display width, where an
 * emoji or a CJK character takes two columns.
 */
function cut(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes(text)) {
    const next = displayWidth(segment);
    if (used + next > width - 1) break;
    kept += segment;
    used += next;
  }
  return `${kept}…`;
}

/** A cell padded with spaces to `width` columns, by its display width (colours not counted). */
function padded(cell: string, width: number): string {
  return cell + ' '.repeat(Math.max(0, width - displayWidth(cell)));
}

/** A dataset's description keeps its line breaks; every other text is shown on its line. */
const LAYOUT = new Set(['description']);

/**
 * Rows as columns padded to a common width, each cell cut to CELL_WIDTH: every table the CLI
 * prints on a terminal. Widths are display widths (output/width.ts), not code units.
 */
export function alignedTable(rows: string[][], colors: Palette, indent = '  '): string[] {
  const cells = rows.map((row) => row.map((cell) => cut(cell.replace(/\s+/g, ' '), CELL_WIDTH)));
  const widths: number[] = [];
  for (const row of cells)
    for (const [index, cell] of row.entries())
      widths[index] = Math.max(widths[index] ?? 0, displayWidth(cell));
  return cells.map((row, number) => {
    const line = row
      .map((cell, index) => padded(cell, widths[index] ?? 0))
      .join('  ')
      .trimEnd();
    return `${indent}${number === 0 ? colors.bold(line) : line}`;
  });
}

function resourceHeading(resource: ResourceInfo, colors: Palette): string {
  const facts = [
    resource.format || '?',
    resource.bytes !== undefined ? humanBytes(resource.bytes) : undefined,
    resource.rows !== undefined ? counted(resource.rows, 'row') : undefined,
    resource.source,
  ].filter((fact): fact is string => fact !== undefined && fact !== '');
  return `${colors.cyan(resource.name)}  ${colors.dim(facts.join(' · '))}`;
}

function schemaLines(resource: ResourceInfo, colors: Palette): string[] {
  if (!resource.fields) return [];
  const described = resource.fields.some((field) => field.description);
  const rows = resource.fields.map((field) => [
    field.name,
    field.format ? `${field.type} (${field.format})` : field.type,
    ...(described ? [field.description ?? ''] : []),
  ]);
  const header = ['field', 'type', ...(described ? ['description'] : [])];
  return ['  schema', ...alignedTable([header, ...rows], colors, '    ')];
}

/**
 * A preview with every column headed: a blank label, or a column past the header row's
 * end, is headed by the name a schema inferred from the table gives it (`field2`).
 */
function headed(preview: string[][]): string[][] {
  const [labels = [], ...rows] = preview;
  const width = Math.max(labels.length, ...rows.map((row) => row.length));
  const heading = Array.from({ length: width }, (_, index) =>
    labels[index]?.trim() ? (labels[index] ?? '') : `field${String(index + 1)}`,
  );
  return [heading, ...rows];
}

/** A dataset for a person at a terminal: facts, schema and an aligned preview per resource. */
export function renderInfo(shown: DatasetInfo, fallbackName: string, colors: Palette): string {
  const info = visibleDeep(shown, LAYOUT);
  const lines = [colors.bold(info.title ?? info.name ?? fallbackName)];
  if (info.description) lines.push(info.description);
  const facts = [
    info.name ? `name ${info.name}` : undefined,
    info.version ? `version ${info.version}` : undefined,
    info.licenses.length > 0 ? `licence ${info.licenses.join(', ')}` : 'no licence given',
  ].filter((fact): fact is string => fact !== undefined);
  lines.push(colors.dim(facts.join(' · ')), '');
  for (const resource of info.resources) {
    lines.push(resourceHeading(resource, colors));
    lines.push(...schemaLines(resource, colors));
    if (resource.preview && resource.preview.length > 0) {
      if (resource.fields) lines.push('  preview');
      lines.push(
        ...alignedTable(headed(resource.preview), colors, resource.fields ? '    ' : '  '),
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** A count for a script to read: its digits as they are, no separator. */
const plainCount = (count: number, one: string) => `${String(count)} ${noun(count, one)}`;

/** The same for a pipe: plain lines, tab-separated rows, sizes in bytes. */
export function renderInfoPlain(shown: DatasetInfo, fallbackName: string): string {
  const info = visibleDeep(shown, LAYOUT);
  const lines = [info.title ?? info.name ?? fallbackName];
  if (info.description) lines.push(info.description);
  if (info.licenses.length > 0) lines.push(`licence\t${info.licenses.join(', ')}`);
  lines.push('');
  for (const resource of info.resources) {
    const size = resource.bytes !== undefined ? plainCount(resource.bytes, 'byte') : 'size unknown';
    const rows = resource.rows !== undefined ? `, ${plainCount(resource.rows, 'row')}` : '';
    lines.push(`${resource.name}  ${resource.format || '?'}  ${size}${rows}`);
    for (const field of resource.fields ?? [])
      lines.push(
        `  field\t${field.name}\t${field.type}${field.description ? `\t${field.description}` : ''}`,
      );
    for (const row of resource.preview ?? []) lines.push(`  ${row.join('\t')}`);
    lines.push('');
  }
  return lines.join('\n');
}

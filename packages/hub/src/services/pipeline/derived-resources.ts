import { join } from 'node:path';
import {
  bomOf,
  DERIVED_COPIES,
  type DerivedCopy,
  derivedFile,
  type DerivedTable,
  fileHead,
  formatOf,
  inferResourceSchema,
  localPaths,
  noteContentFormat,
  PREVIEW_ROWS,
  type Resource,
  SAMPLE_BYTES,
  textReading,
  typedField,
  writtenFromValue,
} from '@data/core';
import type { FieldDescriptor, Report, SchemaDescriptor } from '@data/core';
import { DERIVED_FOLDER } from '../../engines/storage/types.js';

/** Dialect properties a CSV copy writes as they are, and the values it writes. */
const NORMAL_DIALECT: Record<string, (value: unknown) => boolean> = {
  delimiter: (value) => value === ',',
  quoteChar: (value) => value === '"',
  doubleQuote: (value) => value === true,
  skipInitialSpace: (value) => value === false,
  header: (value) => value === true,
  headerRows: (value) => Array.isArray(value) && value.length === 1 && value[0] === 1,
  lineTerminator: (value) => value === '\n' || value === '\r\n',
  // Neither changes the bytes: a copy writes cells as they are written.
  caseSensitiveHeader: () => true,
  nullSequence: () => true,
  csvddfVersion: () => true,
};

/** Formats read as delimited text, whose dialect is read from their first bytes. */
const TEXT_TABLES = new Set(['csv', 'tsv', 'txt']);

/** Whether missing values are the empty cell only, as the copy writes them. */
function emptyIsMissing(values: unknown): boolean {
  return values === undefined || (Array.isArray(values) && values.length === 1 && values[0] === '');
}

/**
 * Whether the CSV copy writes a table's every cell as it is written: no date-time or time,
 * no value written by a format, decimal comma, grouped digits or other true and false words,
 * and only the empty cell missing (derive.ts, csvWriters).
 */
function writtenAsCopied(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { fields, missingValues } = schema as SchemaDescriptor;
  if (!Array.isArray(fields) || !emptyIsMissing(missingValues)) return false;
  return fields.every(
    (field) => emptyIsMissing(field.missingValues) && !writtenFromValue(field, typedField(field)),
  );
}

/**
 * Whether a table's original is already the CSV copy the hub would write (UTF-8 without a
 * byte order mark, comma, double quote, one header row of the field names in order, no
 * comments, every value in its type's one form): then it is served as its own copy, and no
 * copy is made. Cells quoted where the copy would not quote them, and `\r\n` line ends,
 * read the same. Its format, encoding and dialect are told as validation tells them
 * (validator/reading.ts): by its bytes before its name, so that a workbook named `.csv` is no
 * CSV and a `.txt` file of comma-separated values is one.
 */
export async function isNormalFormCsv(resource: Resource, workDir: string): Promise<boolean> {
  const paths = localPaths(resource);
  const path = paths[0];
  if (paths.length !== 1 || !path || Array.isArray(resource.path)) return false;
  const described = { ...resource };
  await noteContentFormat(described, { dir: workDir });
  const format = formatOf(described);
  if (format === undefined || !TEXT_TABLES.has(format)) return false;
  const dialect = resource.dialect ?? {};
  if (typeof dialect !== 'object' || dialect === null) return false;
  for (const [key, value] of Object.entries(dialect))
    if (!NORMAL_DIALECT[key]?.(value)) return false;
  const schema = resource.schema as { fieldsMatch?: unknown } | undefined;
  if (schema?.fieldsMatch !== undefined && schema.fieldsMatch !== 'exact') return false;
  // A table with no schema is read by the one validation infers, as its copies are.
  if (!writtenAsCopied(schema ?? (await inferResourceSchema(described, workDir)))) return false;
  const head = await fileHead(join(workDir, path), SAMPLE_BYTES);
  if (bomOf(head)) return false;
  const reading = await textReading(head, format, {
    encoding: resource.encoding,
    dialect: resource.dialect,
  });
  return reading.encoding === 'utf-8' && reading.delimiter === ',' && reading.quoteChar === '"';
}

/** What the hub knows of a table's copies as it publishes it. */
export interface TableCopiesInfo {
  table: DerivedTable;
  /** Where the preview is stored, beside the descriptor, with its size and MD5 (hex). */
  preview: { path: string; bytes: number; md5: string };
  /** The original, when it is its own CSV copy: its object key, size and MD5 (hex). */
  sameAsOriginal?: { key: string; bytes: number; md5: string } | undefined;
}

/** The rows of a table as its validation counted them. */
function rowsOf(report: Report | undefined, name: string): number | undefined {
  return report?.tasks.find((task) => task.name === name)?.stats.rows;
}

/**
 * The derived resources of a table, named `names` (core's derivedNames: as the original
 * service named them, `<name>_csv`, `<name>_json`, `<name>_csv_preview`, unless a resource
 * has that name), each saying which resource it comes from. A copy made when first asked
 * for has no `bytes` or `hash` here: they are not known until then.
 */
export function derivedResources(
  info: TableCopiesInfo,
  source: Resource,
  names: Record<DerivedCopy['type'], string>,
  report: Report | undefined,
): Resource[] {
  const { table } = info;
  const rows = rowsOf(report, table.name) ?? table.rows;
  const made: Resource[] = [];
  for (const copy of DERIVED_COPIES) {
    const name = names[copy.type];
    const known =
      copy.type === 'derived/preview'
        ? info.preview
        : copy.type === 'derived/csv'
          ? info.sameAsOriginal
          : undefined;
    made.push({
      name,
      path: copy.type === 'derived/preview' ? info.preview.path : copyPath(name, copy.format),
      format: copy.format,
      mediatype: copy.mediatype,
      ...(copy.format === 'parquet' ? {} : { encoding: 'utf-8' }),
      ...(known ? { bytes: known.bytes, hash: known.md5 } : {}),
      ...(copy.format !== 'json' && source.schema !== undefined
        ? { schema: typedSchema(source.schema) }
        : {}),
      datahub: {
        type: copy.type,
        derivedFrom: [table.name],
        rows: copy.type === 'derived/preview' ? Math.min(rows, PREVIEW_ROWS) : rows,
      },
    });
  }
  return made;
}

/**
 * The schema of a table's CSV and Parquet copies: its fields, keys and constraints, without
 * what says how typed values were written as text (the copies write each value in its
 * type's one form, or store it typed) and without missing values (a missing value is an
 * empty cell, or null). Types the copies keep as written keep all of it.
 */
function typedSchema(schema: Resource['schema']): Resource['schema'] {
  // A descriptor's JSON may say null where its type says it cannot: kept as it is.
  if (typeof schema !== 'object' || schema === null) return schema;
  const { missingValues: _missing, ...rest } = schema;
  const fields: FieldDescriptor[] = Array.isArray(rest.fields) ? rest.fields : [];
  return { ...rest, fields: fields.map(typedField) };
}

/** The path of the derived resource named `name` in its revision (core's derivedFile). */
export function copyPath(name: string, format: string): string {
  return `${DERIVED_FOLDER}${derivedFile(name, format)}`;
}

/** The zip of the whole revision, named `name` (`<dataset>_zip`), made when first asked for. */
export function zipResource(name: string): Resource {
  return {
    name,
    path: copyPath(name, 'zip'),
    format: 'zip',
    mediatype: 'application/zip',
    datahub: { type: 'derived/zip' },
  };
}

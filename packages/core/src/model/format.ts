import { resourcePaths } from './paths.js';

/** What the format rule reads of a resource: a typed Resource, or any descriptor object. */
export interface FormatSource {
  readonly format?: unknown;
  readonly mediatype?: unknown;
  readonly path?: unknown;
}

/** Media types that name a format (their parameters, `; charset=…`, aside). */
const MEDIA_FORMATS: Readonly<Record<string, string>> = {
  'text/csv': 'csv',
  'text/tab-separated-values': 'tsv',
};

const TABLE_FORMATS = new Set(['csv', 'tsv', 'txt', 'xlsx', 'xlsm', 'xls', 'ods', 'parquet']);

/** Whether a format is one that core reads as a table. */
export function isTableFormat(format: string): boolean {
  return TABLE_FORMATS.has(format);
}

/** Resources whose one local file's bytes told their format (see noteFormat). */
const formatByContent = new WeakMap<object, string>();

/**
 * Notes the format a resource's bytes say it is in (an .xlsx saved as .csv): formatOf then
 * gives it unless the resource declares its format. Only validator/resource.ts's
 * noteContentFormat, which reads the bytes, calls it.
 */
export function noteFormat(resource: object, format: string): void {
  formatByContent.set(resource, format);
}

/** The extension of a path or URL's last segment, lower case, without its dot. */
export function extensionOf(path: string): string | undefined {
  return /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
}

/**
 * THE format rule, for every reader of a resource (validate, info, get, publish, the hub's
 * pipeline and copies): the declared `format`, in lower case; else what the resource's bytes
 * said, when a reader noted it (noteFormat); else its `mediatype`; else the extension of its
 * (first) path. Undefined when none tells.
 */
export function formatOf(resource: FormatSource): string | undefined {
  const { format, mediatype } = resource;
  if (typeof format === 'string' && format !== '') return format.toLowerCase();
  const byContent = formatByContent.get(resource);
  if (byContent) return byContent;
  if (typeof mediatype === 'string') {
    const named = MEDIA_FORMATS[mediatype.split(';')[0]?.trim().toLowerCase() ?? ''];
    if (named) return named;
  }
  const first = resourcePaths(resource)[0];
  return first === undefined ? undefined : extensionOf(first);
}

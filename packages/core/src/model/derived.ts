/**
 * The resources a hub derives from each table and from the whole dataset, as the original
 * DataHub service named them: `<name>_csv`, `<name>_json`, `<name>_csv_preview`,
 * `<name>_parquet` (ours) and `<dataset>_zip`, each marked `"datahub": {"type": "derived/…"}`.
 */
export const DERIVED_COPIES = [
  { suffix: 'csv', format: 'csv', type: 'derived/csv', mediatype: 'text/csv' },
  { suffix: 'json', format: 'json', type: 'derived/json', mediatype: 'application/json' },
  { suffix: 'csv_preview', format: 'json', type: 'derived/preview', mediatype: 'application/json' },
  {
    suffix: 'parquet',
    format: 'parquet',
    type: 'derived/parquet',
    mediatype: 'application/vnd.apache.parquet',
  },
] as const;

export type DerivedCopy = (typeof DERIVED_COPIES)[number];
export type DerivedType = DerivedCopy['type'] | 'derived/zip';

/** The name of a table's copy: `<table>_csv`, `<table>_csv_preview`… */
export function derivedName(table: string, copy: Pick<DerivedCopy, 'suffix'>): string {
  return `${table}_${copy.suffix}`;
}

/**
 * Where a derived resource named `name` is kept, relative to its folder: `<name>.<format>`,
 * its name's `/` making folders, as `cities/2024_csv.csv`. A name is unique in a package, so
 * this file is too. A name that would not be kept as itself, because one of its parts is
 * empty, begins with `.` (`..`, a hidden file) or holds other characters than letters,
 * digits, `-`, `_` and `.` (`a/../t`, which would be `t`'s file; a Data Package v2 name with
 * spaces), is written `~` and then each of its UTF-8 bytes, all but letters, digits, `-` and
 * `_` as `~XX`: one file name, no folder, that no name kept as itself has (none holds a `~`)
 * and no other name gives.
 */
export function derivedFile(name: string, format: string): string {
  const parts = name.split('/');
  const plain = parts.every((part) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(part));
  return `${plain ? name : escapedName(name)}.${format}`;
}

function escapedName(name: string): string {
  let written = '~';
  for (const byte of new TextEncoder().encode(name))
    written += /[A-Za-z0-9_-]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return written;
}

/** The name of the zip of a whole dataset: `<dataset>_zip`. */
export function zipName(dataset: string): string {
  return `${dataset}_zip`;
}

/**
 * A resource a hub derived from another (`"datahub": {"type": "derived/csv"}` and the like):
 * a copy in another format, made anew by the hub at each publication.
 */
export function isDerived(resource: unknown): boolean {
  const type = (resource as { datahub?: { type?: unknown } } | null)?.datahub?.type;
  return typeof type === 'string' && type.startsWith('derived/');
}

/**
 * The resource a hub derived of type `type` (`derived/csv`, `derived/zip`…), from the
 * resource named `source` when given.
 */
export function derivedOf<R extends object>(
  resources: readonly R[],
  type: string,
  source?: unknown,
): R | undefined {
  return resources.find((candidate) => {
    const { datahub } = candidate as { datahub?: { type?: unknown; derivedFrom?: unknown } };
    if (datahub?.type !== type) return false;
    return (
      source === undefined ||
      (Array.isArray(datahub.derivedFrom) && datahub.derivedFrom[0] === source)
    );
  });
}

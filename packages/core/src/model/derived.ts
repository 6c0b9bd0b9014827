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

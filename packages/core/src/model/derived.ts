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

/** The name of a table's copy as the original service named it: `<table>_csv`… */
export function derivedName(table: string, copy: Pick<DerivedCopy, 'suffix'>): string {
  return `${table}_${copy.suffix}`;
}

/**
 * The name a derived resource takes in a package whose resources (its own, and those derived
 * before) are named `taken`: `wanted` (`t_csv`, as clients of the original service expect)
 * when no resource has it, else the first of `wanted_2`, `wanted_3`… that none has, so that
 * a copy of `t` never takes a table `t_csv`'s name, nor is left out for it. The name is added
 * to `taken`. Readers find a copy by its `datahub` type and `derivedFrom`, never by its name.
 */
export function unusedName(wanted: string, taken: Set<string>): string {
  let name = wanted;
  for (let count = 2; taken.has(name); count++) name = `${wanted}_${String(count)}`;
  taken.add(name);
  return name;
}

/**
 * The names of a table's copies in a package whose resources are named `taken` (each added
 * to it), by their type: `derivedName`'s where free, else `unusedName`'s.
 */
export function derivedNames(
  table: string,
  taken: Set<string>,
): Record<DerivedCopy['type'], string> {
  const names = {} as Record<DerivedCopy['type'], string>;
  for (const copy of DERIVED_COPIES) names[copy.type] = unusedName(derivedName(table, copy), taken);
  return names;
}

/**
 * Where a derived resource named `name` is kept, relative to its folder: `<name>.<format>`,
 * its name's `/` making folders, as `cities/2024_csv.csv`. A name is unique in a package, so
 * this file is too. A name that would not be kept as itself, because one of its parts is
 * empty, begins with `.` (`..`, a hidden file) or holds other characters than letters,
 * digits, `-`, `_` and `.` (`a/../t`, which would be `t`'s file; a Data Package v2 name with
 * spaces), is written `~` and then each of its UTF-8 bytes, all but letters, digits, `-` and
 * `_` as `~XX`: one file name, no folder, that no name kept as itself has (none holds a `~`)
 * and no other name gives. A file or folder name longer than FILE_NAME_BYTES (a name of 250
 * letters, or of 90 `.` written as 271 characters, where file systems stop at 255 bytes) is
 * written instead as one file `~~h<SHA-256 of the name, hex>~<the first 64 characters of
 * the name written as above>`: no name kept as itself has a `~`, and no escaped name begins
 * `~~` and a small letter (a `~` after its first is followed by two capital hex digits);
 * the hash tells it from every other long name.
 */
export function derivedFile(name: string, format: string): string {
  const parts = name.split('/');
  const plain = parts.every((part) => /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(part));
  const written = `${plain ? name : escapedName(name)}.${format}`;
  if (written.split('/').every((part) => part.length <= FILE_NAME_BYTES)) return written;
  const hash = process.getBuiltinModule('node:crypto').createHash('sha256').update(name);
  return `~~h${hash.digest('hex')}~${escapedName(name).slice(1, 65)}.${format}`;
}

/**
 * The longest file or folder name derivedFile writes as the name itself, in bytes (its
 * names are ASCII): below the 255 of ext4, APFS and NTFS, with room for a suffix.
 */
export const FILE_NAME_BYTES = 200;

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

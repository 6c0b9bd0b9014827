import { reportError } from '../report/errors.js';
import type { ReportError } from '../report/types.js';
import type { SchemaDescriptor } from '../descriptor/types.js';

export type FieldsMatch = NonNullable<SchemaDescriptor['fieldsMatch']>;

/** Where each schema field is found in a record, and the header's problems. */
export interface ColumnMap {
  /** Record index of each field, -1 when the header lacks it. */
  columns: number[];
  /** 1-based position reported for each field. */
  fieldNumbers: number[];
  /** How many cells a row should have. */
  width: number;
  errors: ReportError[];
  /** True when validation cannot go on (duplicate labels under name matching). */
  fatal: boolean;
}

export function positionalMap(fieldCount: number): ColumnMap {
  const columns = Array.from({ length: fieldCount }, (_, index) => index);
  return {
    columns,
    fieldNumbers: columns.map((index) => index + 1),
    width: fieldCount,
    errors: [],
    fatal: false,
  };
}

function normalize(label: string): string {
  return label.replace(/\r?\n/g, ' ').trim();
}

export function mapHeader(
  labels: string[],
  rowNumbers: number[],
  names: string[],
  mode: FieldsMatch,
  requiredNames: ReadonlySet<string>,
): ColumnMap {
  const header = { labels, rowNumbers };
  return mode === 'exact'
    ? exactMap(labels, names, header)
    : namedMap(labels, names, mode, requiredNames, header);
}

type HeaderInfo = { labels: string[]; rowNumbers: number[] };

function exactMap(labels: string[], names: string[], header: HeaderInfo): ColumnMap {
  const map = positionalMap(names.length);
  const extra: ReportError[] = [];
  const missing: ReportError[] = [];
  const positional: ReportError[] = [];
  const seen = new Map<string, number[]>();
  const count = Math.max(labels.length, names.length);
  for (let index = 0; index < count; index++) {
    const label = labels[index];
    const name = names[index];
    const fieldNumber = index + 1;
    if (label === undefined) {
      missing.push(
        reportError('missing-label', '', {
          ...header,
          label: '',
          fieldName: name ?? '',
          fieldNumber,
        }),
      );
      continue;
    }
    if (name === undefined) {
      extra.push(reportError('extra-label', '', { ...header, label, fieldName: '', fieldNumber }));
      continue;
    }
    const clean = normalize(label);
    const earlier = seen.get(clean);
    seen.set(clean, [...(earlier ?? []), fieldNumber]);
    const details = { ...header, label, fieldName: name, fieldNumber };
    if (clean === '') positional.push(reportError('blank-label', '', details));
    else if (earlier) {
      const note = `at position "${earlier.join(', ')}"`;
      positional.push(reportError('duplicate-label', note, details));
    } else if (clean !== name) positional.push(reportError('incorrect-label', '', details));
  }
  return { ...map, errors: [...extra, ...missing, ...positional] };
}

function namedMap(
  labels: string[],
  names: string[],
  mode: FieldsMatch,
  requiredNames: ReadonlySet<string>,
  header: HeaderInfo,
): ColumnMap {
  const clean = labels.map(normalize);
  if (new Set(clean).size !== clean.length) {
    const note = `matching fields by name with "fieldsMatch: ${mode}" requires unique labels in the header`;
    return {
      columns: [],
      fieldNumbers: [],
      width: 0,
      errors: [reportError('error', note)],
      fatal: true,
    };
  }
  const errors: ReportError[] = [];
  const known = new Set(names);
  const tolerateExtra = mode === 'subset' || mode === 'partial';
  const tolerateMissing = mode === 'superset' || mode === 'partial';
  clean.forEach((label, index) => {
    if (!known.has(label) && !tolerateExtra) {
      errors.push(
        reportError('extra-label', '', {
          ...header,
          label: labels[index] ?? '',
          fieldName: '',
          fieldNumber: index + 1,
        }),
      );
    }
  });
  const columns = names.map((name) => clean.indexOf(name));
  if (mode === 'partial' && columns.every((column) => column < 0)) {
    errors.push(reportError('unmatched-header', '', header));
  }
  let next = labels.length;
  const fieldNumbers = columns.map((column) => (column >= 0 ? column + 1 : ++next));
  names.forEach((name, index) => {
    if (columns[index] !== -1) return;
    if (tolerateMissing && !requiredNames.has(name)) return;
    errors.push(
      reportError('missing-label', '', {
        ...header,
        label: '',
        fieldName: name,
        fieldNumber: fieldNumbers[index] ?? 0,
      }),
    );
  });
  return { columns, fieldNumbers, width: labels.length, errors, fatal: false };
}

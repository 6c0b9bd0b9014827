import { reportError } from '../report/errors.js';
import type { ReportError } from '../report/types.js';
import { tupleKey } from '../schema/keys.js';
import { INVALID } from '../schema/types/index.js';
import { NumberRowTable, StringRowTable } from './key-tables.js';

/** A set of key tuples read from a referenced resource. */
export interface ForeignKeyCheck {
  fields: number[];
  fieldNames: string[];
  referenceName: string;
  referenceFieldNames: string[];
  lookup: { has(key: string): boolean };
}

interface RowContext {
  rowNumber: number;
  values: readonly unknown[];
  cells: () => string[];
  fieldRaw: (field: number) => string;
}

const isAbsent = (value: unknown): boolean => value === null || value === INVALID;

/** Tracks unique values, primary and unique keys across rows. */
export class KeyTracker {
  private numbers: NumberRowTable | undefined;
  private strings: StringRowTable | undefined;
  /** Tuples and values of other types, as tagged text (so that 1 and "1" differ). */
  private tagged: StringRowTable | undefined;

  constructor(
    readonly fields: number[],
    private readonly skipIfAnyNull: boolean,
    /** Put before the note of a repeated key: names a multi-field unique key. */
    readonly label = '',
  ) {}

  /** The row where this key was seen first, or undefined; null when the key is not checked. */
  check(values: readonly unknown[], rowNumber: number): number | undefined | null {
    const fields = this.fields;
    if (fields.length === 1) {
      const value = values[fields[0] ?? 0];
      if (isAbsent(value)) return null;
      if (typeof value === 'number' && value === value)
        return (this.numbers ??= new NumberRowTable()).firstRowOrAdd(value, rowNumber);
      if (typeof value === 'string')
        return (this.strings ??= new StringRowTable()).firstRowOrAdd(value, rowNumber);
      return (this.tagged ??= new StringRowTable()).firstRowOrAdd(tupleKey([value]), rowNumber);
    }
    const tuple = fields.map((index) => values[index]);
    const absent = tuple.filter(isAbsent).length;
    if (absent === tuple.length || (this.skipIfAnyNull && absent > 0)) return null;
    const key = tupleKey(tuple.map((value) => (value === INVALID ? null : value)));
    return (this.tagged ??= new StringRowTable()).firstRowOrAdd(key, rowNumber);
  }

  /** Bytes the tracker's tables take. */
  get bytes(): number {
    return (this.numbers?.bytes ?? 0) + (this.strings?.bytes ?? 0) + (this.tagged?.bytes ?? 0);
  }
}

/** The error for a primary key that is null (first is null) or seen before at row `first`. */
export function primaryKeyError(
  first: number | null,
  cells: string[],
  rowNumber: number,
): ReportError {
  const note =
    first === null
      ? 'cells composing the primary keys are all "None"'
      : `the same as in row "${String(first)}"`;
  return reportError('primary-key', note, { cells, rowNumber });
}

export function foreignKeyError(check: ForeignKeyCheck, row: RowContext): ReportError | undefined {
  const tuple = check.fields.map((index) => row.values[index]);
  if (tuple.every((value) => value === null) || tuple.includes(INVALID)) return undefined;
  if (check.lookup.has(tupleKey(tuple))) return undefined;
  const fieldCells = check.fields.map((index) => row.fieldRaw(index));
  const note =
    `for "${check.fieldNames.join(', ')}": values "${fieldCells.join(', ')}" not found in the lookup table ` +
    `"${check.referenceName}" as "${check.referenceFieldNames.join(', ')}"`;
  return reportError('foreign-key', note, {
    cells: row.cells(),
    rowNumber: row.rowNumber,
    fieldNames: check.fieldNames,
    fieldCells,
    referenceName: check.referenceName,
    referenceFieldNames: check.referenceFieldNames,
  });
}

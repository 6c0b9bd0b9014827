import type { FieldDescriptor, SchemaDescriptor } from '../descriptor/types.js';
import { casterFor, INVALID } from './types/index.js';

export const INFER_ROWS = 100;

const CANDIDATES = ['integer', 'number', 'boolean', 'date', 'datetime', 'time'] as const;

/**
 * A schema whose field types are the narrowest that every sampled value fits. Its fields
 * are the header's (a longer row is then an extra cell in that row, not a new field); with
 * no header, the first row's.
 */
export function inferSchema(
  labels: readonly string[],
  rows: readonly (readonly unknown[])[],
): SchemaDescriptor {
  const width = labels.length > 0 ? labels.length : (rows[0]?.length ?? 0);
  const fields: FieldDescriptor[] = [];
  for (let column = 0; column < width; column++) {
    const label = labels[column]?.trim();
    const values = rows
      .map((row) => row[column])
      .filter((value) => value !== undefined && value !== null && value !== '');
    fields.push({ name: label || `field${String(column + 1)}`, type: inferType(values) });
  }
  return { fields };
}

function inferType(values: unknown[]): string {
  if (values.length === 0) return 'any';
  for (const type of CANDIDATES) {
    const cast = casterFor({ name: 'probe', type }, 2);
    if (values.every((value) => cast(value) !== INVALID)) return type;
  }
  // A column of text is a string column; one that mixes text with numbers or dates (a
  // spreadsheet's typed cells) is not, and only `any` takes every cell of it.
  return values.every((value) => typeof value === 'string') ? 'string' : 'any';
}

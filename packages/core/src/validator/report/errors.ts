import { ERROR_SPECS, type ErrorType } from './catalog.js';
import type { ErrorDetails, ReportError } from './types.js';

/** Builds a report error the way the reference validator renders it. */
export function reportError(type: ErrorType, note = '', details: ErrorDetails = {}): ReportError {
  const spec = ERROR_SPECS[type];
  const values: Record<string, unknown> = { ...details, note };
  const message = spec.template.replace(/\{(\w+)\}/g, (_, key: string) => scalar(values[key]));
  return {
    type,
    title: spec.title,
    description: spec.description,
    message,
    tags: [...spec.tags],
    note,
    ...details,
  };
}

/** Renders a value the way the reference validator prints constraint values in notes. */
export function pythonRepr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  if (Array.isArray(value)) return `[${value.map(reprItem).join(', ')}]`;
  return scalar(value);
}

function scalar(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value) ?? '';
}

function reprItem(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : pythonRepr(value);
}

import type { FieldDescriptor } from '../../descriptor/types.js';
import { normalizeFormat } from '../../descriptor/field-rules.js';
import { INVALID, type Caster, type SpanCaster } from './invalid.js';
import { fewKeys } from '../few-keys.js';

const FORMATS = new Map<string, RegExp>([
  ['email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/],
  ['uri', /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]+$/],
  ['uuid', /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/],
  ['binary', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/],
]);

/** The pattern a string field's format asks for; none for the default and unknown formats. */
export function stringFormat(field: FieldDescriptor): RegExp | undefined {
  return FORMATS.get(normalizeFormat(field.format));
}

export function stringCaster(field: FieldDescriptor): Caster {
  const format = stringFormat(field);
  if (!format) return (raw) => (typeof raw === 'string' ? raw : INVALID);
  return (raw) => (typeof raw === 'string' && format.test(raw) ? raw : INVALID);
}

const DEFAULT_TRUE = ['true', 'True', 'TRUE', '1'];
const DEFAULT_FALSE = ['false', 'False', 'FALSE', '0'];

function booleanValues(field: FieldDescriptor): Map<string, boolean> {
  const values = new Map<string, boolean>();
  for (const value of field.trueValues ?? DEFAULT_TRUE) values.set(value, true);
  for (const value of field.falseValues ?? DEFAULT_FALSE) values.set(value, false);
  return values;
}

export function booleanCaster(field: FieldDescriptor): Caster {
  const meaning = fewKeys([...booleanValues(field)]);
  return (raw) => {
    if (typeof raw === 'boolean') return raw;
    // A spreadsheet's 1 and 0 (LibreOffice writes its booleans as numbers) read as their text.
    if (typeof raw === 'number') return meaning(String(raw)) ?? INVALID;
    if (typeof raw !== 'string') return INVALID;
    return meaning(raw) ?? INVALID;
  };
}

/** A boolean's text compared where it lies with the few texts of its length. */
export function booleanSpanCaster(field: FieldDescriptor): SpanCaster {
  const byLength: [string, boolean][][] = [];
  for (const entry of booleanValues(field)) (byLength[entry[0].length] ??= []).push(entry);
  return (text, start, end) => {
    const entries = byLength[end - start];
    if (entries === undefined) return undefined;
    for (const [value, meaning] of entries) if (text.startsWith(value, start)) return meaning;
    return undefined;
  };
}

export const anyCaster: Caster = (raw) => raw;

import type { FieldDescriptor } from '../../descriptor/types.js';
import { normalizeFormat } from '../../descriptor/field-rules.js';
import { INVALID, type Caster } from './invalid.js';
import { fewKeys } from '../few-keys.js';

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]+$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  binary: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
};

export function stringCaster(field: FieldDescriptor): Caster {
  const format = FORMATS[normalizeFormat(field.format)];
  if (!format) return (raw) => (typeof raw === 'string' ? raw : INVALID);
  return (raw) => (typeof raw === 'string' && format.test(raw) ? raw : INVALID);
}

const DEFAULT_TRUE = ['true', 'True', 'TRUE', '1'];
const DEFAULT_FALSE = ['false', 'False', 'FALSE', '0'];

export function booleanCaster(field: FieldDescriptor): Caster {
  const values = new Map<string, boolean>();
  for (const value of field.trueValues ?? DEFAULT_TRUE) values.set(value, true);
  for (const value of field.falseValues ?? DEFAULT_FALSE) values.set(value, false);
  const meaning = fewKeys([...values]);
  return (raw) => {
    if (typeof raw === 'boolean') return raw;
    // A spreadsheet's 1 and 0 (LibreOffice writes its booleans as numbers) read as their text.
    if (typeof raw === 'number') return meaning(String(raw)) ?? INVALID;
    if (typeof raw !== 'string') return INVALID;
    return meaning(raw) ?? INVALID;
  };
}

export const anyCaster: Caster = (raw) => raw;

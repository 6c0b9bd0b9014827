import { patternProblem } from '../schema/pattern.js';
import type { FieldDescriptor, StandardVersion } from './types.js';

const ORDERED = ['minimum', 'maximum'];
const EXCLUSIVE = ['exclusiveMinimum', 'exclusiveMaximum'];
const LENGTH = ['minLength', 'maxLength'];
const ALWAYS = ['required', 'unique', 'enum'];

const SUPPORTED: Record<string, string[]> = {
  string: [...LENGTH, 'pattern'],
  number: [...ORDERED, ...EXCLUSIVE],
  integer: [...ORDERED, ...EXCLUSIVE],
  date: [...ORDERED, ...EXCLUSIVE],
  time: [...ORDERED, ...EXCLUSIVE],
  datetime: [...ORDERED, ...EXCLUSIVE],
  year: [...ORDERED, ...EXCLUSIVE],
  yearmonth: [...ORDERED, ...EXCLUSIVE],
  duration: [...ORDERED, ...EXCLUSIVE],
  object: LENGTH,
  array: LENGTH,
  list: LENGTH,
};

const FORMATS: Record<string, RegExp> = {
  string: /^(default|email|uri|binary|uuid)$/,
  geopoint: /^(default|array|object)$/,
  geojson: /^(default|topojson)$/,
};

/** Notes about one field descriptor that a profile cannot express. */
export function fieldRules(field: FieldDescriptor, version: StandardVersion): string[] {
  const notes: string[] = [];
  const type = fieldType(field, version);
  const constraints = field.constraints ?? {};
  for (const name of Object.keys(constraints)) {
    if (ALWAYS.includes(name)) continue;
    const known = SUPPORTED[type] ?? [];
    if (!known.includes(name)) {
      notes.push(
        `constraint "${name}" is not supported by type "${type}" in field "${field.name}"`,
      );
    } else if (version === 1 && EXCLUSIVE.includes(name)) {
      notes.push(`constraint "${name}" needs Table Schema v2 in field "${field.name}"`);
    }
  }
  if ('required' in field) {
    notes.push(`"required" should be set as "constraints.required" in field "${field.name}"`);
  }
  const format = normalizeFormat(field.format);
  const allowed = FORMATS[type];
  if (allowed && !allowed.test(format)) {
    notes.push(`format "${format}" is not supported by type "${type}" in field "${field.name}"`);
  }
  const patternFault =
    typeof constraints.pattern === 'string' ? patternProblem(constraints.pattern) : undefined;
  if (patternFault !== undefined)
    notes.push(`constraint "pattern" of field "${field.name}" ${patternFault}`);
  if (type === 'list' && version === 1) {
    notes.push(`type "list" needs Table Schema v2 in field "${field.name}"`);
  }
  return notes;
}

export function fieldType(field: FieldDescriptor, version: StandardVersion): string {
  return field.type ?? (version === 2 ? 'any' : 'string');
}

export function normalizeFormat(format: string | undefined): string {
  if (!format) return 'default';
  return format.startsWith('fmt:') ? format.slice(4) : format;
}

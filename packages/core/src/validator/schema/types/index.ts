import type { FieldDescriptor, StandardVersion } from '../../descriptor/types.js';
import { fieldType } from '../../descriptor/field-rules.js';
import { INVALID, type Caster, type SpanCaster, type SpanCheck } from './invalid.js';
import {
  integerCaster,
  integerSpanCaster,
  numberCaster,
  numberSpanCaster,
  yearCaster,
  yearmonthCaster,
} from './numeric.js';
import {
  dateCaster,
  dateSpanCaster,
  dateSpanCheck,
  datetimeCaster,
  durationCaster,
  timeCaster,
} from './temporal.js';
import { anyCaster, booleanCaster, booleanSpanCaster, stringCaster, stringFormat } from './text.js';
import {
  arrayCaster,
  geojsonCaster,
  geopointCaster,
  listCaster,
  objectCaster,
} from './structured.js';

export { INVALID, type Caster, type SpanCaster, type SpanCheck };

const FACTORIES: Record<string, (field: FieldDescriptor) => Caster> = {
  string: stringCaster,
  number: numberCaster,
  integer: integerCaster,
  boolean: booleanCaster,
  object: () => objectCaster,
  array: () => arrayCaster,
  date: dateCaster,
  time: timeCaster,
  datetime: datetimeCaster,
  year: () => yearCaster,
  yearmonth: () => yearmonthCaster,
  duration: () => durationCaster,
  geopoint: geopointCaster,
  geojson: geojsonCaster,
  any: () => anyCaster,
};

export function casterFor(field: FieldDescriptor, version: StandardVersion): Caster {
  const type = fieldType(field, version);
  if (type === 'list') {
    const itemType = field.itemType ?? 'string';
    const item = (FACTORIES[itemType] ?? stringCaster)({ name: field.name, type: itemType });
    return listCaster(field, item);
  }
  const factory = FACTORIES[type];
  if (!factory) return () => INVALID;
  return factory(field);
}

const SPAN_FACTORIES: Record<string, (field: FieldDescriptor) => SpanCaster | undefined> = {
  number: numberSpanCaster,
  integer: integerSpanCaster,
  boolean: booleanSpanCaster,
  date: dateSpanCaster,
};

/** The caster reading a cell where it lies in the text, for the types that have one. */
export function spanCasterFor(
  field: FieldDescriptor,
  version: StandardVersion,
): SpanCaster | undefined {
  return SPAN_FACTORIES[fieldType(field, version)]?.(field);
}

/** The check of a cell where it lies that makes no value, for the types that have one. */
export function spanCheckFor(
  field: FieldDescriptor,
  version: StandardVersion,
): SpanCheck | undefined {
  return fieldType(field, version) === 'date' ? dateSpanCheck(field) : undefined;
}

/** True when a cell's value is its text: a string of no format, or any. */
export function castsToText(field: FieldDescriptor, version: StandardVersion): boolean {
  const type = fieldType(field, version);
  return type === 'any' || (type === 'string' && stringFormat(field) === undefined);
}

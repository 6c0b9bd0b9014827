import type { FieldDescriptor, StandardVersion } from '../../descriptor/types.js';
import { fieldType } from '../../descriptor/field-rules.js';
import { INVALID, type Caster } from './invalid.js';
import { integerCaster, numberCaster, yearCaster, yearmonthCaster } from './numeric.js';
import { dateCaster, datetimeCaster, durationCaster, timeCaster } from './temporal.js';
import { anyCaster, booleanCaster, stringCaster } from './text.js';
import {
  arrayCaster,
  geojsonCaster,
  geopointCaster,
  listCaster,
  objectCaster,
} from './structured.js';

export { INVALID, type Caster };

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

import type { FieldDescriptor } from '../../descriptor/types.js';
import { normalizeFormat } from '../../descriptor/field-rules.js';
import { INVALID, type Caster } from './invalid.js';
import { isGeojson, isTopojson } from './geojson.js';

function parseJson(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return INVALID;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export const objectCaster: Caster = (raw) => {
  const value = parseJson(raw);
  return isPlainObject(value) ? value : INVALID;
};

export const arrayCaster: Caster = (raw) => {
  const value = parseJson(raw);
  return Array.isArray(value) ? value : INVALID;
};

export function geojsonCaster(field: FieldDescriptor): Caster {
  const check = normalizeFormat(field.format) === 'topojson' ? isTopojson : isGeojson;
  return (raw) => {
    const value = parseJson(raw);
    return isPlainObject(value) && check(value) ? value : INVALID;
  };
}

function point(lon: unknown, lat: unknown): [number, number] | typeof INVALID {
  const x = typeof lon === 'string' && lon.trim() !== '' ? Number(lon) : lon;
  const y = typeof lat === 'string' && lat.trim() !== '' ? Number(lat) : lat;
  if (typeof x !== 'number' || typeof y !== 'number' || Number.isNaN(x) || Number.isNaN(y)) {
    return INVALID;
  }
  if (x < -180 || x > 180 || y < -90 || y > 90) return INVALID;
  return [x, y];
}

export function geopointCaster(field: FieldDescriptor): Caster {
  const format = normalizeFormat(field.format);
  return (raw) => {
    if (format === 'default') {
      if (typeof raw !== 'string') return INVALID;
      const parts = raw.split(',');
      return parts.length === 2 ? point(parts[0], parts[1]) : INVALID;
    }
    const value = parseJson(raw);
    if (format === 'array') {
      return Array.isArray(value) && value.length === 2 ? point(value[0], value[1]) : INVALID;
    }
    if (!isPlainObject(value)) return INVALID;
    const keys = Object.keys(value);
    if (keys.length !== 2 || !('lon' in value) || !('lat' in value)) return INVALID;
    return point(value.lon, value.lat);
  };
}

export function listCaster(field: FieldDescriptor, item: Caster): Caster {
  const delimiter = field.delimiter ?? ',';
  return (raw) => {
    const items = Array.isArray(raw)
      ? (raw as unknown[])
      : typeof raw === 'string'
        ? raw === ''
          ? []
          : raw.split(delimiter)
        : undefined;
    if (!items) return INVALID;
    const values: unknown[] = [];
    for (const entry of items) {
      const value = item(entry);
      if (value === INVALID) return INVALID;
      values.push(value);
    }
    return values;
  };
}

/**
 * JSON Schemas for the descriptor profiles, written from the Data Package v1 and v2
 * specifications. They encode the published profiles' structural rules; the rules that
 * JSON Schema states badly (path safety, path/data exclusivity, unique names, key
 * references) are checked by name in rules.ts.
 */
import type { StandardVersion } from './types.js';

type Schema = Record<string, unknown>;

const str = { type: 'string' };
const strings = { type: 'array', items: str };
const nonEmptyStrings = { type: 'array', minItems: 1, items: str };
const stringOrStrings = { anyOf: [str, nonEmptyStrings] };
const V1_NAME = '^([-a-z0-9._/])+$';

function license(): Schema {
  return {
    type: 'object',
    anyOf: [{ required: ['name'] }, { required: ['path'] }],
    properties: { name: { type: 'string', pattern: '^([-a-zA-Z0-9._])+$' }, path: str, title: str },
  };
}

function party(version: StandardVersion): Schema {
  const base = {
    type: 'object',
    properties: { title: str, path: str, email: { type: 'string', format: 'email' } },
  };
  return version === 1 ? { ...base, required: ['title'] } : { ...base, minProperties: 1 };
}

function common(version: StandardVersion): Schema {
  return {
    title: str,
    description: str,
    homepage: { type: 'string', format: 'uri' },
    licenses: { type: 'array', minItems: 1, items: license() },
    sources: { type: 'array', items: party(version) },
    profile: str,
    $schema: str,
  };
}

export function packageProfile(version: StandardVersion): Schema {
  return {
    type: 'object',
    required: ['resources'],
    properties: {
      ...common(version),
      name: version === 1 ? { type: 'string', pattern: V1_NAME } : str,
      id: str,
      version: str,
      image: str,
      created: { type: 'string', format: 'date-time' },
      keywords: nonEmptyStrings,
      contributors: { type: 'array', items: party(version) },
      resources: { type: 'array', minItems: 1, items: { type: 'object' } },
    },
  };
}

export function resourceProfile(version: StandardVersion): Schema {
  return {
    type: 'object',
    required: ['name'],
    properties: {
      ...common(version),
      name: version === 1 ? { type: 'string', pattern: V1_NAME } : str,
      path: stringOrStrings,
      type: version === 2 ? { enum: ['table'] } : {},
      format: str,
      mediatype: { type: 'string', pattern: '^(.+)/(.+)$' },
      encoding: str,
      bytes: { type: 'integer', minimum: 0 },
      hash: { type: 'string', pattern: '^([^:]+:[a-fA-F0-9]+|[a-fA-F0-9]{32}|)$' },
      schema: { type: ['object', 'string'] },
      dialect: { type: ['object', 'string'] },
    },
  };
}

const FIELD_TYPES = [
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'list',
  'date',
  'time',
  'datetime',
  'year',
  'yearmonth',
  'duration',
  'geopoint',
  'geojson',
  'any',
];

const missingValues = {
  type: 'array',
  items: {
    anyOf: [str, { type: 'object', required: ['value'], properties: { value: str, label: str } }],
  },
};

export function tableSchemaProfile(): Schema {
  const keyFields = stringOrStrings;
  return {
    type: 'object',
    required: ['fields'],
    properties: {
      fields: {
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: {
            name: str,
            title: str,
            description: str,
            type: { type: 'string', enum: FIELD_TYPES },
            format: str,
            missingValues,
            trueValues: strings,
            falseValues: strings,
            decimalChar: { type: 'string', minLength: 1 },
            groupChar: { type: 'string', minLength: 1 },
            bareNumber: { type: 'boolean' },
            delimiter: { type: 'string', minLength: 1 },
            itemType: {
              enum: ['string', 'integer', 'boolean', 'number', 'datetime', 'date', 'time'],
            },
            constraints: {
              type: 'object',
              properties: {
                required: { type: 'boolean' },
                unique: { type: 'boolean' },
                minLength: { type: 'integer', minimum: 0 },
                maxLength: { type: 'integer', minimum: 0 },
                pattern: str,
                enum: { type: 'array', minItems: 1 },
              },
            },
          },
        },
      },
      missingValues,
      primaryKey: stringOrStrings,
      uniqueKeys: { type: 'array', minItems: 1, items: nonEmptyStrings },
      fieldsMatch: { enum: ['exact', 'equal', 'subset', 'superset', 'partial'] },
      foreignKeys: {
        type: 'array',
        items: {
          type: 'object',
          required: ['fields', 'reference'],
          properties: {
            fields: keyFields,
            reference: {
              type: 'object',
              required: ['fields'],
              properties: { resource: str, fields: keyFields },
            },
          },
        },
      },
    },
  };
}

export function dialectProfile(): Schema {
  const oneChar = { type: 'string', minLength: 1, maxLength: 1 };
  const rows = { type: 'array', items: { type: 'integer', minimum: 1 } };
  return {
    type: 'object',
    properties: {
      delimiter: { type: 'string', minLength: 1 },
      lineTerminator: str,
      quoteChar: oneChar,
      doubleQuote: { type: 'boolean' },
      escapeChar: oneChar,
      nullSequence: str,
      skipInitialSpace: { type: 'boolean' },
      header: { type: 'boolean' },
      headerRows: rows,
      headerJoin: str,
      commentChar: { type: 'string', minLength: 1 },
      commentRows: rows,
      caseSensitiveHeader: { type: 'boolean' },
    },
  };
}

/** The derived resources a published table gets in its descriptor (services/pipeline). */
import { derivedNames, type Resource } from '@data/core';
import { describe, expect, it } from 'vitest';
import { derivedResources } from '../../packages/hub/src/services/pipeline/derived-resources.js';

const TABLE = {
  index: 0,
  name: 't',
  csv: 't.csv',
  json: 't.json',
  preview: 't.preview.json',
  parquet: 't.parquet',
  rows: 2,
};

describe('the derived resources of a table', () => {
  it('keep a schema given as null as it is, where a schema object loses its missing values', () => {
    const preview = { path: 't_csv_preview.json', bytes: 10, md5: '00' };
    const made = (schema: unknown): Resource[] =>
      derivedResources(
        { table: TABLE, preview },
        { name: 't', path: 't.csv', schema } as Resource,
        derivedNames('t', new Set(['t'])),
        undefined,
      );
    const typed = made({ fields: [{ name: 'a', type: 'integer' }], missingValues: ['-'] });
    const csv = typed.find((resource) => resource.name === 't_csv');
    expect(csv?.schema).toEqual({ fields: [{ name: 'a', type: 'integer' }] });
    const nulls = made(null);
    expect(nulls.map((resource) => resource.name)).toEqual(typed.map((resource) => resource.name));
    expect(nulls.find((resource) => resource.name === 't_csv')?.schema).toBeNull();
  });
});

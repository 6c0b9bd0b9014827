import { describe, expect, it } from 'vitest';
import { unsafeReason } from '../../packages/core/src/model/paths.js';
import { check, folder, summary } from '../helpers/fixtures.js';

const V2 = 'https://datapackage.org/profiles/2.0/datapackage.json';

function pkg(
  descriptor: unknown,
  files: Record<string, string> = { 'data.csv': 'id\n1\n' },
): string {
  return folder({ ...files, 'datapackage.json': descriptor as object });
}

describe('path safety', () => {
  it.each(['data.csv', 'dest/some/file', 'dest/.some/file', 'https://example.com/a.csv'])(
    'accepts %s in v1',
    (path) => {
      expect(unsafeReason(path, 1)).toBeUndefined();
    },
  );

  it.each([
    '../data.csv',
    './data.csv',
    '/etc/passwd',
    '~/x.csv',
    'dest/../../bad',
    '.hidden/x.csv',
    'file:///etc/passwd',
    'C:\\data.csv',
    's3://bucket/x',
    '$HOME/x',
    '%HOME%/x',
    'a/..',
  ])('rejects %s', (path) => {
    expect(unsafeReason(path, 1)).toBeDefined();
    expect(unsafeReason(path, 2)).toBeDefined();
  });

  it('rejects hidden folders anywhere in v2 only', () => {
    expect(unsafeReason('dest/.some/file', 2)).toBe('hidden folder in path');
  });

  it('never opens an unsafe path', async () => {
    const outside = folder({ 'secret.csv': 'id\n1\n' });
    const report = await check(
      pkg({ resources: [{ name: 'x', path: `../${outside.split('/').at(-1) ?? ''}/secret.csv` }] }),
    );
    expect(summary(report)).toEqual(['resource-error']);
    expect(report.tasks).toEqual([]);
  });
});

describe('descriptor rules', () => {
  it('reports a descriptor that is not JSON with its line and column', async () => {
    const report = await check(
      folder({ 'datapackage.json': '{\n  "resources": [\n    {"name": "a",}\n  ]\n}\n' }),
    );
    expect(summary(report)).toEqual(['package-error']);
    expect(report.errors[0]?.note).toMatch(/at line 3 column 18$/);
    expect(report.valid).toBe(false);
  });

  it.each([
    ['an array', []],
    ['no resources', { name: 'x' }],
    ['empty resources', { resources: [] }],
  ])('rejects a descriptor with %s', async (_, descriptor) => {
    expect(summary(await check(pkg(descriptor)))[0]).toBe('package-error');
  });

  it('applies the v1 name pattern and lets v2 names be free', async () => {
    expect(
      summary(
        await check(
          pkg({ name: 'Bad Name', resources: [{ name: 'Data File', path: 'data.csv' }] }),
        ),
      ),
    ).toEqual(['package-error', 'resource-error']);
    expect(
      summary(
        await check(
          pkg({
            $schema: V2,
            name: 'Bad Name',
            resources: [{ name: 'Data File', path: 'data.csv' }],
          }),
        ),
      ),
    ).toEqual([]);
  });

  it('wants exactly one of path and data, unique names and licenses with a name or path', async () => {
    const report = await check(
      pkg({
        licenses: [{ title: 'x' }],
        resources: [
          { name: 'a', path: 'data.csv', data: [] },
          { name: 'b' },
          { name: 'c', path: 'data.csv' },
          { name: 'c', path: 'data.csv' },
        ],
      }),
    );
    expect(summary(report)).toEqual([
      'package-error',
      'resource-error',
      'resource-error',
      'package-error',
    ]);
    expect(report.errors.map((error) => error.note)).toEqual([
      'a license must have a "name" or a "path" at property "licenses/0"',
      'properties "path" and "data" are mutually exclusive in resource "a"',
      'one of the properties "path" or "data" is required in resource "b"',
      'resource names are not unique: c',
    ]);
  });

  it('rejects multipart paths that mix URLs and files', async () => {
    const report = await check(
      pkg({ resources: [{ name: 'a', path: ['data.csv', 'https://example.com/b.csv'] }] }),
    );
    expect(report.errors[0]?.note).toContain('cannot mix URLs and local paths');
  });

  it('checks the schema: types, key references, duplicate names, constraints per type', async () => {
    const fields = [
      { name: 'id', type: 'integer', constraints: { pattern: 'x' } },
      { name: 'id', type: 'colour' },
    ];
    const schema = {
      fields,
      primaryKey: 'code',
      foreignKeys: [{ fields: ['id'], reference: { resource: 'a', fields: ['a', 'b'] } }],
    };
    const report = await check(pkg({ resources: [{ name: 'a', path: 'data.csv', schema }] }));
    // "colour" is a problem of a field's property; repeated names and keys, of the schema.
    expect(summary(report)).toEqual([
      'field-error',
      'schema-error',
      'field-error',
      'schema-error',
      'schema-error',
    ]);
  });

  it('requires a schema for a v1 tabular data resource', async () => {
    const report = await check(
      pkg({ resources: [{ name: 'a', path: 'data.csv', profile: 'tabular-data-resource' }] }),
    );
    expect(report.errors[0]?.note).toContain('requires "schema"');
  });

  it('checks the dialect', async () => {
    const report = await check(
      pkg({
        resources: [{ name: 'a', path: 'data.csv', dialect: { delimiter: '::', header: 'yes' } }],
      }),
    );
    expect(summary(report)).toEqual(['dialect-error', 'dialect-error']);
  });

  it('loads a schema and a dialect given as relative paths', async () => {
    const dir = pkg(
      {
        resources: [
          { name: 'a', path: 'data.csv', schema: 'schema.json', dialect: 'dialect.json' },
        ],
      },
      {
        'data.csv': 'id;x\n1;a\nz;b\n',
        'schema.json': JSON.stringify({ fields: [{ name: 'id', type: 'integer' }, { name: 'x' }] }),
        'dialect.json': '{"delimiter": ";"}',
      },
    );
    expect(summary(await check(dir))).toEqual(['type-error@3@1']);
  });

  it('reports a foreign key to a resource that does not exist', async () => {
    const schema = {
      fields: [{ name: 'id' }],
      foreignKeys: [{ fields: 'id', reference: { resource: 'nowhere', fields: 'id' } }],
    };
    const report = await check(pkg({ resources: [{ name: 'a', path: 'data.csv', schema }] }));
    expect(summary(report)).toEqual(['resource-error']);
    expect(report.tasks[0]?.errors[0]?.note).toBe(
      'failed to handle a foreign key for resource "a" as resource "nowhere" does not exist',
    );
  });

  it('validates foreign keys across resources', async () => {
    const dir = pkg(
      {
        resources: [
          {
            name: 'cities',
            path: 'cities.csv',
            schema: {
              fields: [{ name: 'name' }, { name: 'country' }],
              foreignKeys: [
                { fields: 'country', reference: { resource: 'countries', fields: 'code' } },
              ],
            },
          },
          { name: 'countries', path: 'countries.csv', schema: { fields: [{ name: 'code' }] } },
        ],
      },
      {
        'cities.csv': 'name,country\nParis,FR\nRome,IT\nNowhere,\n',
        'countries.csv': 'code\nFR\n',
      },
    );
    expect(summary(await check(dir))).toEqual(['foreign-key@3']);
  });
});

describe('likely typos', () => {
  const pkg = (descriptor: Record<string, unknown>) =>
    folder({ 'a.csv': 'a\n1\n', 'datapackage.json': descriptor });

  it('warns of a property near a standard one, and makes it an error when strict', async () => {
    const dir = pkg({
      name: 't',
      titel: 'x',
      resources: [
        {
          name: 'a',
          path: 'a.csv',
          schema: { fields: [{ name: 'a', type: 'integer', decription: 'd' }], primaryKeys: ['a'] },
        },
      ],
    });
    const report = await check(dir);
    expect(report.valid).toBe(true);
    expect(report.warnings).toEqual([
      'the package: property "titel" is not a standard one: did you mean "title"?',
      'resource "a" schema: property "primaryKeys" is not a standard one: did you mean "primaryKey"?',
      'resource "a" field "a": property "decription" is not a standard one: did you mean "description"?',
    ]);
    const strict = await check(dir, { strict: true });
    expect(strict.valid).toBe(false);
    expect(strict.errors).toHaveLength(3);
    // A property of one's own, far from any standard name, is nobody's business.
    expect(
      (await check(pkg({ name: 't', myOwnThing: 1, resources: [{ name: 'a', path: 'a.csv' }] })))
        .warnings,
    ).toEqual([]);
  });

  it('does not take the properties of DataHub datasets for typos; strict reports every unknown one', async () => {
    const dir = pkg({
      name: 't',
      related: [{ title: 'x', path: '/core/x' }],
      views: [],
      collection: 'stock-market-data',
      has_premium: true,
      myOwnThing: 1,
      resources: [{ name: 'a', path: 'a.csv', datahub: { type: 'original' } }],
    });
    const report = await check(dir);
    expect(report.valid).toBe(true);
    expect(report.warnings).toEqual([]);
    const strict = await check(dir, { strict: true });
    expect(strict.errors.map((error) => error.note)).toEqual([
      'the package: property "related" is not a standard one',
      'the package: property "views" is not a standard one',
      'the package: property "collection" is not a standard one',
      'the package: property "has_premium" is not a standard one',
      'the package: property "myOwnThing" is not a standard one',
      'resource "a": property "datahub" is not a standard one',
    ]);
  });

  it('says which property a missing required one was probably typed as, and the value an enum meant', async () => {
    const missing = await check(pkg({ name: 't', resouces: [{ name: 'a', path: 'a.csv' }] }));
    expect(missing.errors[0]?.message).toContain(
      '"resources" is a required property ("resouces" is there: did you mean "resources"?)',
    );
    const typed = await check(
      pkg({
        name: 't',
        resources: [
          { name: 'a', path: 'a.csv', schema: { fields: [{ name: 'a', type: 'integr' }] } },
        ],
      }),
    );
    expect(typed.errors[0]?.message).toContain(
      '"integr" is not a valid value at property "fields/0/type": did you mean "integer"?',
    );
  });
});

describe('missing values', () => {
  const withSchema = (schema: Record<string, unknown>, v2: boolean) =>
    folder({
      'a.csv': 'a,b\n1,x\nNA,y\n',
      'datapackage.json': {
        $schema: `https://datapackage.org/profiles/${v2 ? '2.0' : '1.0'}/datapackage.json`,
        name: 't',
        resources: [{ name: 'a', path: 'a.csv', schema }],
      },
    });

  it('allows only strings in v1, at schema and field level', async () => {
    const schema = {
      fields: [{ name: 'a', type: 'integer', missingValues: [{ value: 'NA' }] }, { name: 'b' }],
    };
    const v1 = await check(withSchema(schema, false));
    expect(v1.errors.map((error) => error.note)).toEqual([
      'missing values of field "a" must be strings in v1 (the {"value", "label"} form is v2)',
    ]);
    expect((await check(withSchema(schema, true))).valid).toBe(true);
    const top = await check(
      withSchema(
        { fields: [{ name: 'a', type: 'integer' }], missingValues: [{ value: 'NA' }] },
        false,
      ),
    );
    expect(top.errors[0]?.note).toContain('missing values of the schema must be strings in v1');
  });

  it('allows repeated string values, and refuses repeated values or labels of the v2 form', async () => {
    const field = (missingValues: unknown[]) => ({
      fields: [{ name: 'a', type: 'integer', missingValues }, { name: 'b' }],
    });
    expect((await check(withSchema(field(['NA', 'NA', '']), false))).valid).toBe(true);
    const values = await check(withSchema(field([{ value: 'NA' }, 'NA']), true));
    expect(values.errors.map((error) => error.note)).toEqual([
      'missing values of field "a" are not unique',
    ]);
    const labels = await check(
      withSchema(
        field([
          { value: 'NA', label: 'x' },
          { value: '-', label: 'x' },
        ]),
        true,
      ),
    );
    expect(labels.errors.map((error) => error.note)).toEqual([
      'missing value labels of field "a" are not unique',
    ]);
  });
});

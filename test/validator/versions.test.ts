import { describe, expect, it } from 'vitest';
import { check, folder, summary } from '../helpers/fixtures.js';

const PACKAGE_V1_PROFILE = 'https://datapackage.org/profiles/1.0/datapackage.json';
const PACKAGE_V2 = 'https://datapackage.org/profiles/2.0/datapackage.json';
const SCHEMA_V1 = 'https://datapackage.org/profiles/1.0/tableschema.json';
const SCHEMA_V2 = 'https://datapackage.org/profiles/2.0/tableschema.json';
const SCHEMA_CUSTOM = 'https://example.org/profiles/our-tableschema.json';

/** A package of one table whose schema gives its field `a` the v2 form of missing values. */
function labelled(
  packageSchema: string | undefined,
  schemaSchema: string | undefined,
  missingValues: unknown[] = [{ value: 'NA', label: 'not asked' }],
  csv = 'a,b\n1,x\nNA,y\n',
): string {
  return folder({
    'a.csv': csv,
    'datapackage.json': {
      ...(packageSchema ? { $schema: packageSchema } : {}),
      name: 't',
      resources: [
        {
          name: 'a',
          path: 'a.csv',
          schema: {
            ...(schemaSchema ? { $schema: schemaSchema } : {}),
            fields: [{ name: 'a', type: 'integer', missingValues }, { name: 'b' }],
          },
        },
      ],
    },
  });
}

describe('the version each descriptor follows', () => {
  it('gives a schema that declares 2.0 the v2 rules in a package that declares none', async () => {
    const report = await check(labelled(undefined, SCHEMA_V2));
    expect(summary(report)).toEqual([]);
    expect(report.valid).toBe(true);
  });

  it('gives a schema with a custom profile the v2 rules in a package that declares none', async () => {
    expect((await check(labelled(undefined, SCHEMA_CUSTOM))).valid).toBe(true);
  });

  it('keeps v1 rules for a schema that declares 1.0 in a package that declares none', async () => {
    const report = await check(labelled(undefined, SCHEMA_V1));
    expect(report.errors.map((error) => [error.type, error.note])).toEqual([
      [
        'field-error',
        'missing values of field "a" must be strings in v1 (the {"value", "label"} form is v2)',
      ],
    ]);
  });

  it('takes both forms where no descriptor declares a version, as the reference does', async () => {
    expect((await check(labelled(undefined, undefined))).valid).toBe(true);
  });

  it('keeps v1 rules inside a package that declares 1.0, whatever its schema declares', async () => {
    const report = await check(labelled(PACKAGE_V1_PROFILE, SCHEMA_V2));
    expect(report.errors.map((error) => error.type)).toEqual(['field-error']);
  });

  it('gives v2 rules inside a package that declares 2.0, to a schema that declares none', async () => {
    expect((await check(labelled(PACKAGE_V2, undefined))).valid).toBe(true);
  });

  it('reads the cells of a field-level missing value as missing under v2 rules', async () => {
    const report = await check(labelled(undefined, SCHEMA_V2, ['-'], 'a,b\n1,x\n-,y\n'));
    expect(report.valid).toBe(true);
    // Under v1 rules the field's own strings are read as missing too: v1 allows them.
    expect((await check(labelled(undefined, undefined, ['-'], 'a,b\n1,x\n-,y\n'))).valid).toBe(
      true,
    );
    const wrong = await check(labelled(undefined, SCHEMA_V2, ['NA'], 'a,b\n1,x\n-,y\n'));
    expect(summary(wrong)).toEqual(['type-error@3@1']);
  });
});

describe('field-level missing values', () => {
  it('must be unique within the field where the object form is used, values and labels', async () => {
    const repeated = [
      [{ value: 'NA' }, 'NA'],
      [
        { value: 'NA', label: 'x' },
        { value: '-', label: 'x' },
      ],
    ];
    for (const values of repeated) {
      const report = await check(labelled(undefined, SCHEMA_V2, values));
      expect(report.errors.map((error) => error.type)).toEqual(['field-error']);
    }
    // Strings only may repeat one, in the reference too.
    expect((await check(labelled(undefined, SCHEMA_V2, ['NA', 'NA']))).valid).toBe(true);
  });

  it('keep the schema-level rule a schema-error', async () => {
    const report = await check(
      folder({
        'a.csv': 'a\n1\n',
        'datapackage.json': {
          $schema: PACKAGE_V1_PROFILE,
          name: 't',
          resources: [
            {
              name: 'a',
              path: 'a.csv',
              schema: { fields: [{ name: 'a' }], missingValues: [{ value: 'NA' }] },
            },
          ],
        },
      }),
    );
    expect(report.errors.map((error) => error.type)).toEqual(['schema-error']);
  });

  it('make a primary key cell missing, as an empty cell is', async () => {
    const keyed = (csv: string, missingValues?: string[]) =>
      folder({
        'a.csv': csv,
        'datapackage.json': {
          name: 't',
          resources: [
            {
              name: 'a',
              path: 'a.csv',
              schema: {
                $schema: SCHEMA_V2,
                fields: [
                  { name: 'id', type: 'integer', ...(missingValues ? { missingValues } : {}) },
                  { name: 'name' },
                ],
                primaryKey: ['id'],
              },
            },
          ],
        },
      });
    const dash = summary(await check(keyed('id,name\n1,a\n-,b\n', ['-'])));
    expect(dash).toEqual(summary(await check(keyed('id,name\n1,a\n,b\n'))));
    expect(dash.length).toBeGreaterThan(0);
  });

  it('leave a foreign key cell missing, not pointing anywhere', async () => {
    const report = await check(
      folder({
        'parent.csv': 'id\n1\n2\n',
        'child.csv': 'ref,note\n1,a\n-,b\n2,c\n',
        'datapackage.json': {
          name: 't',
          resources: [
            {
              name: 'parent',
              path: 'parent.csv',
              schema: { fields: [{ name: 'id', type: 'integer' }], primaryKey: ['id'] },
            },
            {
              name: 'child',
              path: 'child.csv',
              schema: {
                $schema: SCHEMA_V2,
                fields: [{ name: 'ref', type: 'integer', missingValues: ['-'] }, { name: 'note' }],
                foreignKeys: [
                  { fields: ['ref'], reference: { resource: 'parent', fields: ['id'] } },
                ],
              },
            },
          ],
        },
      }),
    );
    expect(summary(report)).toEqual([]);
  });
});

describe('problems of one field', () => {
  it('are field-errors, as the reference reports them; problems of the schema stay schema-errors', async () => {
    const report = await check(
      folder({
        'a.csv': 'a\n1\n',
        'datapackage.json': {
          name: 't',
          resources: [
            {
              name: 'a',
              path: 'a.csv',
              schema: { fields: [{ name: 'a', type: 'integr' }], primaryKey: ['nope'] },
            },
          ],
        },
      }),
    );
    expect(report.errors.map((error) => error.type).sort()).toEqual([
      'field-error',
      'schema-error',
    ]);
  });
});

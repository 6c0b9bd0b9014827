import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { check, folder, schema, summary, tablePackage } from '../helpers/fixtures.js';

const id = { name: 'id', type: 'integer' };
const name = { name: 'name', type: 'string' };

describe('labels', () => {
  it('reports extra, missing, blank, duplicate and incorrect labels in order', async () => {
    const dir = tablePackage(
      'id,nom,,id,extra\n1,a,b,2,x\n',
      schema(id, name, { name: 'c' }, { name: 'd' }),
    );
    const report = await check(dir);
    expect(summary(report)).toEqual([
      'extra-label@5',
      'incorrect-label@2',
      'blank-label@3',
      'duplicate-label@4',
      'extra-cell@2@5',
    ]);
    const duplicate = report.tasks[0]?.errors[3];
    expect(duplicate?.note).toBe('at position "1"');
    expect(duplicate?.rowNumbers).toEqual([1]);
    expect(report.tasks[0]?.labels).toEqual(['id', 'nom', '', 'id', 'extra']);
  });

  it('reports a missing label and the missing cells below it', async () => {
    const report = await check(tablePackage('id\n1\n', schema(id, name)));
    expect(summary(report)).toEqual(['missing-label@2', 'missing-cell@2@2']);
  });

  it.each([
    ['exact', ['incorrect-label@1', 'incorrect-label@2']],
    ['equal', []],
    ['subset', []],
    ['superset', []],
    ['partial', []],
  ])('maps reordered fields under fieldsMatch %s', async (mode, expected) => {
    const dir = tablePackage('name,id\nenglish,1\n', {
      schema: { fieldsMatch: mode, fields: [{ name: 'id' }, { name: 'name' }] },
    });
    expect(summary(await check(dir))).toEqual(expected);
  });

  it.each([
    ['exact', ['extra-label@2', 'extra-cell@2@2']],
    ['equal', ['extra-label@2']],
    ['subset', []],
    ['superset', ['extra-label@2']],
    ['partial', []],
  ])('handles a label the schema lacks under fieldsMatch %s', async (mode, expected) => {
    const dir = tablePackage('name,id\nenglish,1\n', {
      schema: { fieldsMatch: mode, fields: [{ name: 'name' }] },
    });
    expect(summary(await check(dir))).toEqual(expected);
  });

  it.each([
    ['exact', ['missing-label@3', 'missing-cell@2@3']],
    ['equal', ['missing-label@3']],
    ['subset', ['missing-label@3']],
    ['superset', []],
    ['partial', []],
  ])('handles a field the data lacks under fieldsMatch %s', async (mode, expected) => {
    const fields = [{ name: 'name' }, { name: 'id' }, { name: 'extra' }];
    const dir = tablePackage('name,id\nenglish,1\n', { schema: { fieldsMatch: mode, fields } });
    expect(summary(await check(dir))).toEqual(expected);
  });

  it('reports an unmatched header under fieldsMatch partial', async () => {
    const dir = tablePackage('a,b\n1,2\n', {
      schema: { fieldsMatch: 'partial', fields: [{ name: 'x' }] },
    });
    expect(summary(await check(dir))).toEqual(['unmatched-header']);
  });
});

describe('rows and cells', () => {
  it('numbers rows from the header and fields from 1', async () => {
    const report = await check(tablePackage('id,name\n1,a\nx,b\n', schema(id, name)));
    const error = report.tasks[0]?.errors[0];
    expect(error).toMatchObject({
      type: 'type-error',
      rowNumber: 3,
      fieldNumber: 1,
      fieldName: 'id',
      cell: 'x',
      cells: ['x', 'b'],
      note: 'type is "integer/default"',
      tags: ['#table', '#row', '#cell'],
      title: 'Type Error',
      description: 'The value does not match the schema type and format for this field.',
      message:
        'Type error in the cell "x" in row "3" and field "id" at position "1": type is "integer/default"',
    });
  });

  it('reports a blank row alone, and ragged rows cell by cell', async () => {
    const report = await check(tablePackage('id,name\n,\n1\n2,b,c,d\n', schema(id, name)));
    expect(summary(report)).toEqual([
      'blank-row@2',
      'missing-cell@3@2',
      'extra-cell@4@3',
      'extra-cell@4@4',
    ]);
  });

  it('infers the fields from the header: a longer row is an extra cell in that row', async () => {
    const report = await check(tablePackage('id,name\n1,a\n2,b,extra\n3,c\n'));
    expect(summary(report)).toEqual(['extra-cell@3@3']);
    expect(report.tasks[0]?.stats.fields).toBe(2);
  });

  it('infers the fields from the first row when there is no header', async () => {
    const report = await check(tablePackage('1,a\n2,b,c\n', { dialect: { header: false } }));
    expect(summary(report)).toEqual(['extra-cell@2@3']);
  });

  it('counts an empty line as a blank row', async () => {
    expect(summary(await check(tablePackage('id,name\n1,a\n\n2,b\n', schema(id, name))))).toEqual([
      'blank-row@3',
    ]);
  });

  it('counts quoted line breaks as one row', async () => {
    const report = await check(tablePackage('id,name\n1,"two\nlines"\nx,b\n', schema(id, name)));
    expect(summary(report)).toEqual(['type-error@3@1']);
  });

  it('gives a short row on a required field both a constraint error and a missing cell', async () => {
    const report = await check(
      tablePackage('id,name\n1\n', schema(id, { ...name, constraints: { required: true } })),
    );
    expect(summary(report)).toEqual(['constraint-error@2@2', 'missing-cell@2@2']);
  });

  it('treats missing values as null before casting', async () => {
    const dir = tablePackage('id,name\nNA,a\n-,b\n', {
      schema: {
        missingValues: ['NA', '-'],
        fields: [{ ...id, constraints: { required: true } }, name],
      },
    });
    expect(summary(await check(dir))).toEqual(['constraint-error@2@1', 'constraint-error@3@1']);
  });

  it('lets a field override the schema missing values', async () => {
    const fields = [{ ...id, missingValues: ['?'] }, name];
    expect(
      summary(await check(tablePackage('id,name\n?,a\n,b\n', { schema: { fields } }))),
    ).toEqual(['type-error@3@1']);
  });
});

describe('constraints', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['minLength', { type: 'string', constraints: { minLength: 3 } }, 'abc', 'ab'],
    ['maxLength', { type: 'string', constraints: { maxLength: 3 } }, 'abc', 'abcd'],
    ['minimum', { type: 'integer', constraints: { minimum: 10 } }, '10', '9'],
    ['maximum', { type: 'number', constraints: { maximum: 1.5 } }, '1.5', '1.6'],
    ['exclusiveMinimum', { type: 'integer', constraints: { exclusiveMinimum: 10 } }, '11', '10'],
    ['exclusiveMaximum', { type: 'integer', constraints: { exclusiveMaximum: 10 } }, '9', '10'],
    [
      'date minimum',
      { type: 'date', constraints: { minimum: '2020-01-01' } },
      '2020-01-01',
      '2019-12-31',
    ],
    ['pattern', { type: 'string', constraints: { pattern: '[A-Z]{2}' } }, 'FR', 'FRA'],
    ['enum', { type: 'string', constraints: { enum: ['a', 'b'] } }, 'a', 'c'],
    ['integer enum', { type: 'integer', constraints: { enum: [1, 2] } }, '02', '3'],
    ['array minLength', { type: 'array', constraints: { minLength: 2 } }, '"[1,2]"', '[1]'],
  ];

  it.each(cases)('%s', async (constraint, field, good, bad) => {
    const report = await check(
      tablePackage(
        `v\n${good}\n${bad}\n`,
        { $schema: undefined, schema: { fields: [{ name: 'v', ...field }] } },
        { $schema: 'https://datapackage.org/profiles/2.0/datapackage.json' },
      ),
    );
    expect(summary(report)).toEqual(['constraint-error@3@1']);
    expect(report.tasks[0]?.errors[0]?.note).toMatch(
      new RegExp(`^constraint "${constraint.split(' ').at(-1) ?? ''}" is`),
    );
  });

  it('prints constraint values the way the reference validator does', async () => {
    const report = await check(
      tablePackage('v\nc\n', schema({ name: 'v', constraints: { enum: ['a', 'b'] } })),
    );
    expect(report.tasks[0]?.errors[0]?.note).toBe('constraint "enum" is "[\'a\', \'b\']"');
  });

  it('skips constraints on a cell with a type error', async () => {
    expect(
      summary(
        await check(
          tablePackage(
            'v\nx\n',
            schema({ name: 'v', type: 'integer', constraints: { minimum: 5 } }),
          ),
        ),
      ),
    ).toEqual(['type-error@2@1']);
  });
});

describe('keys', () => {
  it('reports unique errors with the first row', async () => {
    const report = await check(
      tablePackage('v\na\nb\na\n\n', schema({ name: 'v', constraints: { unique: true } })),
    );
    expect(summary(report)).toEqual(['unique-error@4@1', 'blank-row@5']);
    expect(report.tasks[0]?.errors[0]?.note).toBe('the same as in row "2"');
  });

  it('reports primary key duplicates and all-null keys', async () => {
    const dir = tablePackage('a,b\n1,x\n1,x\n1,y\n,\n', {
      schema: { fields: [{ name: 'a', type: 'integer' }, { name: 'b' }], primaryKey: ['a', 'b'] },
    });
    const report = await check(dir);
    expect(summary(report)).toEqual(['primary-key@3', 'blank-row@5', 'primary-key@5']);
  });

  it('reports a null primary key', async () => {
    const dir = tablePackage('a,b\n,x\n', {
      schema: { fields: [{ name: 'a', type: 'integer' }, { name: 'b' }], primaryKey: 'a' },
    });
    const report = await check(dir);
    expect(report.tasks[0]?.errors[0]?.note).toBe(
      'cells composing the primary keys are all "None"',
    );
  });

  it('reports a blank row in a table with a primary key as a primary-key error too', async () => {
    const dir = tablePackage('a,b\n1,x\n,\n', {
      schema: { fields: [{ name: 'a', type: 'integer' }, { name: 'b' }], primaryKey: 'a' },
    });
    expect(summary(await check(dir))).toEqual(['blank-row@3', 'primary-key@3']);
    const skipped = await check(dir, { skipErrors: ['blank-row'] });
    expect(skipped.valid).toBe(false);
    expect(summary(skipped)).toEqual(['primary-key@3']);
  });

  it('checks v2 unique keys, skipping rows with a null in the key', async () => {
    const dir = tablePackage(
      'a,b\n1,x\n1,x\n1,\n1,\n',
      { schema: { fields: [{ name: 'a' }, { name: 'b' }], uniqueKeys: [['a', 'b']] } },
      { $schema: 'https://datapackage.org/profiles/2.0/datapackage.json' },
    );
    expect(summary(await check(dir))).toEqual(['unique-error@3@1']);
  });

  it('matches foreign keys into a table without a schema as that table reads', async () => {
    const dir = folder({
      'countries.csv': 'code,population\n7,100\n33,200\n',
      'cities.csv': 'name,country\nParis,33\nTokyo,81\n',
      'datapackage.json': {
        name: 'fk',
        resources: [
          { name: 'countries', path: 'countries.csv' },
          {
            name: 'cities',
            path: 'cities.csv',
            schema: {
              fields: [{ name: 'name' }, { name: 'country', type: 'integer' }],
              foreignKeys: [
                { fields: 'country', reference: { resource: 'countries', fields: 'code' } },
              ],
            },
          },
        ],
      },
    });
    expect(summary(await check(dir))).toEqual(['foreign-key@3']);
  });

  it('checks a self-referencing foreign key', async () => {
    const dir = tablePackage('id,parent\n1,\n2,1\n3,9\n', {
      schema: {
        fields: [id, { name: 'parent', type: 'integer' }],
        foreignKeys: [{ fields: 'parent', reference: { resource: '', fields: 'id' } }],
      },
    });
    const report = await check(dir);
    expect(summary(report)).toEqual(['foreign-key@4']);
    expect(report.tasks[0]?.errors[0]).toMatchObject({
      fieldNames: ['parent'],
      fieldCells: ['9'],
      referenceName: 'data',
      referenceFieldNames: ['id'],
      note: 'for "parent": values "9" not found in the lookup table "data" as "id"',
    });
  });
});

describe('file checks', () => {
  const csv = 'id\n1\n';
  it('accepts matching bytes and hashes', async () => {
    const md5 = createHash('md5').update(csv).digest('hex');
    const sha256 = createHash('sha256').update(csv).digest('hex');
    for (const hash of [md5, `md5:${md5}`, `sha256:${sha256}`]) {
      const report = await check(tablePackage(csv, { bytes: 5, hash }));
      expect(summary(report)).toEqual([]);
      expect(report.tasks[0]?.stats.bytes).toBe(5);
    }
  });

  it('reports byte and hash counts that do not match, md5 and sha256', async () => {
    const md5 = await check(
      tablePackage(csv, { bytes: 4, hash: '00000000000000000000000000000000' }),
    );
    expect(summary(md5)).toEqual(['hash-count', 'byte-count']);
    const sha = await check(tablePackage(csv, { hash: `sha256:${'0'.repeat(64)}` }));
    expect(summary(sha)).toEqual(['hash-count']);
    expect(sha.tasks[0]?.stats.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('warns about hash algorithms it does not check', async () => {
    const report = await check(
      tablePackage(csv, { hash: 'sha1:0000000000000000000000000000000000000000' }),
    );
    expect(report.valid).toBe(true);
    expect(report.tasks[0]?.warnings).toEqual([
      'hash is ignored; supported algorithms: md5/sha256',
    ]);
  });
});

describe('reading', () => {
  it('reads a file of repeated rows whose chunks are equal texts', async () => {
    // 8-byte rows: each 512 KB chunk the reader takes holds the same 65,536 rows.
    const rows = 3 * 65_536;
    const dir = tablePackage('1,2,3,4\n'.repeat(rows), {
      dialect: { header: false },
      schema: { fields: ['a', 'b', 'c', 'd'].map((name) => ({ name, type: 'integer' })) },
    });
    const report = await check(dir, { split: false });
    expect(summary(report)).toEqual([]);
    expect(report.tasks[0]?.stats.rows).toBe(rows);
  });
});

describe('a table stopped by the error limit', () => {
  it('counts the rows up to the limit, gives the file size and no digest', async () => {
    // Large enough to be read in several chunks: the figures must not depend on them.
    const csv = `id\n${Array.from({ length: 200_000 }, (_, index) => (index === 9 ? 'x' : String(index))).join('\n')}\nlate\n`;
    const dir = tablePackage(csv, {
      hash: `md5:${createHash('md5').update(csv).digest('hex')}`,
      schema: { fields: [{ name: 'id', type: 'integer' }] },
    });
    const report = await check(dir, { limitErrors: 1, split: false });
    expect(summary(report)).toEqual(['type-error@11@1']);
    const stats = report.tasks[0]?.stats;
    expect(stats?.rows).toBe(10);
    expect(stats?.bytes).toBe(Buffer.byteLength(csv));
    expect(stats?.md5).toBeUndefined();
  });
});

import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { folder } from '../helpers/fixtures.js';
import { writeXlsx } from '../helpers/workbook.js';

const data = (args: string[]) => runCli(args, { env: { NO_COLOR: '1' } });

const FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'name', type: 'string' },
  { name: 'price', type: 'number' },
];

function pkg(csv: string, schema: object = { fields: FIELDS, primaryKey: ['id'] }, extra = {}) {
  return folder({
    'prices.csv': csv,
    'datapackage.json': {
      name: 'prices',
      ...extra,
      resources: [{ name: 'prices', path: 'prices.csv', schema }],
    },
  });
}

interface Diff {
  a: string;
  b: string;
  properties: { property: string; from: unknown; to: unknown }[];
  resources: {
    name: string;
    status: string;
    renamedFrom?: string;
    schema: {
      added: string[];
      removed: string[];
      changed: { field: string; from: object; to: object }[];
      keys: { property: string }[];
    };
    rows: {
      added: number;
      removed: number;
      changed: number;
      unchanged: number;
      key: string[] | null;
    };
    samples: {
      added: object[];
      removed: object[];
      changed: { key: object; cells: Record<string, { from: unknown; to: unknown }> }[];
    };
    duplicates?: { a: number; b: number };
  }[];
}

async function diffJson(
  a: string,
  b: string,
  ...more: string[]
): Promise<{ code: number; diff: Diff }> {
  const { code, out, err } = await data(['--json', 'diff', a, b, ...more]);
  expect(err).toBe('');
  return { code, diff: JSON.parse(out) as Diff };
}

/** The diff of apple at 1.5 and pear at 2 against the same with pear at 2.25, in any format. */
function expectOnlyPear({ diff }: { diff: Diff }): void {
  expect(diff.resources[0]?.rows).toMatchObject({ changed: 1, unchanged: 1, added: 0, removed: 0 });
  expect(diff.resources[0]?.samples.changed).toEqual([
    { key: { id: 2 }, cells: { price: { from: 2, to: 2.25 } } },
  ]);
}

const BEFORE = 'id,name,price\n1,apple,1.0\n2,pear,2\n3,plum,3\n';
const AFTER = 'id,name,price\n1,apple,1\n2,pear,2.5\n4,fig,4\n';

describe('data diff', () => {
  it('says "no changes" and exits 0 for the same package', async () => {
    const a = pkg(BEFORE);
    const { code, out } = await data(['diff', a, pkg(BEFORE)]);
    expect(code).toBe(0);
    expect(out).toMatch(/^no changes$/m);
  });

  it('matches rows by the primary key, and compares typed values: 1.0 is 1', async () => {
    const { code, diff } = await diffJson(pkg(BEFORE), pkg(AFTER, undefined, { version: '2' }));
    expect(code).toBe(1);
    expect(diff.properties).toEqual([{ property: 'version', from: null, to: '2' }]);
    const [prices] = diff.resources;
    expect(prices?.status).toBe('changed');
    expect(prices?.rows).toEqual({ added: 1, removed: 1, changed: 1, unchanged: 1, key: ['id'] });
    expect(prices?.samples).toEqual({
      added: [{ id: 4, name: 'fig', price: 4 }],
      removed: [{ id: 3, name: 'plum', price: 3 }],
      changed: [{ key: { id: 2 }, cells: { price: { from: 2, to: 2.5 } } }],
    });
    expect(prices?.schema).toEqual({ added: [], removed: [], changed: [], keys: [] });
  });

  it('prints a summary, then the rows, and CSV of each changed cell', async () => {
    const a = pkg(BEFORE);
    const b = pkg(AFTER);
    const text = await data(['diff', a, b]);
    expect(text.code).toBe(1);
    expect(text.out).toContain('~ prices: +1 row, −1, 1 changed, 1 unchanged (by id)');
    expect(text.out).toContain('  + id=4 name="fig" price=4');
    expect(text.out).toContain('  - id=3 name="plum" price=3');
    expect(text.out).toContain('  ~ id=2: price: 2 → 2.5');
    const limited = await data(['diff', a, b, '--limit', '0']);
    expect(limited.out).toContain('… 3 more');
    const csv = await data(['diff', a, b, '--format', 'csv']);
    expect(csv.out.split('\n')).toContain('prices,changed,[2],price,2,2.5');
  });

  it('reports fields added, removed, renamed, retyped and keys changed', async () => {
    const a = pkg('id,name,price,old\n1,a,1,x\n', {
      fields: [...FIELDS, { name: 'old', type: 'string' }],
      primaryKey: ['id'],
    });
    const b = pkg('id,title,price,new\n1,a,1,y\n', {
      fields: [
        FIELDS[0],
        { name: 'title', type: 'string' },
        { name: 'price', type: 'integer', constraints: { minimum: 0 } },
        { name: 'new', type: 'integer' },
      ],
      primaryKey: ['id', 'title'],
    });
    const { diff } = await diffJson(a, b);
    const schema = diff.resources[0]?.schema;
    expect(schema?.added).toEqual(['new']);
    expect(schema?.removed).toEqual(['old']);
    expect(schema?.changed).toEqual([
      { field: 'title', from: { name: 'name' }, to: { name: 'title' } },
      {
        field: 'price',
        from: { type: 'number', constraints: null },
        to: { type: 'integer', constraints: { minimum: 0 } },
      },
    ]);
    expect(schema?.keys.map((key) => key.property)).toEqual(['primaryKey']);
  });

  it('matches whole rows without a key, and says so', async () => {
    const schema = { fields: FIELDS };
    const { diff } = await diffJson(pkg(BEFORE, schema), pkg(AFTER, schema));
    expect(diff.resources[0]?.rows).toEqual({
      added: 2,
      removed: 2,
      changed: 0,
      unchanged: 1,
      key: null,
    });
    expect((await data(['diff', pkg(BEFORE, schema), pkg(AFTER, schema)])).out).toContain(
      'by whole rows: no primary key',
    );
  });

  it('reports keys repeated on a side instead of crashing', async () => {
    const { code, diff } = await diffJson(
      pkg('id,name,price\n1,a,1\n1,b,2\n2,c,3\n'),
      pkg('id,name,price\n1,a,1\n2,c,3\n2,d,4\n'),
    );
    expect(code).toBe(1);
    expect(diff.resources[0]?.duplicates).toEqual({ a: 1, b: 1 });
    expect(diff.resources[0]?.rows.unchanged).toBe(2);
  });

  it('follows a resource renamed, and lists resources added and removed', async () => {
    const a = folder({
      'prices.csv': BEFORE,
      'notes.txt': 'x',
      'datapackage.json': {
        name: 'p',
        resources: [
          { name: 'prices', path: 'prices.csv', schema: { fields: FIELDS, primaryKey: ['id'] } },
          { name: 'notes', path: 'notes.txt' },
        ],
      },
    });
    const b = folder({
      'prices.csv': BEFORE,
      'readme.txt': 'y',
      'datapackage.json': {
        name: 'p',
        resources: [
          { name: 'costs', path: 'prices.csv', schema: { fields: FIELDS, primaryKey: ['id'] } },
          { name: 'readme', path: 'readme.txt' },
        ],
      },
    });
    const { diff } = await diffJson(a, b);
    expect(diff.resources.map((each) => [each.name, each.status, each.renamedFrom])).toEqual([
      ['costs', 'changed', 'prices'],
      ['readme', 'added', undefined],
      ['notes', 'removed', undefined],
    ]);
    expect(diff.resources[0]?.rows.unchanged).toBe(3);
  });

  it('compares a CSV table with its Excel version by typed values', async () => {
    const a = pkg('id,name,price\n1,apple,1.5\n2,pear,2\n');
    const b = folder({
      'datapackage.json': {
        name: 'prices',
        resources: [
          {
            name: 'prices',
            path: 'prices.xlsx',
            format: 'xlsx',
            schema: { fields: FIELDS, primaryKey: ['id'] },
          },
        ],
      },
    });
    await writeXlsx(
      join(b, 'prices.xlsx'),
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c></row>' +
        '<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="s"><v>3</v></c><c r="C2"><v>1.5</v></c></row>' +
        '<row r="3"><c r="A3"><v>2</v></c><c r="B3" t="s"><v>4</v></c><c r="C3"><v>2.25</v></c></row>',
      '<si><t>id</t></si><si><t>name</t></si><si><t>price</t></si><si><t>apple</t></si><si><t>pear</t></si>',
    );
    expectOnlyPear(await diffJson(a, b));
  });

  it('compares a CSV table with its Parquet version by typed values', async () => {
    const a = pkg('id,name,price\n1,apple,1.5\n2,pear,2\n');
    const b = folder({
      'datapackage.json': {
        name: 'prices',
        resources: [
          {
            name: 'prices',
            path: 'prices.parquet',
            schema: { fields: FIELDS, primaryKey: ['id'] },
          },
        ],
      },
    });
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    await connection.run(
      `COPY (SELECT * FROM (VALUES (1::BIGINT, 'apple', 1.5::DOUBLE), (2, 'pear', 2.25)) t(id, name, price)) TO '${join(b, 'prices.parquet')}' (FORMAT parquet)`,
    );
    connection.closeSync();
    expectOnlyPear(await diffJson(a, b));
  });

  it('shows huge cells escaped and whole in JSON', async () => {
    const huge = 'x'.repeat(200_000);
    const { diff } = await diffJson(
      pkg(BEFORE),
      pkg(`id,name,price\n1,apple,1\n2,"${huge}",2\n3,plum,3\n`),
    );
    expect(diff.resources[0]?.samples.changed[0]?.cells.name?.to).toBe(huge);
  });

  it('is a usage error for a side that is nothing', async () => {
    const { code, err } = await data(['diff', pkg(BEFORE), 'no such thing']);
    expect(code).toBe(2);
    expect(err).toMatch(/no folder, descriptor or file/);
  });

  describe('large tables', () => {
    /**
     * Side a: `rows` rows; side b: every 100th row's price changed (some as written
     * differently but the same number), every 200th removed, as many added at the end, and
     * one added key repeated.
     */
    function versions(rows: number) {
      const lineOf = (id: number, price: string) =>
        `${String(id)},name ${String(id)} with some text to make the row longer,${price}\n`;
      const before = ['id,name,price\n'];
      const after = ['id,name,price\n'];
      for (let id = 1; id <= rows; id++) {
        before.push(lineOf(id, `${String(id)}.5`));
        if (id % 200 === 0) continue;
        if (id % 100 === 1) after.push(lineOf(id, `${String(id)}.75`));
        else if (id % 100 === 2) after.push(lineOf(id, `${String(id)}.50`));
        else after.push(lineOf(id, `${String(id)}.5`));
      }
      for (let id = rows + 1; id <= rows + rows / 200; id++) after.push(lineOf(id, '1'));
      after.push(lineOf(rows + 1, '2'));
      return { a: pkg(before.join('')), b: pkg(after.join('')) };
    }

    const expected = (rows: number) => ({
      added: rows / 200,
      removed: rows / 200,
      changed: rows / 100,
      unchanged: rows - rows / 200 - rows / 100,
      key: ['id'],
    });

    it('matches them part by part on disk, in a worker thread, as it matches them whole', async () => {
      // 150,000 rows, 10 MB: past the size read in a worker thread.
      const rows = 150_000;
      const { a, b } = versions(rows);
      const whole = await diffJson(a, b, '--limit', '3');
      const parted = await diffJson(a, b, '--limit', '3', '--key-memory', '1');
      expect(whole.code).toBe(1);
      const [table] = whole.diff.resources;
      expect(table?.rows).toEqual(expected(rows));
      expect(table?.duplicates).toEqual({ a: 0, b: 1 });
      // The first rows of each kind in the table's order, whatever part they were in.
      expect(table?.samples.changed.map((each) => each.key)).toEqual([
        { id: 1 },
        { id: 101 },
        { id: 201 },
      ]);
      expect(table?.samples.changed[0]?.cells).toEqual({ price: { from: 1.5, to: 1.75 } });
      expect(table?.samples.removed.map((each) => (each as { id: number }).id)).toEqual([
        200, 400, 600,
      ]);
      expect(table?.samples.added.map((each) => (each as { id: number }).id)).toEqual([
        rows + 1,
        rows + 2,
        rows + 3,
      ]);
      expect(parted.diff).toEqual(whole.diff);
    });

    it('matches whole rows without a key part by part, repeats counted', async () => {
      const lines = Array.from({ length: 20_000 }, (_, index) => `${String(index % 5_000)},x\n`);
      const schema = { fields: [{ name: 'n', type: 'integer' }, { name: 's' }] };
      const a = pkg(`n,s\n${lines.join('')}`, schema);
      const b = pkg(`n,s\n${lines.slice(1).join('')}7,x\n7,x\n01,x\n`, schema);
      const whole = await diffJson(a, b, '--limit', '2');
      const parted = await diffJson(a, b, '--limit', '2', '--key-memory', '0.01');
      const [table] = whole.diff.resources;
      // 0 lost once; 7 twice more; "01" is 1, which a holds four times and b five.
      expect(table?.rows).toEqual({
        added: 3,
        removed: 1,
        changed: 0,
        unchanged: 19_999,
        key: null,
      });
      expect(table?.samples.removed).toEqual([{ n: 0, s: 'x' }]);
      expect(parted.diff).toEqual(whole.diff);
    });
  });
});

import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceNotFound } from '../../packages/core/src/validator/index.js';
import { jsonErrorOffset } from '../../packages/core/src/validator/descriptor/json-position.js';
import { check, folder, schema, summary, tablePackage } from '../helpers/fixtures.js';

describe('hostile input', () => {
  it('does not call a binary file or a Markdown file a valid table', async () => {
    const dir = folder({
      program: new Uint8Array([127, 69, 76, 70, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 62, 0]),
      'README.md': '# About\n\nSome words.\n',
    });
    const binary = await check(join(dir, 'program'));
    expect(binary.valid).toBe(false);
    expect(binary.tasks[0]?.errors[0]?.note).toBe('the data is binary, not delimited text');
    const markdown = await check(join(dir, 'README.md'));
    expect(markdown.valid).toBe(false);
    expect(markdown.errors[0]?.type).toBe('format-error');
    expect(markdown.errors[0]?.note).toContain('"README.md" is not a table (format "md")');
  });

  it('reports an empty file as a source error', async () => {
    expect(summary(await check(tablePackage('')))).toEqual(['source-error']);
  });

  it('reports a missing or empty file with a schema as that one error, with no label errors', async () => {
    const dir = folder({
      'empty.csv': '',
      'datapackage.json': {
        name: 't',
        resources: [
          { name: 'gone', path: 'missing.csv', schema: { fields: [{ name: 'a' }, { name: 'b' }] } },
          { name: 'empty', path: 'empty.csv', schema: { fields: [{ name: 'a' }] } },
        ],
      },
    });
    expect(summary(await check(dir))).toEqual(['scheme-error', 'source-error']);
  });

  it('accepts a file with only a header', async () => {
    const report = await check(tablePackage('id,name\n', schema({ name: 'id' }, { name: 'name' })));
    expect(report.valid).toBe(true);
    expect(report.tasks[0]?.stats.rows).toBe(0);
  });

  it('checks the labels of a header-only file', async () => {
    expect(
      summary(await check(tablePackage('id,nom\n', schema({ name: 'id' }, { name: 'name' })))),
    ).toEqual(['incorrect-label@2']);
  });

  it('reads a 10 MB single field', async () => {
    const report = await check(
      tablePackage(
        `text\n"${'y'.repeat(10 * 1024 * 1024)}"\n`,
        schema({ name: 'text', constraints: { maxLength: 100 } }),
      ),
    );
    expect(summary(report)).toEqual(['constraint-error@2@1']);
    expect(report.tasks[0]?.errors[0]?.cell?.length).toBe(10 * 1024 * 1024);
  });

  it('stops at a row past the row limits, whether it ends in one chunk or spans many', async () => {
    const limits = { rowLimits: { maxRowChars: 100_000, maxColumns: 3 } };
    const spanning = await check(tablePackage(`text\n"${'y'.repeat(10 * 1024 * 1024)}\n`), limits);
    expect(summary(spanning)).toEqual(['source-error']);
    expect(spanning.tasks[0]?.errors[0]?.message).toContain(
      'row 2 is longer than 100,000 characters',
    );
    const short = await check(tablePackage(`text\n${'y'.repeat(200_000)}\nok\n`), limits);
    expect(short.tasks[0]?.errors[0]?.message).toContain('row 2 is longer than 100,000 characters');
    const wide = await check(tablePackage('a,b,c,d\n1,2,3,4\n'), limits);
    expect(wide.tasks[0]?.errors[0]?.message).toContain(
      'row 1 has 4 cells; this hub reads at most 3',
    );
    expect((await check(tablePackage(`text\n${'y'.repeat(200_000)}\n`))).valid).toBe(true);
    // With a schema, nothing is read to infer one: the validator's own read stops.
    const typed = (...names: string[]): ReturnType<typeof schema> =>
      schema(...names.map((name) => ({ name })));
    const shortTyped = await check(
      tablePackage(`text\n${'y'.repeat(200_000)}\nok\n`, typed('text')),
      limits,
    );
    expect(shortTyped.tasks[0]?.errors[0]?.message).toContain(
      'row 2 is longer than 100,000 characters',
    );
    const wideTyped = await check(tablePackage('a,b\n1,2,3,4\n', typed('a', 'b')), limits);
    expect(wideTyped.tasks[0]?.errors[0]?.message).toContain(
      'row 2 has 4 cells; this hub reads at most 3',
    );
  });

  it('reports binary garbage as undecodable when UTF-8 is declared', async () => {
    const garbage = new Uint8Array(4096).map((_, index) => (index * 7919 + 13) % 256);
    const report = await check(
      tablePackage(garbage, { encoding: 'utf-8', schema: { fields: [{ name: 'a' }] } }),
    );
    expect(report.valid).toBe(false);
    expect(summary(report)).toContain('encoding-error');
  });

  it('never crashes on binary garbage without a declared encoding', async () => {
    const garbage = new Uint8Array(20_000).map((_, index) => (index * 31 + 7) % 256);
    const report = await check(tablePackage(garbage));
    expect(report.tasks).toHaveLength(1);
  });

  it('raises a typed error for a source that does not exist', async () => {
    await expect(check(join(folder({}), 'nope'))).rejects.toBeInstanceOf(SourceNotFound);
    await expect(check(folder({}))).rejects.toThrow('without a datapackage.json');
  });
});

describe('encodings', () => {
  const latin1 = Buffer.from('city,country\nK\xf6ln,Germany\nZ\xfcrich,Switzerland\n', 'latin1');

  it('detects Latin-1 and reads it', async () => {
    const report = await check(
      tablePackage(
        latin1,
        schema({ name: 'city', constraints: { enum: ['Köln', 'Zürich'] } }, { name: 'country' }),
      ),
    );
    expect(summary(report)).toEqual([]);
  });

  it('reports Latin-1 bytes declared as UTF-8 with their offset and row', async () => {
    const report = await check(tablePackage(latin1, { encoding: 'utf-8' }));
    expect(summary(report)).toEqual(['encoding-error']);
    expect(report.tasks[0]?.errors[0]?.note).toBe(
      'byte 0xf6 at offset 14 is not valid utf-8 (row 2)',
    );
  });

  it('reads characters cut between the pieces of a chunk, and names the offset of a bad byte past them', async () => {
    // A chunk is decoded 64 KB at a time: an é starts on the last byte of the first piece,
    // and a Latin-1 byte lies in a later piece of the same chunk.
    const head = 'name,size\n';
    const first = `${'x'.repeat(65_535 - head.length)}é,1\n`;
    const rows = Array.from({ length: 20_000 }, (_, index) => `é${String(index)},2\n`).join('');
    const good = Buffer.from(head + first + rows, 'utf8');
    expect(good.indexOf(Buffer.from('é'))).toBe(65_535);
    const fields = [{ name: 'name', constraints: { maxLength: 70_000 } }, { name: 'size' }];
    expect(summary(await check(tablePackage(good, { schema: { fields } })))).toEqual([]);
    const at = good.indexOf(Buffer.from('é15000,'));
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xf6]), good.subarray(at + 2)]);
    const report = await check(tablePackage(bad, { encoding: 'utf-8', schema: { fields } }));
    expect(summary(report)).toEqual(['encoding-error']);
    expect(report.tasks[0]?.errors[0]?.note).toBe(
      `byte 0xf6 at offset ${String(at)} is not valid utf-8 (row 15003)`,
    );
  });

  it('reads UTF-16 with a byte order mark', async () => {
    const text = 'name,size\nalpha,1\nbeta,2\n';
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const report = await check(
      tablePackage(utf16, schema({ name: 'name' }, { name: 'size', type: 'integer' })),
    );
    expect(summary(report)).toEqual([]);
    expect(report.tasks[0]?.labels).toEqual(['name', 'size']);
  });

  it('strips a UTF-8 byte order mark from the first label', async () => {
    const report = await check(
      tablePackage('\ufeffid\n1\n', schema({ name: 'id', type: 'integer' })),
    );
    expect(summary(report)).toEqual([]);
  });

  it('reports a declared encoding it does not know', async () => {
    expect(summary(await check(tablePackage('id\n1\n', { encoding: 'klingon' })))).toEqual([
      'encoding-error',
    ]);
  });
});

describe('dialects', () => {
  it('sniffs a semicolon delimiter and says so', async () => {
    const report = await check(
      tablePackage(
        'a;b\n1;2\n3;4\n',
        schema({ name: 'a', type: 'integer' }, { name: 'b', type: 'integer' }),
      ),
    );
    expect(summary(report)).toEqual([]);
    expect(report.tasks[0]?.warnings).toEqual(['sniffed delimiter ";"']);
  });

  it.each([
    ['tab', 'a\tb\n1\t2\n'],
    ['pipe', 'a|b\n1|2\n'],
  ])('sniffs a %s delimiter', async (_, csv) => {
    expect(
      summary(
        await check(
          tablePackage(csv, schema({ name: 'a', type: 'integer' }, { name: 'b', type: 'integer' })),
        ),
      ),
    ).toEqual([]);
  });

  it('reads without a header', async () => {
    const report = await check(
      tablePackage('1,a\nx,b\n', {
        dialect: { header: false },
        ...schema({ name: 'id', type: 'integer' }, { name: 'n' }),
      }),
    );
    expect(summary(report)).toEqual(['type-error@2@1']);
  });

  it('joins several header rows and skips comment rows', async () => {
    const csv = '# exported\nyear,amount\n,eur\n2020,1\n# note\n2021,x\n';
    const resource = {
      dialect: { headerRows: [1, 2], commentChar: '#' },
      ...schema({ name: 'year', type: 'year' }, { name: 'amount eur', type: 'integer' }),
    };
    const report = await check(
      tablePackage(csv, resource, {
        $schema: 'https://datapackage.org/profiles/2.0/datapackage.json',
      }),
    );
    expect(report.tasks[0]?.labels).toEqual(['year', 'amount eur']);
    expect(summary(report)).toEqual(['type-error@6@2']);
  });

  it('skips comment rows by number', async () => {
    const report = await check(
      tablePackage(
        'id\nbad\n1\n',
        { dialect: { commentRows: [2] }, ...schema({ name: 'id', type: 'integer' }) },
        { $schema: 'https://datapackage.org/profiles/2.0/datapackage.json' },
      ),
    );
    expect(summary(report)).toEqual([]);
  });

  it('reads a multipart resource, dropping the repeated headers', async () => {
    const dir = folder({
      'a.csv': 'id\n1\n2\n',
      'b.csv': 'id\n3\nx\n',
      'datapackage.json': {
        resources: [
          { name: 'parts', path: ['a.csv', 'b.csv'], ...schema({ name: 'id', type: 'integer' }) },
        ],
      },
    });
    const report = await check(dir);
    expect(summary(report)).toEqual(['type-error@5@1']);
    expect(report.tasks[0]?.place).toBe('a.csv (multipart)');
  });
});

describe('sources', () => {
  it('validates a single CSV file with an inferred schema', async () => {
    const dir = folder({
      'prices.csv': 'item,price,day\napple,1.5,2024-01-01\npear,2,2024-01-02\n',
    });
    const report = await check(join(dir, 'prices.csv'));
    expect(report.valid).toBe(true);
    expect(report.tasks[0]).toMatchObject({
      name: 'prices',
      type: 'table',
      place: 'prices.csv',
      labels: ['item', 'price', 'day'],
    });
  });

  it('reports type errors past the rows used to infer the schema', async () => {
    const rows = Array.from({ length: 150 }, (_, index) => String(index)).join('\n');
    const dir = folder({ 'n.csv': `n\n${rows}\nnot a number\n` });
    expect(summary(await check(join(dir, 'n.csv')))).toEqual(['type-error@152@1']);
  });

  it('validates inline data as arrays and as objects', async () => {
    const dir = folder({
      'datapackage.json': {
        resources: [
          {
            name: 'rows',
            data: [
              ['id', 'name'],
              [1, 'a'],
              ['x', 'b'],
            ],
            ...schema({ name: 'id', type: 'integer' }, { name: 'name' }),
          },
          {
            name: 'objects',
            data: [{ id: 1 }, { id: 'y' }],
            ...schema({ name: 'id', type: 'integer' }),
          },
        ],
      },
    });
    const report = await check(dir);
    expect(summary(report)).toEqual(['type-error@3@1', 'type-error@3@1']);
    expect(report.tasks[0]?.place).toBe('<memory>');
  });

  it('checks non-tabular files as files', async () => {
    const dir = folder({
      'doc.pdf': '%PDF-1.4',
      'datapackage.json': {
        resources: [
          { name: 'doc', path: 'doc.pdf', bytes: 8 },
          { name: 'gone', path: 'gone.zip' },
        ],
      },
    });
    const report = await check(dir);
    expect(report.tasks.map((task) => task.type)).toEqual(['file', 'file']);
    expect(summary(report)).toEqual(['scheme-error']);
  });

  describe('over HTTP', () => {
    let server: Server;
    let base = '';
    beforeAll(async () => {
      const files: Record<string, string> = {
        '/pkg/datapackage.json': JSON.stringify({
          resources: [
            { name: 'a', path: 'data/a.csv', ...schema({ name: 'id', type: 'integer' }) },
            { name: 'b', path: 'missing.csv' },
          ],
        }),
        '/pkg/data/a.csv': 'id\n1\nz\n',
        '/plain.csv': 'x,y\n1,2\n',
        '/page': '<!DOCTYPE html>\n<html><head><title>Home</title></head><body>hi</body></html>\n',
      };
      server = createServer((request, response) => {
        const body = files[request.url ?? ''];
        response.writeHead(body === undefined ? 404 : 200).end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      base =
        typeof address === 'object' && address ? `http://127.0.0.1:${String(address.port)}` : '';
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('fetches a remote descriptor and its relative resources', async () => {
      const report = await check(`${base}/pkg/datapackage.json`);
      expect(summary(report)).toEqual(['type-error@3@1', 'scheme-error']);
      expect(report.tasks[1]?.errors[0]?.note).toContain('HTTP 404');
    });

    it('fetches a remote CSV', async () => {
      expect((await check(`${base}/plain.csv`)).valid).toBe(true);
    });

    it('calls an HTML page where a table was expected what it is', async () => {
      const report = await check(`${base}/page`);
      expect(report.valid).toBe(false);
      expect(report.tasks[0]?.errors[0]?.note).toBe('the data is an HTML page, not a table');
    });

    it('fetches http resources of a local package', async () => {
      const local = folder({
        'datapackage.json': {
          resources: [
            {
              name: 'remote',
              path: `${base}/pkg/data/a.csv`,
              ...schema({ name: 'id', type: 'integer' }),
            },
          ],
        },
      });
      expect(summary(await check(local))).toEqual(['type-error@3@1']);
    });
  });
});

describe('limits and filters', () => {
  const csv = `id\n${Array.from({ length: 50 }, () => 'x').join('\n')}\n`;
  const resource = schema({ name: 'id', type: 'integer' });

  it('stops at the error limit with a warning', async () => {
    const report = await check(tablePackage(csv, resource), { limitErrors: 10 });
    expect(report.tasks[0]?.errors).toHaveLength(10);
    expect(report.tasks[0]?.warnings).toEqual(['reached error limit: 10']);
  });

  it('has no limit with 0', async () => {
    expect(
      (await check(tablePackage(csv, resource), { limitErrors: 0 })).tasks[0]?.errors,
    ).toHaveLength(50);
  });

  it('picks and skips errors by type or tag', async () => {
    const dir = tablePackage('id,b\nx\n', schema({ name: 'id', type: 'integer' }, { name: 'c' }));
    expect(summary(await check(dir))).toEqual([
      'incorrect-label@2',
      'type-error@2@1',
      'missing-cell@2@2',
    ]);
    expect(summary(await check(dir, { pickErrors: ['type-error'] }))).toEqual(['type-error@2@1']);
    expect(summary(await check(dir, { skipErrors: ['#label', 'missing-cell'] }))).toEqual([
      'type-error@2@1',
    ]);
    expect(summary(await check(dir, { pickErrors: ['#header'] }))).toEqual(['incorrect-label@2']);
  });
});

describe('report shape', () => {
  it('matches the frictionless report structure', async () => {
    const report = await check(join(import.meta.dirname, '../../examples/cities'));
    expect(Object.keys(report)).toEqual(['valid', 'stats', 'warnings', 'errors', 'tasks']);
    expect(Object.keys(report.stats)).toEqual(['tasks', 'errors', 'warnings', 'seconds']);
    expect(
      report.tasks.map((task) => [
        task.name,
        task.type,
        task.place,
        task.stats.rows,
        task.stats.fields,
      ]),
    ).toEqual([
      ['countries', 'table', 'data/countries.csv', 5, 3],
      ['cities', 'table', 'data/cities.csv', 7, 9],
    ]);
    expect(report.tasks[1]?.stats.bytes).toBe(
      readFileSync(join(import.meta.dirname, '../../examples/cities/data/cities.csv')).length,
    );
  });
});

describe('json error position', () => {
  it.each([
    ['{"a": 1,}', 8],
    ['[1, 2', 5],
    ['{"a": tru}', 6],
    ['{} extra', 3],
    ['{"a": "b"}', -1],
  ])('finds the offset in %s', (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
  });
});

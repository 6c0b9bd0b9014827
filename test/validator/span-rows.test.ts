/**
 * The validator takes a record either as cells or as spans of a chunk (see CsvParser), and
 * checks a row of spans without making strings of its cells unless the row needs reporting.
 * Whatever the rows hold and wherever chunks end, both ways must give the same report.
 */
import { describe, expect, it } from 'vitest';
import { seeded } from '../helpers/seeded.js';
import type { SchemaDescriptor } from '../../packages/core/src/validator/descriptor/types.js';
import { TaskCollector } from '../../packages/core/src/validator/report/task.js';
import { compileField } from '../../packages/core/src/validator/schema/field.js';
import { CsvParser } from '../../packages/core/src/validator/table/csv-parser.js';
import {
  foreignKeyOf,
  type ForeignKeyCheck,
} from '../../packages/core/src/validator/table/keys-check.js';
import { LookupKeys } from '../../packages/core/src/validator/table/lookup-keys.js';
import {
  TableValidator,
  type TableLayout,
} from '../../packages/core/src/validator/table/table-validator.js';

const SCHEMA: SchemaDescriptor = {
  fields: [
    { name: 'id', type: 'integer' },
    { name: 'code', type: 'string', constraints: { unique: true } },
    { name: 'amount', type: 'number', constraints: { minimum: 0 } },
    { name: 'day', type: 'date', constraints: { required: true } },
    { name: 'flag', type: 'boolean' },
    { name: 'kind', type: 'string', constraints: { enum: ['a', 'b'] } },
    { name: 'note', type: 'string' },
    { name: 'ref', type: 'integer' },
  ],
  primaryKey: ['id'],
  missingValues: ['', 'NA', '-'],
};
const REF = 7;
/** The same schema with no required field: a blank row then fails no cell check. */
const NONE_REQUIRED: SchemaDescriptor = {
  ...SCHEMA,
  fields: SCHEMA.fields.map(({ constraints, ...field }) =>
    constraints?.required ? field : { ...field, constraints },
  ),
};

const LAYOUT: TableLayout = {
  headerRows: [1],
  headerJoin: ' ',
  commentChar: undefined,
  commentRows: new Set(),
};

const GOOD: (id: number) => string[] = (id) => [
  String(id),
  `c${String(id)}`,
  `${String(id % 90)}.25`,
  `2024-0${String(1 + (id % 9))}-1${String(id % 10)}`,
  id % 2 === 0 ? 'true' : '0',
  id % 3 === 0 ? 'a' : 'b',
  `"note ${String(id)}, ok"`,
  String(id % 60),
];

/** What may go wrong with a cell, each a rare accident on a valid row. */
const ACCIDENTS: ((cells: string[], id: number, next: (n: number) => number) => void)[] = [
  (cells) => (cells[2] = '-3'),
  (cells) => (cells[2] = 'x1'),
  (cells) => (cells[3] = 'NA'),
  (cells) => (cells[3] = '2023-02-29'),
  (cells) => (cells[3] = '2024-13-01'),
  (cells) => (cells[3] = '2024-02-3x'),
  (cells) => (cells[3] = '2024-1-15'),
  (cells) => (cells[3] = '2024-01-015'),
  (cells) => (cells[4] = 'yes'),
  (cells) => (cells[5] = 'c'),
  (cells) => (cells[7] = '99'),
  (cells) => (cells[7] = '-'),
  (cells, id, next) => (cells[0] = String(Math.max(1, id - 1 - next(20)))),
  (cells, id, next) => (cells[1] = `c${String(Math.max(1, id - 1 - next(20)))}`),
  (cells) => (cells[0] = ''),
  (cells) => (cells[6] = '"a ""quoted"" word"'),
  (cells) => (cells[6] = '"two\nlines"'),
  (cells) => cells.push('extra'),
  (cells) => cells.splice(5),
  (cells) => cells.fill(''),
  (cells) => cells.fill('NA'),
  (cells) => (cells[0] = '12345678901234567890'),
  (cells) => (cells[2] = '1e3'),
];

function table(seed: number, rows: number): string {
  const next = seeded(seed);
  const lines = [SCHEMA.fields.map((field) => field.name).join(',')];
  for (let id = 1; id <= rows; id++) {
    const cells = GOOD(id);
    if (next(8) === 0) ACCIDENTS[next(ACCIDENTS.length)]?.(cells, id, next);
    lines.push(cells.join(','));
  }
  return lines.join(next(2) === 0 ? '\n' : '\r\n') + '\n';
}

function foreignKey(): ForeignKeyCheck {
  const check: ForeignKeyCheck = {
    fields: [REF],
    fieldNames: ['ref'],
    referenceName: 'refs',
    referenceFieldNames: ['id'],
    lookup: new LookupKeys(1024 * 1024),
  };
  for (let id = 0; id < 50; id++) check.lookup.add(foreignKeyOf(check, [id]) as string);
  return check;
}

/** Validates the text fed in chunks of `chunk` characters, with records as spans or cells. */
function validate(
  text: string,
  chunk: number,
  asSpans: boolean,
  limitErrors = 0,
  schema = SCHEMA,
  foreignKeys = [foreignKey()],
): { report: { errors: { type: string }[]; rows: number }; spans: number } {
  const fields = schema.fields.map((field) => compileField(field, schema, 2));
  const collector = new TaskCollector('t', 'table', '', { limitErrors });
  const validator = new TableValidator(
    fields,
    LAYOUT,
    { primaryKey: [0], uniqueKeys: [], foreignKeys },
    'exact',
    collector,
  );
  let spans = 0;
  const parser = new CsvParser(
    {
      delimiter: ',',
      quoteChar: '"',
      doubleQuote: true,
      escapeChar: null,
      skipInitialSpace: false,
    },
    (cells) => validator.record(cells),
    asSpans
      ? (chunkText, bounds, count) => {
          spans++;
          validator.spans(chunkText, bounds, count);
        }
      : undefined,
  );
  for (let at = 0; at < text.length && validator.open; at += chunk)
    parser.push(text.slice(at, at + chunk));
  parser.end();
  validator.finish();
  const report = { errors: collector.errors, warnings: collector.warnings, rows: validator.rows };
  return { report, spans };
}

describe('rows taken as spans', () => {
  it('give the report rows taken as cells give, whatever the rows and the chunks', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const text = table(seed, 300);
      const schema = seed % 2 === 0 ? SCHEMA : NONE_REQUIRED;
      const asCells = validate(text, text.length, false, 0, schema);
      expect(asCells.spans).toBe(0);
      for (const chunk of [text.length, 4096, 97, 1 + (seed % 13)]) {
        const asSpans = validate(text, chunk, true, 0, schema);
        const what = `seed ${String(seed)}, chunk ${String(chunk)}`;
        expect(asSpans.report, what).toEqual(asCells.report);
        if (chunk > 90) expect(asSpans.spans, what).toBeGreaterThan(100);
      }
    }
  });

  it('give the same report where the primary key is the one key (its own quicker way)', () => {
    // No unique field and no foreign key: a number key seen first is held without checkKeys.
    const schema: SchemaDescriptor = {
      ...SCHEMA,
      fields: SCHEMA.fields.map((field) =>
        field.name === 'code' ? { ...field, constraints: {} } : field,
      ),
    };
    for (let seed = 1; seed <= 20; seed++) {
      const text = table(seed, 300);
      const asCells = validate(text, text.length, false, 0, schema, []);
      const asSpans = validate(text, 4096, true, 0, schema, []);
      expect(asSpans.report, `seed ${String(seed)}`).toEqual(asCells.report);
      if (seed === 3)
        expect(asSpans.report.errors.map((error) => error.type)).toContain('primary-key');
    }
  });

  it('stop at the error limit on the same error', () => {
    const text = table(99, 2000);
    for (const limit of [1, 5, 30])
      expect(validate(text, 512, true, limit).report).toEqual(
        validate(text, 512, false, limit).report,
      );
  });

  it('report the rows their checks find wrong', () => {
    const text = table(3, 300);
    const { errors } = validate(text, text.length, true).report;
    const types = new Set(errors.map((error) => error.type));
    for (const type of [
      'type-error',
      'constraint-error',
      'primary-key',
      'foreign-key',
      'blank-row',
    ])
      expect(types).toContain(type);
  });
});

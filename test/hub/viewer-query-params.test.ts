import { describe, expect, it } from 'vitest';
import { HttpError } from '../../packages/hub/src/http-error.js';
import {
  MAX_OFFSET,
  queryParams,
  tableQuery,
} from '../../packages/hub/src/services/viewer/query-params.js';
import { MAX_PAGE_ROWS, PAGE_ROWS } from '../../packages/hub/src/services/viewer/types.js';
import type { ViewerColumn } from '../../packages/hub/src/services/viewer/types.js';

const COLUMNS: ViewerColumn[] = [
  { name: 'name', type: 'string' },
  { name: 'price', type: 'number' },
  { name: 'count', type: 'integer' },
  { name: 'day', type: 'date' },
  { name: 'at', type: 'datetime' },
  { name: 'year', type: 'year' },
  { name: 'ok', type: 'boolean' },
  // Publishers name columns: quotes, dots, a parameter's own characters, unicode.
  { name: 'a"b', type: 'string' },
  { name: "it's", type: 'integer' },
  { name: 'x.y', type: 'number' },
  { name: 'k=v&w', type: 'string' },
  { name: 'città 🌍', type: 'string' },
];

const read = (address: string) => tableQuery(new URLSearchParams(address), COLUMNS, 'prices');

/** The HttpError a bad address throws: its status and message. */
function refusal(address: string): { status: number; message: string } {
  try {
    read(address);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return { status: (error as HttpError).status, message: (error as HttpError).message };
  }
  throw new Error(`${address} was taken`);
}

describe('the table viewer’s address parameters', () => {
  it('reads no parameter as the first page of the table, unsorted, unfiltered', () => {
    expect(read('')).toEqual({ table: 'prices', filters: [], offset: 0, limit: PAGE_ROWS });
    // Empty values (a form's empty inputs) set nothing.
    expect(read('sort=&order=&q=&eq.name=&min.price=&max.day=&has.name=&rows=&size=')).toEqual(
      read(''),
    );
  });

  it('reads sort, order, search, each kind of filter, offset and size', () => {
    const query = read(
      'sort=price&order=desc&q=tea&eq.name=Green&min.price=1.5&max.price=10&has.a%22b=x' +
        '&min.day=2024-02-29&eq.ok=true&eq.year=1999&max.at=2024-01-01T10:00:00Z&rows=150&size=100',
    );
    expect(query).toEqual({
      table: 'prices',
      sort: { column: 'price', descending: true },
      search: 'tea',
      filters: [
        { column: 'name', kind: 'equals', value: 'Green' },
        { column: 'price', kind: 'range', min: '1.5', max: '10' },
        { column: 'a"b', kind: 'contains', value: 'x' },
        { column: 'day', kind: 'range', min: '2024-02-29' },
        { column: 'ok', kind: 'equals', value: 'true' },
        { column: 'year', kind: 'equals', value: '1999' },
        { column: 'at', kind: 'range', max: '2024-01-01T10:00:00Z' },
      ],
      offset: 150,
      limit: 100,
    });
    expect(read('sort=count').sort).toEqual({ column: 'count', descending: false });
  });

  it('takes column names with quotes, dots, parameter characters and unicode as names', () => {
    const query = read(
      new URLSearchParams([
        ['sort', "it's"],
        ['eq.x.y', '2'],
        ['has.k=v&w', "'; drop table t; --"],
        ['eq.città 🌍', 'Roma'],
      ]).toString(),
    );
    expect(query.sort).toEqual({ column: "it's", descending: false });
    expect(query.filters).toEqual([
      { column: 'x.y', kind: 'equals', value: '2' },
      { column: 'k=v&w', kind: 'contains', value: "'; drop table t; --" },
      { column: 'città 🌍', kind: 'equals', value: 'Roma' },
    ]);
  });

  it('answers 400 naming an unknown column, without its control characters', () => {
    expect(refusal('sort=weight')).toEqual({
      status: 400,
      message: '"sort" names no column of table "prices"',
    });
    expect(refusal('eq.weight=1').message).toBe('"eq.weight" names no column of table "prices"');
    // A name close to a real one is not it: no trimming, no case folding.
    expect(refusal('eq.Name=1').status).toBe(400);
    expect(refusal('eq.name%20=1').status).toBe(400);
    expect(refusal('min.a%22b.=1').status).toBe(400);
    const bell = refusal('has.%1b%5B31m=1').message;
    expect(bell).toBe('"has.?[31m" names no column of table "prices"');
    // A long unknown name is cut in the message.
    expect(refusal(`eq.${'z'.repeat(10_000)}=1`).message.length).toBeLessThan(120);
    // A misspelt column's name is said with the one meant.
    expect(refusal('eq.Name=1').message).toBe(
      '"eq.Name" names no column of table "prices" (did you mean "name"?)',
    );
    // Unknown names without a filter prefix are refused too (a misspelt filter would be the
    // whole table unseen).
    for (const address of ['other=1', 'eqx=2', '.name=3'])
      expect(refusal(address).message, address).toMatch(/is not a parameter of a table's view/);
  });

  it('answers 400 with the reason for a value not of its column’s type', () => {
    const cases: [string, RegExp][] = [
      ['eq.price=abc', /"eq.price" must be a number/],
      ['eq.price=1e999', /must be a number/],
      ['eq.price=NaN', /must be a number/],
      ['eq.price=0x10', /must be a number/],
      ['eq.count=1.5', /must be a whole number \(its column is an integer\)/],
      ['eq.count=12345678901234567890123', /must be a whole number/],
      ['eq.day=2023-02-29', /must be a date as YYYY-MM-DD/],
      ['min.day=yesterday', /must be a date/],
      ['max.at=2024-13-01T00:00:00Z', /a date and time/],
      ['eq.year=99', /a year of four digits/],
      ['eq.ok=yes', /true or false/],
      ['min.name=a', /a string column has no range/],
      ['max.ok=true', /a boolean column has no range/],
    ];
    for (const [address, reason] of cases) {
      const { status, message } = refusal(address);
      expect(status, address).toBe(400);
      expect(message, address).toMatch(reason);
    }
  });

  it('answers 400 for a parameter given twice, whatever the kind', () => {
    for (const address of [
      'sort=name&sort=price',
      'q=a&q=b',
      'rows=1&rows=2',
      'eq.name=a&eq.name=b',
      'min.price=1&min.price=2',
      'eq.name=a&eq.name=',
    ])
      expect(refusal(address), address).toMatchObject({ status: 400, message: /more than once/ });
    // An equals and a contains on one column are two filters.
    expect(read('eq.name=a&has.name=b').filters).toHaveLength(2);
  });

  it('bounds values, offsets and sizes', () => {
    const long = 'é'.repeat(201);
    expect(refusal(`q=${long}`).message).toBe('"q" is longer than 200 characters');
    expect(refusal(`has.name=${long}`).status).toBe(400);
    expect(refusal(`eq.name=${long}`).status).toBe(400);
    expect(read(`q=${'é'.repeat(200)}`).search).toHaveLength(200);
    expect(read(`rows=${MAX_OFFSET}`).offset).toBe(MAX_OFFSET);
    for (const rows of [String(MAX_OFFSET + 1), '-1', '1.5', '1e3', ' 1', '99999999999999999999'])
      expect(refusal(`rows=${encodeURIComponent(rows)}`).message, rows).toMatch(/"rows" must be/);
    expect(read(`size=${MAX_PAGE_ROWS}`).limit).toBe(MAX_PAGE_ROWS);
    // Too few and too many in the same words.
    for (const size of [String(MAX_PAGE_ROWS + 1), '0', '1000', '-5', 'all'])
      expect(refusal(`size=${size}`).message, size).toBe(
        `"size" must be a whole number from 1 to ${MAX_PAGE_ROWS}`,
      );
    expect(refusal('order=up').message).toBe('"order" must be asc or desc');
  });

  it('refuses a parameter it does not take, naming it and what was meant', () => {
    const cases: [string, RegExp][] = [
      ['EQ.ok=true', /^"EQ\.ok" is not a parameter of a table's view \(did you mean "eq\.ok"\?\)/],
      ['eq_ok=true', /^"eq_ok" is not a parameter .*did you mean "eq\.ok"/],
      ['Sort=price', /^"Sort" .*did you mean "sort"/],
      ['limit=5', /^"limit" .*did you mean "size"/],
      ['offset=10', /^"offset" .*did you mean "rows"/],
      [
        'foo=bar',
        /^"foo" is not a parameter of a table's view: it takes table, sort, order, q, rows, size, and eq\., min\., max\., has\. or is\. before a column's name$/,
      ],
      ['cols=all', /^"cols" is not a parameter/],
    ];
    for (const [address, message] of cases) {
      expect(refusal(address), address).toMatchObject({ status: 400, message });
      // Even empty, as a misspelt parameter's value may be.
      expect(refusal(address.replace(/=.*/, '=')).status, address).toBe(400);
    }
    // What a caller reads itself: the page's cols, the route's v.
    const others = new URLSearchParams('cols=all&sort=price');
    expect(tableQuery(others, COLUMNS, 'prices', ['cols']).sort?.column).toBe('price');
  });

  it('refuses an order without the sort it orders', () => {
    expect(refusal('order=desc')).toMatchObject({
      status: 400,
      message: '"order" is given without "sort": give the column to sort by',
    });
    expect(refusal('order=desc&sort=').status).toBe(400);
    expect(tableQuery(new URLSearchParams('order='), COLUMNS, 'prices').sort).toBeUndefined();
  });

  it('filters missing values, or present ones, of any column', () => {
    expect(read('is.price=missing&is.a%22b=present').filters).toEqual([
      { column: 'price', kind: 'missing', present: false },
      { column: 'a"b', kind: 'missing', present: true },
    ]);
    expect(read('is.price=').filters).toEqual([]);
    expect(refusal('is.price=null')).toMatchObject({
      status: 400,
      message: '"is.price" must be missing or present',
    });
    expect(refusal('is.nope=missing').message).toMatch(/names no column/);
  });

  it('takes Table Schema’s true and false values, and values in Unicode NFC', () => {
    for (const value of ['true', 'True', 'TRUE', '1'])
      expect(read(`eq.ok=${value}`).filters, value).toEqual([
        { column: 'ok', kind: 'equals', value: 'true' },
      ]);
    for (const value of ['false', 'False', 'FALSE', '0'])
      expect(read(`eq.ok=${value}`).filters, value).toEqual([
        { column: 'ok', kind: 'equals', value: 'false' },
      ]);
    expect(refusal('eq.ok=yes').message).toBe(
      '"eq.ok" must be true or false (its column is a boolean)',
    );
    // ç written as c and a combining cedilla is looked for as the one character.
    const decomposed = encodeURIComponent('c\u0327a');
    const composed = '\u00e7a';
    expect(read(`q=${decomposed}`).search).toBe(composed);
    expect(
      read(`has.name=${decomposed}&eq.${encodeURIComponent('città 🌍')}=${decomposed}`).filters,
    ).toEqual([
      { column: 'name', kind: 'contains', value: composed },
      { column: 'città 🌍', kind: 'equals', value: composed },
    ]);
  });

  it('writes a query back as the parameters it was read from', () => {
    const queries = [
      read(''),
      read('sort=price&order=desc&q=tea&eq.name=Green&min.price=1.5&rows=150&size=10'),
      read(
        new URLSearchParams([
          ['sort', "it's"],
          ['max.x.y', '-2.5'],
          ['has.k=v&w', '%_\\'],
          ['eq.città 🌍', 'Roma'],
          ['has.a"b', ' spaced '],
          ['is.count', 'missing'],
          ['is.ok', 'present'],
        ]).toString(),
      ),
    ];
    for (const query of queries) {
      const params = queryParams(query);
      expect(params.get('table')).toBe('prices');
      expect(tableQuery(new URLSearchParams(params.toString()), COLUMNS, 'prices')).toEqual(query);
    }
    expect(queryParams(read('')).toString()).toBe('table=prices');
  });
});

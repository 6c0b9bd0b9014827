import { describe, expect, it } from 'vitest';
import { seeded } from '../helpers/seeded.js';
import {
  CsvParser,
  spanCells,
  type CsvOptions,
} from '../../packages/core/src/validator/table/csv-parser.js';

const DEFAULTS: CsvOptions = {
  delimiter: ',',
  quoteChar: '"',
  doubleQuote: true,
  escapeChar: null,
  skipInitialSpace: false,
};

/** The records read, as cells; `asSpans` has the parser hand on what it can as spans. */
function parse(
  text: string,
  options: Partial<CsvOptions> = {},
  chunkSize = text.length || 1,
  asSpans = false,
): string[][] {
  return read(text, options, chunkSize, asSpans).records;
}

function read(
  text: string,
  options: Partial<CsvOptions>,
  chunkSize: number,
  asSpans: boolean,
): { records: string[][]; spans: number } {
  const records: string[][] = [];
  let spans = 0;
  const parser = new CsvParser(
    { ...DEFAULTS, ...options },
    (cells) => records.push(cells),
    asSpans
      ? (chunk, bounds, count) => {
          spans++;
          records.push(spanCells(chunk, bounds, count));
        }
      : undefined,
  );
  for (let i = 0; i < text.length; i += chunkSize) parser.push(text.slice(i, i + chunkSize));
  parser.end();
  return { records, spans };
}

const CASES: [string, string, Partial<CsvOptions>, string[][]][] = [
  [
    'plain rows',
    'a,b\n1,2\n',
    {},
    [
      ['a', 'b'],
      ['1', '2'],
    ],
  ],
  [
    'no final line break',
    'a,b\n1,2',
    {},
    [
      ['a', 'b'],
      ['1', '2'],
    ],
  ],
  [
    'CRLF line breaks',
    'a,b\r\n1,2\r\n',
    {},
    [
      ['a', 'b'],
      ['1', '2'],
    ],
  ],
  [
    'CR line breaks',
    'a,b\r1,2\r',
    {},
    [
      ['a', 'b'],
      ['1', '2'],
    ],
  ],
  ['quoted delimiter', 'a,"b,c"\n', {}, [['a', 'b,c']]],
  ['quoted newline', '"line 1\nline 2",x\n', {}, [['line 1\nline 2', 'x']]],
  ['doubled quote', '"say ""hi""",x\n', {}, [['say "hi"', 'x']]],
  [
    'quote without doubleQuote ends the field',
    '"a""b",x\n',
    { doubleQuote: false },
    [['a"b"', 'x']],
  ],
  ['escape character', 'a\\,b,c\n', { escapeChar: '\\', quoteChar: null }, [['a,b', 'c']]],
  ['escape inside quotes', '"a\\"b",c\n', { escapeChar: '\\' }, [['a"b', 'c']]],
  [
    'semicolon delimiter',
    'a;b\n1;2\n',
    { delimiter: ';' },
    [
      ['a', 'b'],
      ['1', '2'],
    ],
  ],
  ['tab delimiter', 'a\tb\n', { delimiter: '\t' }, [['a', 'b']]],
  ['single quote character', "'a,b',c\n", { quoteChar: "'" }, [['a,b', 'c']]],
  ['skip initial space', 'a, b,  c\n', { skipInitialSpace: true }, [['a', 'b', 'c']]],
  ['spaces kept by default', 'a, b\n', {}, [['a', ' b']]],
  ['empty line is an empty record', 'a\n\nb\n', {}, [['a'], [], ['b']]],
  ['empty fields', ',,\n', {}, [['', '', '']]],
  ['trailing delimiter without line break', 'a,', {}, [['a', '']]],
  ['quoted empty field', '"",x\n', {}, [['', 'x']]],
  ['text after a closing quote is kept', '"ab"c,d\n', {}, [['abc', 'd']]],
  ['unterminated quote keeps the rest', '"abc\n', {}, [['abc\n']]],
  ['quote inside an unquoted field is literal', 'a"b,c\n', {}, [['a"b', 'c']]],
];

describe('CsvParser', () => {
  it.each(CASES)('%s', (_, text, options, expected) => {
    expect(parse(text, options)).toEqual(expected);
  });

  it.each(CASES)('%s, fed one character at a time', (_, text, options, expected) => {
    expect(parse(text, options, 1)).toEqual(expected);
  });

  it.each(CASES)('%s, handed on as spans', (_, text, options, expected) => {
    expect(parse(text, options, text.length || 1, true)).toEqual(expected);
    expect(parse(text, options, 1, true)).toEqual(expected);
    expect(parse(text, options, 2, true)).toEqual(expected);
  });

  it('reads a 10 MB single field across chunks', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const records = parse(`head\n"${big}"\n`, {}, 65_536);
    expect(records).toHaveLength(2);
    expect(records[1]?.[0]?.length).toBe(big.length);
  });
});

describe('CsvParser handing on spans', () => {
  it('hands on as spans the records that lie whole in one chunk, with nothing doubled', () => {
    const text = 'a,b\n1,"x"\n"y""z",3\n4,5\n6,7\n';
    const whole = read(text, {}, text.length, true);
    expect(whole.records).toEqual([
      ['a', 'b'],
      ['1', 'x'],
      ['y"z', '3'],
      ['4', '5'],
      ['6', '7'],
    ]);
    expect(whole.spans).toBe(4);
    // Cut inside the fourth record: it comes as cells, the records before and after as spans.
    const cut = read(text, {}, text.indexOf('4,5') + 2, true);
    expect(cut.records).toEqual(whole.records);
    expect(cut.spans).toBe(3);
  });

  it('holds records of more cells than its first bounds', () => {
    const record = Array.from({ length: 1000 }, (_, index) => String(index));
    const text = `${record.join(',')}\n${record.join(',')}`;
    const { records, spans } = read(text, {}, text.length, true);
    expect(records).toEqual([record, record]);
    expect(spans).toBe(1);
  });
});

describe('CsvParser fed equal chunks', () => {
  it('reads each as its own text (a file of repeated rows gives equal chunks)', () => {
    const found: string[][] = [];
    const parser = new CsvParser(DEFAULTS, (cells) => found.push(cells));
    const chunk = 'x,1\ny,2\n'.repeat(4);
    for (let i = 0; i < 3; i++) parser.push(chunk);
    parser.end();
    expect(found).toHaveLength(24);
    expect(found.every((cells) => cells.length === 2)).toBe(true);
  });
});

function randomField(next: (below: number) => number): string {
  const alphabet = ['a', 'b', '1', ' ', ',', '"', '\n', '\r', '\r\n', '\\', 'é'];
  return Array.from({ length: next(6) }, () => alphabet[next(alphabet.length)]).join('');
}

/** Writes records as RFC 4180 does: a field with a quote, delimiter or line break is quoted. */
function written(records: string[][], lineBreak: string): string {
  const cell = (field: string): string =>
    /[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
  return records.map((record) => record.map(cell).join(',') + lineBreak).join('');
}

describe('CsvParser on generated tables', () => {
  it('reads back what was written, whatever the chunks it is given', () => {
    const next = seeded(20_261_124);
    for (let table = 0; table < 300; table++) {
      const records = Array.from({ length: 1 + next(5) }, () =>
        Array.from({ length: 2 + next(4) }, () => randomField(next)),
      );
      const text = written(records, next(2) === 0 ? '\n' : '\r\n');
      for (const chunkSize of [text.length, 1, 2, 3, 1 + next(40)]) {
        expect(parse(text, {}, chunkSize), JSON.stringify(text)).toEqual(records);
        expect(parse(text, {}, chunkSize, true), JSON.stringify(text)).toEqual(records);
      }
    }
  });

  it('reads malformed text the same whatever the chunks it is given', () => {
    const next = seeded(7);
    for (let table = 0; table < 300; table++) {
      const text = Array.from({ length: 40 }, () => randomField(next)).join('');
      const whole = parse(text);
      for (const chunkSize of [1, 2, 3, 1 + next(20), text.length]) {
        expect(parse(text, {}, chunkSize), JSON.stringify(text)).toEqual(whole);
        expect(parse(text, {}, chunkSize, true), JSON.stringify(text)).toEqual(whole);
      }
      const escaping = { escapeChar: '\\', skipInitialSpace: true };
      const escaped = parse(text, escaping);
      expect(parse(text, escaping, 1)).toEqual(escaped);
      expect(parse(text, escaping, text.length, true)).toEqual(escaped);
      expect(parse(text, escaping, 1 + next(20), true)).toEqual(escaped);
    }
  });
});

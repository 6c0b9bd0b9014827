import { describe, expect, it } from 'vitest';
import { CsvParser, type CsvOptions } from '../../src/validator/table/csv-parser.js';

const DEFAULTS: CsvOptions = {
  delimiter: ',',
  quoteChar: '"',
  doubleQuote: true,
  escapeChar: null,
  skipInitialSpace: false,
};

function parse(
  text: string,
  options: Partial<CsvOptions> = {},
  chunkSize = text.length || 1,
): string[][] {
  const records: string[][] = [];
  const parser = new CsvParser({ ...DEFAULTS, ...options }, (cells) => records.push(cells));
  for (let i = 0; i < text.length; i += chunkSize) parser.push(text.slice(i, i + chunkSize));
  parser.end();
  return records;
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

  it('reads a 10 MB single field across chunks', () => {
    const big = 'x'.repeat(10 * 1024 * 1024);
    const records = parse(`head\n"${big}"\n`, {}, 65_536);
    expect(records).toHaveLength(2);
    expect(records[1]?.[0]?.length).toBe(big.length);
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

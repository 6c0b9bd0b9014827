import { describe, expect, it } from 'vitest';
import { seeded } from '../helpers/seeded.js';
import {
  casterFor,
  INVALID,
  spanCasterFor,
} from '../../packages/core/src/validator/schema/types/index.js';
import { plainDecimal } from '../../packages/core/src/validator/schema/types/numeric.js';
import type { FieldDescriptor } from '../../packages/core/src/validator/descriptor/types.js';

type Case = [field: Omit<FieldDescriptor, 'name'>, valid: unknown[], invalid: unknown[]];

const TABLE: Record<string, Case> = {
  'string default': [{ type: 'string' }, ['', 'anything', '  '], [1]],
  'string email': [
    { type: 'string', format: 'email' },
    ['ada@example.org', 'a.b+c@mail.co.uk'],
    ['not-an-email', 'a@b', '@example.org', 'a b@c.de'],
  ],
  'string uri': [
    { type: 'string', format: 'uri' },
    ['https://example.org/x?y=1', 'ftp://8.8.8.8', 'mailto:a@b.c'],
    ['8.8.8.8', '://no-scheme.test', 'no scheme'],
  ],
  'string uuid': [
    { type: 'string', format: 'uuid' },
    ['95ecc380-afe9-11e4-9b6c-751b66dd541e'],
    ['95ecc380afe911e49b6c751b66dd541e', '95ecc380-afe9-11e4-9b6c-751b66dd541'],
  ],
  'string binary': [
    { type: 'string', format: 'binary' },
    ['dGVzdA==', 'YWJj', ''],
    ['string', 'dGVzdA='],
  ],
  'string with fmt: prefix': [{ type: 'string', format: 'fmt:email' }, ['a@b.co'], ['nope']],
  'number default': [
    { type: 'number' },
    ['1', '-1.5', '+3', '.5', '1e5', '1.2E-3', '000835', ' 01 ', 'NaN', 'INF', '-inf', 1.5],
    ['', 'abc', '1,000', '1.2.3', '10+000.00', '$10', true],
  ],
  'number groupChar': [
    { type: 'number', groupChar: ',' },
    ['1,000', '1,000,000.50'],
    ['10,000a.00'],
  ],
  'number decimal and group': [
    { type: 'number', groupChar: ' ', decimalChar: ',' },
    ['10 000,00', '3,14'],
    ['3.14'],
  ],
  'number bareNumber false': [
    { type: 'number', bareNumber: false },
    ['$10000.00', '€-12.3', '100%', '1000‰'],
    ['$10:000.00', 'abc'],
  ],
  'integer default': [
    { type: 'integer' },
    ['1', '-12', '+1', '000835', ' 01 ', '12345678901234567890', 7],
    ['3.14', '1.0', '1e3', '', 'one', 1.5],
  ],
  'integer bareNumber false': [
    { type: 'integer', bareNumber: false },
    ['1$', 'ab1$', '€12'],
    ['1.5$'],
  ],
  'integer groupChar': [{ type: 'integer', groupChar: '.' }, ['1.000.000'], ['1,000']],
  'boolean default': [
    { type: 'boolean' },
    ['true', 'True', 'TRUE', '1', 'false', 'False', 'FALSE', '0', true],
    ['yes', 'Y', 't', 'f', 'no', ''],
  ],
  'boolean custom values': [
    { type: 'boolean', trueValues: ['yes'], falseValues: ['no'] },
    ['yes', 'no'],
    ['true', 'false'],
  ],
  object: [
    { type: 'object' },
    ['{"key":"value"}', '{}', { a: 1 }],
    ['["key","value"]', '{bad json', '1', []],
  ],
  array: [{ type: 'array' }, ['["a",1]', '[]', [1, 2]], ['{"key":"value"}', 'text']],
  'list of strings': [{ type: 'list' }, ['a,b,c', 'one', ''], []],
  'list of integers': [
    { type: 'list', itemType: 'integer', delimiter: ';' },
    ['1;2;3'],
    ['1;x;3', '1,2'],
  ],
  'date default': [
    { type: 'date' },
    ['2000-02-29', '2024-01-15', '2019-1-5'],
    ['1999-02-29', '1999-11-31', '2024-13-01', '15/01/2024', '2024-01-15T00:00:00'],
  ],
  'date pattern': [
    { type: 'date', format: '%d/%m/%y' },
    ['21/11/06', '01/02/99'],
    ['21/13/06', '2006-11-21'],
  ],
  'date pattern with month name': [
    { type: 'date', format: '%d %B %Y' },
    ['5 March 2021', '05 march 2021'],
    ['5 Mars 2021'],
  ],
  'date any': [{ type: 'date', format: 'any' }, ['2024-01-15', 'March 5, 2021'], ['not a date']],
  'time default': [
    { type: 'time' },
    ['09:00:00', '23:59:59', '10:15:30.250', '06:00:00Z', '06:00:00+01:00'],
    ['09:00', '3 am', '3.00', '24:00:01', '06:00:00+1:00'],
  ],
  'time pattern': [{ type: 'time', format: '%H:%M' }, ['08:30', '23:05'], ['8h30', '25:00']],
  'time pattern with meridiem': [
    { type: 'time', format: '%I:%M %p' },
    ['08:30 PM', '12:00 am'],
    ['13:00 PM'],
  ],
  'time any': [{ type: 'time', format: 'any' }, ['3 pm', '14:30', '09:00:00'], ['noon-ish']],
  'datetime default': [
    { type: 'datetime' },
    ['2024-01-15T10:30:00Z', '2024-01-15T10:30:00', '2024-01-15T10:30:00.123+02:00'],
    ['2024-01-15 10:30:00', '2024-01-15', '2024-02-30T10:00:00Z'],
  ],
  'datetime pattern': [
    { type: 'datetime', format: '%Y-%m-%d %H:%M:%S' },
    ['2024-01-15 10:30:00'],
    ['2024-01-15T10:30:00'],
  ],
  year: [{ type: 'year' }, ['2000', '0999', 2024], ['-2000', '20000', '3.14', '99']],
  yearmonth: [
    { type: 'yearmonth' },
    ['2000-01', '2024-12', '2000-1'],
    ['2000-13', '2000-0', '13', '2000/01'],
  ],
  duration: [
    { type: 'duration' },
    ['P1Y10M3DT5H11M7S', 'P3D', 'PT1.5S', 'P2W'],
    ['P1M1Y', 'P', 'PT', '1 day', 'P1DT'],
  ],
  'geopoint default': [
    { type: 'geopoint' },
    ['90, 45', '-122.4,37.8', '180,-90', '1.5, 2.5'],
    ['181,90', '0,91', 'abc', '1,2,3'],
  ],
  'geopoint array': [
    { type: 'geopoint', format: 'array' },
    ['[90, 45]', [1, 2]],
    ['{"lon":90,"lat":45}', '[200, 0]', '[1]'],
  ],
  'geopoint object': [
    { type: 'geopoint', format: 'object' },
    ['{"lon":90,"lat":45}'],
    ['[90, 45]', '{"lon":90}', '{"lon":90,"lat":45,"z":1}'],
  ],
  geojson: [
    { type: 'geojson' },
    [
      '{"type":"Point","coordinates":[1,2]}',
      '{"type":"Feature","geometry":null,"properties":{}}',
      '{"type":"FeatureCollection","features":[]}',
    ],
    ['{}', '{"type":"Point"}', '{"type":"Polygon","coordinates":[1,2]}', 'null'],
  ],
  topojson: [
    { type: 'geojson', format: 'topojson' },
    ['{"type":"LineString","arcs":[42]}', '{"type":"Topology","objects":{},"arcs":[]}'],
    ['{"type":"Feature"}'],
  ],
  any: [{ type: 'any' }, ['x', '', 1, null], []],
};

describe('casting tables', () => {
  for (const [name, [field, valid, invalid]] of Object.entries(TABLE)) {
    const cast = casterFor({ name: 'f', ...field }, 2);
    it.each(valid.map((value) => [JSON.stringify(value), value]))(
      `${name} accepts %s`,
      (_, value) => {
        expect(cast(value)).not.toBe(INVALID);
      },
    );
    if (invalid.length > 0) {
      it.each(invalid.map((value) => [JSON.stringify(value), value]))(
        `${name} rejects %s`,
        (_, value) => {
          expect(cast(value)).toBe(INVALID);
        },
      );
    }
  }
});

describe('logical values', () => {
  const value = (field: Omit<FieldDescriptor, 'name'>, raw: unknown): unknown =>
    casterFor({ name: 'f', ...field }, 2)(raw);

  it('reads numbers with group and decimal characters', () => {
    expect(value({ type: 'number', groupChar: ' ', decimalChar: ',' }, '10 000,50')).toBe(10000.5);
    expect(value({ type: 'number', bareNumber: false }, '$10000.00')).toBe(10000);
  });

  it('strips what surrounds a number for bareNumber false, whatever the decimal character', () => {
    const comma = { type: 'number', bareNumber: false, decimalChar: ',' };
    expect(value(comma, '1234.')).toBe(1234);
    expect(value(comma, '€ 12,5 EUR')).toBe(12.5);
    expect(value(comma, '1.5')).toBe(INVALID);
    expect(value({ type: 'number', bareNumber: false }, '.5%')).toBe(0.5);
  });

  it('keeps integers beyond 2^53 exact', () => {
    expect(value({ type: 'integer' }, '12345678901234567890')).toBe(12345678901234567890n);
  });

  it('orders dates, times and datetimes on one scale', () => {
    const date = (raw: string) => value({ type: 'date' }, raw) as number;
    expect(date('2024-01-02')).toBeGreaterThan(date('2024-01-01'));
    expect(date('1969-12-31')).toBe(-86_400_000);
    expect(value({ type: 'datetime' }, '2024-01-15T10:30:00+02:00')).toBe(
      Date.UTC(2024, 0, 15, 8, 30),
    );
    expect(value({ type: 'time' }, '01:00:00')).toBe(3_600_000);
  });

  it('reads lists, year-months and geopoints', () => {
    expect(value({ type: 'list', itemType: 'integer' }, '1,2,3')).toEqual([1, 2, 3]);
    expect(value({ type: 'yearmonth' }, '2000-02')).toBe(2000 * 12 + 1);
    expect(value({ type: 'geopoint' }, '90, 45')).toEqual([90, 45]);
  });
});

describe('casting cells where they lie', () => {
  /** Texts near the forms the span casters read: digits, signs, points, dashes, words. */
  function nearTexts(count: number): string[] {
    const next = seeded(2026);
    const alphabet = '0123456789-+.eE :TtrueFALSE,';
    return Array.from({ length: count }, () =>
      Array.from({ length: next(13) }, () => alphabet.charAt(next(alphabet.length))).join(''),
    );
  }
  const texts = nearTexts(20_000);

  for (const [name, [field, valid, invalid]] of Object.entries(TABLE)) {
    const descriptor = { name: 'f', ...field };
    const castSpan = spanCasterFor(descriptor, 2);
    if (!castSpan) continue;
    it(`${name}: gives what the cast of the cell's string gives, or leaves it to that cast`, () => {
      const cast = casterFor(descriptor, 2);
      const cells = [...valid, ...invalid].filter((cell) => typeof cell === 'string');
      let read = 0;
      for (const cell of [...cells, ...texts]) {
        const text = `9-,${cell},2020-01-01`;
        const value = castSpan(text, 3, 3 + cell.length);
        if (value === undefined) continue;
        read++;
        expect(value, cell).not.toBe(INVALID);
        expect(Object.is(value, cast(cell)), cell).toBe(true);
      }
      expect(read).toBeGreaterThan(0);
    });
  }

  it('reads every month of the years 1 to 9999 as the calendar has them, and no day past them', () => {
    const castSpan = spanCasterFor({ name: 'f', type: 'date' }, 2);
    const pad = (value: number, width: number): string => String(value).padStart(width, '0');
    const wrong: string[] = [];
    for (let year = 1; year <= 9999; year++) {
      for (let month = 1; month <= 12; month++) {
        for (const day of [1, 28, 29, 30, 31]) {
          const text = `x,${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          const date = new Date(0);
          date.setUTCFullYear(year, month - 1, day);
          const real = date.getUTCDate() === day;
          if (castSpan?.(text, 2, 12) !== (real ? date.getTime() : undefined)) wrong.push(text);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('reads the common forms itself', () => {
    const at = (type: string, cell: string): unknown =>
      spanCasterFor({ name: 'f', type }, 2)?.(`,${cell},`, 1, 1 + cell.length);
    expect(at('integer', '-42')).toBe(-42);
    expect(at('number', '12.50')).toBe(12.5);
    expect(at('date', '2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(at('date', '2023-02-29')).toBeUndefined();
    expect(at('boolean', 'TRUE')).toBe(true);
    expect(at('boolean', '0')).toBe(false);
    expect(at('boolean', 'yes')).toBeUndefined();
    expect(at('string', 'text')).toBeUndefined();
  });
});

describe('plainDecimal', () => {
  const plainDecimalOf = (text: string): number => plainDecimal(text, 0, text.length);
  it('reads every plain decimal of up to 15 digits as Number() does, and nothing else', () => {
    const pick = (text: string): string => text.charAt(Math.floor(Math.random() * text.length));
    let seed = 0;
    for (let round = 0; round < 200_000; round++) {
      seed++;
      const digits = Array.from({ length: 1 + (seed % 17) }, () => pick('0123456789')).join('');
      const point = seed % 3 === 0 ? digits.length : Math.floor(Math.random() * digits.length);
      const sign = ['', '-', '+'][seed % 3] ?? '';
      const text = `${sign}${digits.slice(0, point)}${seed % 5 === 0 ? '' : '.'}${digits.slice(point)}`;
      const fast = plainDecimalOf(text);
      if (digits.length <= 15) expect(Object.is(fast, Number(text)), text).toBe(true);
      else expect(fast).toBeNaN();
    }
    for (const text of ['', '.', '-', '+.', '1e5', '1,5', ' 1', '1 ', '0x10', '1.2.3', 'Infinity'])
      expect(plainDecimalOf(text), text).toBeNaN();
    expect(Object.is(plainDecimalOf('-0'), -0)).toBe(true);
    expect(plainDecimalOf('0.1')).toBe(0.1);
    expect(plainDecimalOf('123456789012.345')).toBe(123456789012.345);
  });
});

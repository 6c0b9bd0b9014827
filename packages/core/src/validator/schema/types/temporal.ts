import type { FieldDescriptor } from '../../descriptor/types.js';
import { normalizeFormat } from '../../descriptor/field-rules.js';
import { SheetDate } from '../../sheets/cells.js';
import { INVALID, type Caster, type SpanCaster, type SpanCheck } from './invalid.js';
import { compilePattern, dateParts, offsetMinutes, type DateParts } from './strptime.js';

const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;
const DURATION =
  /^P(?!$)(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?=\d)(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const DAY_MS = 86_400_000;

/** Milliseconds since the epoch, or undefined when the parts are not a real instant. */
function instant(parts: DateParts): number | undefined {
  const { year, month, day, hour, minute, second, millisecond } = parts;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 24 || minute > 59 || second > 61) return undefined;
  const seconds = (hour * 60 + minute - parts.offsetMinutes) * 60 + second;
  return daysFromCivil(year, month, day) * DAY_MS + seconds * 1000 + millisecond;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 in the proleptic Gregorian calendar, without a Date object. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const parts = dateParts;

function fraction(text: string | undefined): number {
  return text ? Number(`0${text}`) * 1000 : 0;
}

/**
 * Days from 1970-01-01 to the first of each month of 1900 to 2199, a date's common case,
 * each worked out when a date first falls in its month: the 3,600 of them at every start took
 * 0.7 ms of validating examples/cities.
 */
const MONTHS_FROM = 1900;
const UNKNOWN = -0x80000000;
const MONTH_STARTS = new Int32Array(300 * 12).fill(UNKNOWN);

/** The digit at text[at], or a number above 9. */
function digitAt(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) >>> 0;
}

/**
 * A date written YYYY-MM-DD at text[start..start + 10), as the integer YYYYMMDD, or -1: the
 * digits read one by one, as this runs for every cell of a date column.
 */
function isoDate(text: string, start: number): number {
  if (text.charCodeAt(start + 4) !== 45 || text.charCodeAt(start + 7) !== 45) return -1;
  const y1 = digitAt(text, start);
  const y2 = digitAt(text, start + 1);
  const y3 = digitAt(text, start + 2);
  const y4 = digitAt(text, start + 3);
  const m1 = digitAt(text, start + 5);
  const m2 = digitAt(text, start + 6);
  const d1 = digitAt(text, start + 8);
  const d2 = digitAt(text, start + 9);
  if (Math.max(y1, y2, y3, y4, m1, m2, d1, d2) > 9) return -1;
  const year = y1 * 1000 + y2 * 100 + y3 * 10 + y4;
  const month = m1 * 10 + m2;
  const day = d1 * 10 + d2;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return -1;
  return year * 10_000 + month * 100 + day;
}

/** A date written YYYY-MM-DD at text[start..start + 10), or undefined: its month's first day looked up. */
function isoDay(text: string, start: number): number | undefined {
  const date = isoDate(text, start);
  if (date < 0) return undefined;
  const year = Math.floor(date / 10_000);
  const month = Math.floor(date / 100) % 100;
  const day = date % 100;
  const index = (year - MONTHS_FROM) * 12 + month - 1;
  if (index < 0 || index >= MONTH_STARTS.length) return daysFromCivil(year, month, day) * DAY_MS;
  let first = MONTH_STARTS[index] as number;
  if (first === UNKNOWN) first = MONTH_STARTS[index] = daysFromCivil(year, month, 1);
  return (first + day - 1) * DAY_MS;
}

const defaultDate = (text: string): number | undefined => {
  if (text.length === 10) {
    const day = isoDay(text, 0);
    if (day !== undefined) return day;
  }
  const match = DATE.exec(text);
  if (!match) return undefined;
  return instant(parts({ year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) }));
};

const defaultTime = (text: string): number | undefined => {
  const match = TIME.exec(text);
  if (!match) return undefined;
  const value = parts({
    year: 1970,
    hour: Number(match[1]),
    minute: Number(match[2]),
    second: Number(match[3]),
    millisecond: fraction(match[4]),
    offsetMinutes: match[5] ? offsetMinutes(match[5]) : 0,
  });
  return value.hour > 23 ? undefined : instant(value);
};

const defaultDatetime = (text: string): number | undefined => {
  const match = DATETIME.exec(text);
  if (!match) return undefined;
  const value = parts({
    year: Number(match[1]),
    month: Number(match[2]),
    day: Number(match[3]),
    hour: Number(match[4]),
    minute: Number(match[5]),
    second: Number(match[6]),
    millisecond: fraction(match[7]),
    offsetMinutes: match[8] ? offsetMinutes(match[8]) : 0,
  });
  return value.hour > 23 ? undefined : instant(value);
};

function anyInstant(text: string): number | undefined {
  const value = Date.parse(text);
  return Number.isNaN(value) ? undefined : value;
}

const anyTime = (text: string): number | undefined => {
  const match = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm)?$/i.exec(text.trim());
  if (!match || (match[2] === undefined && match[4] === undefined)) return defaultTime(text);
  const pm = match[4]?.toLowerCase() === 'pm';
  const hour = match[4] ? (Number(match[1]) % 12) + (pm ? 12 : 0) : Number(match[1]);
  return instant(
    parts({ year: 1970, hour, minute: Number(match[2] ?? 0), second: Number(match[3] ?? 0) }),
  );
};

type Parse = (text: string) => number | undefined;

function temporalCaster(
  field: FieldDescriptor,
  byDefault: Parse,
  any: Parse,
  keepDate: boolean,
): Caster {
  const format = normalizeFormat(field.format);
  let parse = byDefault;
  if (format === 'any') parse = any;
  else if (format !== 'default') {
    const pattern = compilePattern(format);
    parse = (text) => {
      const found = pattern(text);
      if (!found) return undefined;
      return instant(keepDate ? found : { ...found, year: 1970, month: 1, day: 1 });
    };
  }
  return (raw) => {
    if (raw instanceof SheetDate) return sheetValue(raw, keepDate ? 'datetime' : 'time');
    if (typeof raw !== 'string') return INVALID;
    return parse(raw) ?? INVALID;
  };
}

/**
 * A workbook's date cell, whatever the field's format (which describes text): a date field
 * takes dates and date-times at midnight, a date-time field dates and date-times, a time
 * field times.
 */
function sheetValue(cell: SheetDate, type: 'date' | 'datetime' | 'time'): number | typeof INVALID {
  if (type === 'time') return cell.kind === 'time' ? cell.ms : INVALID;
  if (cell.kind === 'time') return INVALID;
  if (type === 'date' && cell.ms % DAY_MS !== 0) return INVALID;
  return cell.ms;
}

export const dateCaster = (field: FieldDescriptor): Caster => {
  if (normalizeFormat(field.format) === 'default') {
    return (raw) => {
      if (raw instanceof SheetDate) return sheetValue(raw, 'date');
      return typeof raw === 'string' ? (defaultDate(raw) ?? INVALID) : INVALID;
    };
  }
  const cast = temporalCaster(field, defaultDate, anyInstant, true);
  return (raw) => {
    if (raw instanceof SheetDate) return sheetValue(raw, 'date');
    const value = cast(raw);
    return typeof value === 'number' ? value - (((value % DAY_MS) + DAY_MS) % DAY_MS) : value;
  };
};
/** Dates of the default format written YYYY-MM-DD, read where they lie. */
export const dateSpanCaster = (field: FieldDescriptor): SpanCaster | undefined =>
  normalizeFormat(field.format) === 'default'
    ? (text, start, end) => (end - start === 10 ? isoDay(text, start) : undefined)
    : undefined;

/**
 * The same dates told apart where they lie, with no value made: a date's milliseconds are
 * too large for a small integer, and each made a heap number that nothing read.
 */
export const dateSpanCheck = (field: FieldDescriptor): SpanCheck | undefined =>
  normalizeFormat(field.format) === 'default'
    ? (text, start, end) => end - start === 10 && isoDate(text, start) >= 0
    : undefined;

export const timeCaster = (field: FieldDescriptor): Caster =>
  temporalCaster(field, defaultTime, anyTime, false);
export const datetimeCaster = (field: FieldDescriptor): Caster =>
  temporalCaster(field, defaultDatetime, anyInstant, true);

/** A duration becomes an approximate number of seconds, enough to order durations. */
export const durationCaster: Caster = (raw) => {
  if (typeof raw !== 'string') return INVALID;
  const match = DURATION.exec(raw);
  if (!match) return INVALID;
  const [years, months, weeks, days, hours, minutes, seconds] = match
    .slice(1)
    .map((part) => Number(part ?? 0));
  const totalDays = (years ?? 0) * 365 + (months ?? 0) * 30 + (weeks ?? 0) * 7 + (days ?? 0);
  return ((totalDays * 24 + (hours ?? 0)) * 60 + (minutes ?? 0)) * 60 + (seconds ?? 0);
};

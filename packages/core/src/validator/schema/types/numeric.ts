import type { FieldDescriptor } from '../../descriptor/types.js';
import { INVALID, type Caster, type SpanCaster } from './invalid.js';

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const SPECIAL: Record<string, number> = {
  nan: NaN,
  inf: Infinity,
  '+inf': Infinity,
  '-inf': -Infinity,
  infinity: Infinity,
  '+infinity': Infinity,
  '-infinity': -Infinity,
};

/**
 * Strips currency signs, percent signs and the like around a number: what is neither a
 * digit, a sign nor the decimal character (so `1234.` is 1234 where the decimal is ",").
 */
function stripBare(text: string, decimal = '.'): string {
  let start = 0;
  while (
    start < text.length &&
    !/[\d+-]/.test(text.charAt(start)) &&
    text.charAt(start) !== decimal
  )
    start++;
  let end = text.length;
  while (end > start && !/\d/.test(text.charAt(end - 1)) && text.charAt(end - 1) !== decimal) end--;
  return text.slice(start, end);
}

function removeAll(text: string, what: string): string {
  return text.split(what).join('');
}

/**
 * Parses optional sign and up to 15 digits by hand, the common case, from text[start..end);
 * NaN otherwise.
 */
function plainInteger(text: string, start: number, end: number): number {
  if (end === start || end - start > 15) return NaN;
  const first = text.charCodeAt(start);
  let i = first === 45 || first === 43 ? start + 1 : start;
  if (i === end) return NaN;
  let value = 0;
  for (; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return first === 45 ? -value : value;
}

/** 10^0 to 10^22: every one a double exactly. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, power) => 10 ** power);

/**
 * A plain decimal (optional sign, digits, optional point and digits) of at most 15 digits
 * in text[start..end), or NaN for any other text. Its digits make an integer below 2^53 and
 * its scale a power of ten a double holds exactly, so one division rounds as Number() does
 * (Clinger's fast path), with no regular expression: the common case of number columns.
 */
export function plainDecimal(text: string, start: number, end: number): number {
  const first = end > start ? text.charCodeAt(start) : 0;
  let i = first === 45 || first === 43 ? start + 1 : start;
  let mantissa = 0;
  let digits = 0;
  let scale = -1;
  for (; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === 46 && scale < 0) scale = 0;
    else {
      const digit = code - 48;
      if (digit < 0 || digit > 9) return NaN;
      mantissa = mantissa * 10 + digit;
      digits++;
      if (scale >= 0) scale++;
    }
  }
  if (digits === 0 || digits > 15) return NaN;
  const value = scale > 0 ? mantissa / (POWERS_OF_TEN[scale] as number) : mantissa;
  return first === 45 ? -value : value;
}

export function integerCaster(field: FieldDescriptor): Caster {
  const bare = field.bareNumber !== false;
  const group = field.groupChar;
  return (raw) => {
    if (typeof raw === 'number') return Number.isInteger(raw) ? raw : INVALID;
    if (typeof raw !== 'string') return INVALID;
    let text = raw;
    if (group !== undefined) text = removeAll(text, group);
    if (!bare) text = stripBare(text);
    const plain = plainInteger(text, 0, text.length);
    if (plain === plain) return plain; // not NaN
    text = text.trim();
    if (!INTEGER.test(text)) return INVALID;
    const value = BigInt(text);
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  };
}

/** Numbers written as Number() reads them: no group or other decimal character, bare. */
function writtenPlain(field: FieldDescriptor): boolean {
  return (
    field.bareNumber !== false &&
    field.groupChar === undefined &&
    (field.decimalChar ?? '.') === '.'
  );
}

export function numberCaster(field: FieldDescriptor): Caster {
  const bare = field.bareNumber !== false;
  const group = field.groupChar;
  const decimal = field.decimalChar ?? '.';
  const plain = writtenPlain(field);
  return (raw) => {
    if (typeof raw === 'number') return raw;
    if (typeof raw !== 'string') return INVALID;
    if (plain) {
      const fast = plainDecimal(raw, 0, raw.length);
      if (fast === fast) return fast; // not NaN
      if (NUMBER.test(raw)) return Number(raw);
    }
    let text = raw.trim();
    if (group !== undefined) text = removeAll(text, group);
    if (!bare) text = stripBare(text, decimal);
    if (decimal !== '.') {
      if (text.includes('.')) return INVALID;
      text = text.replace(decimal, '.');
    }
    if (NUMBER.test(text)) return Number(text);
    return SPECIAL[text.toLowerCase()] ?? INVALID;
  };
}

/** Plain integers read where they lie; any other text is cast from its string. */
export function integerSpanCaster(field: FieldDescriptor): SpanCaster | undefined {
  if (field.bareNumber === false || field.groupChar !== undefined) return undefined;
  return (text, start, end) => {
    const value = plainInteger(text, start, end);
    return value === value ? value : undefined;
  };
}

/** Plain decimals read where they lie; any other text is cast from its string. */
export function numberSpanCaster(field: FieldDescriptor): SpanCaster | undefined {
  if (!writtenPlain(field)) return undefined;
  return (text, start, end) => {
    const value = plainDecimal(text, start, end);
    return value === value ? value : undefined;
  };
}

export const yearCaster: Caster = (raw) => {
  if (typeof raw === 'number')
    return Number.isInteger(raw) && raw >= 0 && raw <= 9999 ? raw : INVALID;
  if (typeof raw !== 'string' || !/^\d{4}$/.test(raw)) return INVALID;
  return Number(raw);
};

/** A year-month becomes a month count, so that it orders and compares. */
export const yearmonthCaster: Caster = (raw) => {
  if (Array.isArray(raw) && raw.length === 2) return yearmonthCaster(raw.join('-'));
  if (typeof raw !== 'string') return INVALID;
  const match = /^(\d{4})-(\d{1,2})$/.exec(raw);
  if (!match) return INVALID;
  const month = Number(match[2]);
  if (month < 1 || month > 12) return INVALID;
  return Number(match[1]) * 12 + month - 1;
};

/**
 * Table Schema date/time patterns use the C/Python strptime directives. This compiles
 * such a pattern into a regular expression and a function that builds the parts.
 */
import { boundedRegExp } from '../pattern.js';

export interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  offsetMinutes: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/**
 * Letters either way round, written into the expression: the `i` flag would keep it off
 * V8's linear engine, which bounds the time a format from a descriptor can take (pattern.ts).
 */
function caseless(text: string): string {
  return text.replace(/[a-z]/gi, (letter) => `[${letter.toLowerCase()}${letter.toUpperCase()}]`);
}

const DAY_NAMES = `(?:${['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map(caseless).join('|')})[a-zA-Z]*`;

type Setter = (parts: DateParts, text: string) => boolean;

interface Directive {
  regex: string;
  set: Setter;
}

const number =
  (key: keyof DateParts, min: number, max: number): Setter =>
  (parts, text) => {
    const value = Number(text);
    parts[key] = value;
    return value >= min && value <= max;
  };

const DIRECTIVES: Record<string, Directive> = {
  Y: { regex: '(\\d{4})', set: number('year', 0, 9999) },
  y: {
    regex: '(\\d{2})',
    set: (parts, text) => {
      const value = Number(text);
      parts.year = value < 69 ? 2000 + value : 1900 + value;
      return true;
    },
  },
  m: { regex: '(\\d{1,2})', set: number('month', 1, 12) },
  d: { regex: '(\\d{1,2})', set: number('day', 1, 31) },
  H: { regex: '(\\d{1,2})', set: number('hour', 0, 23) },
  I: { regex: '(\\d{1,2})', set: number('hour', 1, 12) },
  M: { regex: '(\\d{1,2})', set: number('minute', 0, 59) },
  S: { regex: '(\\d{1,2})', set: number('second', 0, 61) },
  f: {
    regex: '(\\d{1,6})',
    set: (parts, text) => {
      parts.millisecond = Number(text.padEnd(6, '0')) / 1000;
      return true;
    },
  },
  j: { regex: '(\\d{1,3})', set: (parts, text) => ((parts.day = Number(text)), parts.day <= 366) },
  b: {
    regex: `(${MONTHS.map(caseless).join('|')})`,
    set: (parts, text) => setMonth(parts, MONTHS, text),
  },
  B: {
    regex: `(${MONTH_NAMES.map(caseless).join('|')})`,
    set: (parts, text) => setMonth(parts, MONTH_NAMES, text),
  },
  a: { regex: `(${DAY_NAMES})`, set: () => true },
  A: { regex: `(${DAY_NAMES})`, set: () => true },
  p: { regex: `(${caseless('am')}|${caseless('pm')})`, set: () => true },
  z: {
    regex: '([Zz]|[+-]\\d{2}:?\\d{2})',
    set: (parts, text) => ((parts.offsetMinutes = offsetMinutes(text)), true),
  },
  Z: { regex: '([A-Za-z]{1,5})', set: () => true },
};

function setMonth(parts: DateParts, names: string[], text: string): boolean {
  parts.month = names.indexOf(text.toLowerCase()) + 1;
  return parts.month > 0;
}

export function offsetMinutes(text: string): number {
  if (text === 'Z' || text === 'z') return 0;
  const digits = text.replace(':', '');
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  return digits.startsWith('-') ? -minutes : minutes;
}

/** Date parts with the defaults strptime uses for what a pattern does not name. */
export function dateParts(values: Partial<DateParts>): DateParts {
  return {
    year: 1900,
    month: 1,
    day: 1,
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
    offsetMinutes: 0,
    ...values,
  };
}

export type PatternParser = (text: string) => DateParts | undefined;

export function compilePattern(pattern: string): PatternParser {
  const setters: Setter[] = [];
  let source = '';
  let meridiem = -1;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern.charAt(i);
    if (char !== '%' || i === pattern.length - 1) {
      source += caseless(char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      continue;
    }
    const code = pattern.charAt(++i);
    const directive = DIRECTIVES[code];
    if (code === '%' || !directive) {
      source += code === '%' ? '%' : caseless(`%${code}`);
      continue;
    }
    if (code === 'p') meridiem = setters.length;
    source += directive.regex;
    setters.push(directive.set);
  }
  const regex = boundedRegExp(`^${source}$`);
  return (text) => {
    const match = regex.exec(text.trim());
    if (!match) return undefined;
    const parts = dateParts({});
    for (let k = 0; k < setters.length; k++) {
      if (!setters[k]?.(parts, match[k + 1] ?? '')) return undefined;
    }
    if (meridiem >= 0) {
      const pm = (match[meridiem + 1] ?? '').toLowerCase() === 'pm';
      parts.hour = (parts.hour % 12) + (pm ? 12 : 0);
    }
    return parts;
  };
}

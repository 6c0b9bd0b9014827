/** What a spreadsheet stores under a date or time format: an instant, and which parts it shows. */
export type SheetDateKind = 'date' | 'datetime' | 'time';

const DAY_MS = 86_400_000;

/**
 * A date, date-time or time cell of a workbook. `ms` is milliseconds since 1970-01-01 UTC;
 * a time is a time of day on 1970-01-01, as the time type reads one.
 */
export class SheetDate {
  constructor(
    readonly ms: number,
    readonly kind: SheetDateKind,
  ) {}

  /** The value as the Table Schema writes it: `2024-05-01`, `2024-05-01T10:30:00`, `09:00:00`. */
  toString(): string {
    const iso = new Date(this.ms).toISOString();
    const time = iso.slice(11, this.ms % 1000 === 0 ? 19 : 23);
    if (this.kind === 'time') return time;
    const day = iso.slice(0, 10);
    return this.kind === 'date' && this.ms % DAY_MS === 0 ? day : `${day}T${time}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/** Days from 1970-01-01 back to each date system's day zero. */
const EPOCH_DAYS = { 1900: 25_569, 1904: 24_107 } as const;

/** A serial date number (days since the workbook's day zero) as the date it shows. */
export function serialDate(serial: number, kind: SheetDateKind, date1904: boolean): SheetDate {
  if (kind === 'time') {
    const dayPart = serial - Math.floor(serial);
    return new SheetDate(Math.round(dayPart * DAY_MS), 'time');
  }
  const days = serial - EPOCH_DAYS[date1904 ? 1904 : 1900];
  return new SheetDate(Math.round(days * DAY_MS), kind);
}

/** Excel's built-in number formats that show dates or times, by id. */
const BUILT_IN_DATES: Record<number, SheetDateKind> = {
  14: 'date',
  15: 'date',
  16: 'date',
  17: 'date',
  18: 'time',
  19: 'time',
  20: 'time',
  21: 'time',
  22: 'datetime',
  45: 'time',
  46: 'time',
  47: 'time',
};

export function builtInDateKind(id: number): SheetDateKind | undefined {
  return BUILT_IN_DATES[id];
}

/**
 * Which parts of a date a number format code shows, or undefined for a plain number format.
 * Quoted text, escaped characters, colours and locales are not format letters.
 */
export function dateKindOfFormat(code: string): SheetDateKind | undefined {
  const section = (code.split(';')[0] ?? '')
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '')
    .replace(/\[(?![hms]+\])[^\]]*\]/gi, '')
    .toLowerCase()
    .replace(/e[+-]/g, '');
  if (section === '' || section.includes('general')) return undefined;
  const hasTime = /[hs]|am\/pm|a\/p|\[[hms]+\]/.test(section);
  const hasDate = /[yde]/.test(section) || (!hasTime && section.includes('m'));
  if (hasDate && hasTime) return 'datetime';
  if (hasDate) return 'date';
  return hasTime ? 'time' : undefined;
}

const ISO_INSTANT =
  /^(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** An ISO 8601 date or date-time as OpenDocument and Office Open XML write it. */
export function isoDate(text: string): SheetDate | undefined {
  const match = ISO_INSTANT.exec(text);
  if (!match) return undefined;
  const ms = Date.parse(
    `${match[1] ?? ''}-${match[2] ?? ''}-${match[3] ?? ''}T${match[4] ?? '00'}:${match[5] ?? '00'}:${match[6] ?? '00'}${(match[7] ?? '').slice(0, 4)}${match[8] ?? 'Z'}`,
  );
  if (Number.isNaN(ms)) return undefined;
  return new SheetDate(ms, match[4] === undefined ? 'date' : 'datetime');
}

const ISO_DURATION = /^(-)?PT?(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/;

/** An OpenDocument time value (`PT09H30M00S`) as a time of day. */
export function isoTime(text: string): SheetDate | undefined {
  const match = ISO_DURATION.exec(text);
  if (!match) return undefined;
  const seconds = Number(match[2] ?? 0) * 3600 + Number(match[3] ?? 0) * 60 + Number(match[4] ?? 0);
  return new SheetDate(Math.round(seconds * 1000) * (match[1] ? -1 : 1), 'time');
}

export { DAY_MS };

/**
 * A typed source's value whose column type cannot hold its field's type (a Parquet text
 * column for an integer field): shown as written, and taken by no cast, so that its row
 * gets the type-error.
 */
export class UnfitCell {
  constructor(readonly text: string) {}
}

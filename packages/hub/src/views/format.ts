import { grouped, humanBytes as sized } from '@data/core';

/** Bytes as the CLI prints them, or a dash when not known. */
export function humanBytes(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? '—' : sized(bytes);
}

/** A count with thousands separated: 1,234,567. */
export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : grouped(value);
}

/** An ISO timestamp as a day, 2026-11-23: the same for every reader, whatever their zone. */
export function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '—';
}

/**
 * A number written as text (a statistic, a bound), its thousands separated as count() does:
 * "1000000.5" is "1,000,000.5". Anything else, as written.
 */
export function figure(text: string): string {
  const match = /^(-?)([0-9]+)(\.[0-9]+)?$/.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = ''] = match;
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction}`;
}

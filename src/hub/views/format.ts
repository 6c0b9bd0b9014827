/** Bytes in the units people read: 1.5 MB, 820 kB (powers of 1000, as file managers show). */
export function humanBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? String(value) : value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? 'B'}`;
}

/** A count with thousands separated: 1,234,567. */
export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString('en-US');
}

/** An ISO timestamp as a day, 2026-11-23: the same for every reader, whatever their zone. */
export function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '—';
}

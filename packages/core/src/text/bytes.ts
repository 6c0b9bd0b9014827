import { counted } from './numbers.js';

/** A size as a limit is told: whole megabytes, or bytes below one. */
export function describeBytes(bytes: number): string {
  const mb = bytes / 1024 / 1024;
  return mb >= 1 ? `${String(Math.round(mb))} MB` : counted(bytes, 'byte');
}

/** Sizes as people read them: 512 B, 4.2 kB, 38.4 MB, 1.05 GB (powers of 1000). */
export function humanBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 ? 0 : value < 10 ? 2 : value < 100 ? 1 : 0;
  return `${value.toFixed(digits)} ${units[unit] ?? 'B'}`;
}

/** The type a file is sent with, told by its name: used by the HTTP side and by the services that store files. */
import { isSupported } from '@data/core';

const TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  geojson: 'application/geo+json',
  txt: 'text/plain',
  md: 'text/markdown',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  pdf: 'application/pdf',
  zip: 'application/zip',
  parquet: 'application/vnd.apache.parquet',
  png: 'image/png',
  jpg: 'image/jpeg',
};

/**
 * The charset a text file is labelled with: the encoding its resource declares or the hub
 * detected (`iso-8859-1`, `windows-1252`, …), UTF-8 when it has none or one no decoder knows.
 */
export function charsetOf(encoding: unknown): string {
  if (typeof encoding !== 'string') return 'utf-8';
  const label = encoding.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9._:+-]*$/.test(label) || !isSupported(label)) return 'utf-8';
  return label === 'utf8' ? 'utf-8' : label;
}

/** The type a file is sent with, told by its name; a text type says its charset. */
export function contentType(name: string, encoding?: unknown): string {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  const type = TYPES[extension] ?? 'application/octet-stream';
  return type.startsWith('text/') ? `${type}; charset=${charsetOf(encoding)}` : type;
}

import { fileHead } from './chunks.js';

/** How many bytes of a file's start are enough to tell what it is. */
const SNIFF_BYTES = 4096;

/** What a file is by its first bytes, when they say it: a table's format or a file no table is. */
export type ContentFormat =
  'xlsx' | 'ods' | 'xls' | 'parquet' | 'zip' | 'pdf' | 'gzip' | 'html' | 'binary';

const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

function startsWith(head: Uint8Array, bytes: Uint8Array | string): boolean {
  const expected = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  return Buffer.from(head.buffer, head.byteOffset, head.byteLength)
    .subarray(0, expected.length)
    .equals(expected);
}

/** A zip's kind by the names of its first entries (a workbook's are near its start). */
function zipKind(head: Uint8Array): ContentFormat {
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1');
  if (text.includes('application/vnd.oasis.opendocument.spreadsheet')) return 'ods';
  if (text.includes('[Content_Types].xml') || text.includes('xl/')) return 'xlsx';
  return 'zip';
}

function hasUtf16Bom(head: Uint8Array): boolean {
  return (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
}

/**
 * What a file's first bytes say it is, or undefined for text that only its name and its
 * reading can tell (CSV, TSV, JSON…). Magic numbers first, then an HTML page, then NUL
 * bytes in what has no UTF-16 BOM: a binary file.
 */
export function contentFormat(head: Uint8Array): ContentFormat | undefined {
  if (head.length === 0) return undefined;
  if (startsWith(head, 'PK\u0003\u0004')) return zipKind(head);
  if (startsWith(head, OLE)) return 'xls';
  if (startsWith(head, 'PAR1')) return 'parquet';
  if (startsWith(head, '%PDF-')) return 'pdf';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (hasUtf16Bom(head)) return undefined;
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 1024))
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  if (/^\s*<(!doctype html|html[\s>])/i.test(text)) return 'html';
  if (head.includes(0)) return 'binary';
  return undefined;
}

/** The same for a local file; undefined when it cannot be read (its reading says why). */
export async function localContentFormat(path: string): Promise<ContentFormat | undefined> {
  try {
    return contentFormat(await fileHead(path, SNIFF_BYTES));
  } catch {
    return undefined;
  }
}

/** Formats read as tables, by content; the rest are files no table can be read from. */
export const TABLE_CONTENT = new Set<ContentFormat>(['xlsx', 'ods', 'xls', 'parquet']);

/** Plain words for what a file's bytes say it is, for a message. */
export const CONTENT_WORDS: Record<ContentFormat, string> = {
  xlsx: 'an Excel workbook (.xlsx)',
  ods: 'an OpenDocument spreadsheet (.ods)',
  xls: 'an Excel 97-2003 workbook (.xls)',
  parquet: 'a Parquet file',
  zip: 'a zip archive',
  pdf: 'a PDF document',
  gzip: 'a gzip-compressed file',
  html: 'an HTML page',
  binary: 'binary data',
};

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HttpError } from './http.js';
import type { Storage, StoredInfo } from './storage/types.js';

/** Files up to this size are read whole and sent in one write. */
const SMALL_FILE = 64 * 1024;
const SMALL_FILES_KEPT_BYTES = 16 * 1024 * 1024;

/** Files larger than this are read at the store's own signed URL, where it has them. */
const REDIRECT_ABOVE = 1024 * 1024;
const REDIRECT_SECONDS = 300;

/**
 * The small files sent last, while their version stays the same. Reading one
 * takes four trips through the thread pool (open, fstat, read, close) after the stat that
 * every request makes anyway, and 64 requests at once queue for its four threads: kept, a
 * 1 KB resource went from about 6,000 to 20,000 requests/s (npm run bench:hub).
 */
const smallFiles = new Map<string, { version: string; bytes: Buffer }>();
let smallFilesBytes = 0;

function forget(path: string): void {
  smallFilesBytes -= smallFiles.get(path)?.bytes.length ?? 0;
  smallFiles.delete(path);
}

export async function readAll(stream: Readable, limit = Infinity): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= limit) break;
  }
  stream.destroy();
  return Buffer.concat(chunks);
}

async function readSmall(storage: Storage, key: string, info: StoredInfo): Promise<Buffer> {
  const path = `${storage.location}\0${key}`;
  const kept = smallFiles.get(path);
  if (kept?.version === info.version) return kept.bytes;
  forget(path);
  const bytes = await readAll(await storage.read(key));
  // A file rewritten between the stat and the read is sent, not kept.
  if (bytes.length !== info.size) return bytes;
  smallFiles.set(path, { version: info.version, bytes });
  smallFilesBytes += bytes.length;
  for (const oldest of smallFiles.keys()) {
    if (smallFilesBytes <= SMALL_FILES_KEPT_BYTES) break;
    forget(oldest);
  }
  return bytes;
}

const TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json',
  geojson: 'application/geo+json',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  pdf: 'application/pdf',
  zip: 'application/zip',
  parquet: 'application/vnd.apache.parquet',
  png: 'image/png',
  jpg: 'image/jpeg',
};

export function contentType(name: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  return TYPES[extension] ?? 'application/octet-stream';
}

function parseRange(header: string, size: number): { start: number; end: number } | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  const start = first === '' ? Math.max(0, size - Number(last)) : Number(first);
  const end = first === '' || last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return start <= end && start < size ? { start, end } : undefined;
}

/**
 * Sends a stored file with Content-Length, an ETag, conditional GET and single byte ranges;
 * a large one of a store that serves reads itself is a redirect to a short-lived signed URL
 * of it, as the original service answered reads.
 */
export async function sendStored(
  request: IncomingMessage,
  response: ServerResponse,
  storage: Storage,
  key: string,
  options: { name: string; etag?: string; type?: string; cache?: string },
): Promise<void> {
  const info = await storage.stat(key);
  if (!info) throw new HttpError(404, 'not found');
  const type = options.type ?? contentType(options.name);
  const etag = `"${options.etag ?? `${info.size.toString(16)}-${Math.floor(info.modified.getTime()).toString(16)}`}"`;
  const ifRange = request.headers['if-range'];
  // Answered here: a HEAD (a signed URL is signed for GET, and a reader asking a file's size
  // before reading it by ranges, as Parquet readers do, would be refused there), and an
  // If-Range of another version (the store would not know our tag, and send the range).
  if (
    storage.direct &&
    info.size > REDIRECT_ABOVE &&
    request.method !== 'HEAD' &&
    request.headers['if-none-match'] !== etag &&
    (ifRange === undefined || ifRange === etag)
  ) {
    const url = await storage.direct.presignGet(
      key,
      { name: options.name, type },
      REDIRECT_SECONDS,
    );
    response.writeHead(302, { Location: url, 'Cache-Control': 'private, no-store' }).end();
    return;
  }
  const headers: Record<string, string | number> = {
    'Content-Type': type,
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Last-Modified': info.modified.toUTCString(),
    ...(options.cache ? { 'Cache-Control': options.cache } : {}),
  };
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, headers).end();
    return;
  }
  const rangeHeader = request.headers.range;
  const range =
    rangeHeader && (!ifRange || ifRange === etag) ? parseRange(rangeHeader, info.size) : undefined;
  if (rangeHeader && !range && (!ifRange || ifRange === etag)) {
    response.writeHead(416, { 'Content-Range': `bytes */${String(info.size)}` }).end();
    return;
  }
  // Opened before the status is sent, so that a file that cannot be read is a 500 of its
  // own; a failure after it cuts the response short.
  const body =
    request.method === 'HEAD'
      ? undefined
      : !range && info.size <= SMALL_FILE
        ? await readSmall(storage, key, info)
        : await storage.read(key, range);
  if (range) {
    headers['Content-Range'] =
      `bytes ${String(range.start)}-${String(range.end)}/${String(info.size)}`;
    headers['Content-Length'] = range.end - range.start + 1;
    response.writeHead(206, headers);
  } else {
    headers['Content-Length'] = info.size;
    response.writeHead(200, headers);
  }
  if (body === undefined) response.end();
  else if (Buffer.isBuffer(body)) response.end(body);
  else await pipeline(body, response);
}

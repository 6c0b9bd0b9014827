import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import contentDisposition from 'content-disposition';
import fresh from 'fresh';
import { combineRanges, parse as parseRange } from 'range-parser';
import { contentType } from '../content-type.js';
import { HttpError } from '../http-error.js';
import type { ByteRange, Storage, StoredInfo } from '../engines/storage/types.js';

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

/** How a file is sent, beyond its bytes. */
export interface SendOptions {
  /** Its file name: its type is told by it, and a download is saved under it. */
  name: string;
  /** Its entity tag, unquoted; else one of its size and the version its store gives it. */
  etag?: string | undefined;
  /** When it was last changed, if not when its file was (a copy: its revision's publication). */
  modified?: Date | undefined;
  type?: string | undefined;
  cache?: string | undefined;
  /** The encoding of the resource it is: the charset of a text type. */
  encoding?: unknown;
  /**
   * `attachment` for data: a browser saves it rather than shows it at the hub's origin, and
   * `curl -OJ` and `wget --content-disposition` save it under its name, as they do for
   * `inline`, which is for what is read in a browser (a descriptor). None when unset.
   */
  disposition?: 'attachment' | 'inline' | undefined;
}

/**
 * More ranges than this in one Range header and the whole file is sent: no reader needs
 * more at once (GDAL asks for one or two), and each costs a part's headers and a read.
 */
export const MAX_RANGES = 50;

/** The file's bytes: whole, or one inclusive range of them. */
type Reader = (range?: ByteRange) => Promise<Buffer | Readable>;

/** What a file's answer is told by before any of its bytes are read. */
interface FileFacts {
  size: number;
  modified: Date;
  /** Changes whenever the bytes may have (StoredInfo.version): what the ETag is made of. */
  version: string;
}

/** A signed URL of the store's own, where the bytes are read instead. */
type Redirect = (type: string, disposition: string | undefined) => Promise<string>;

/**
 * Sends a stored file as RFC 9110 says a GET or HEAD is answered: its length, an ETag and
 * Last-Modified, the conditional requests (If-Match, If-Unmodified-Since, If-None-Match,
 * If-Modified-Since, If-Range), and byte ranges, several as `multipart/byteranges`. A large
 * file of a store that serves reads itself is a redirect to a short-lived signed URL of it,
 * as the original service answered reads, when the store can answer the request as we would.
 */
export async function sendStored(
  request: IncomingMessage,
  response: ServerResponse,
  storage: Storage,
  key: string,
  options: SendOptions,
): Promise<void> {
  const info = await storage.stat(key);
  if (!info) throw new HttpError(404, 'not found');
  const read: Reader =
    info.size <= SMALL_FILE
      ? async (range) => {
          const bytes = await readSmall(storage, key, info);
          return range ? bytes.subarray(range.start, range.end + 1) : bytes;
        }
      : (range) => storage.read(key, range);
  const direct = info.size > REDIRECT_ABOVE ? storage.direct : undefined;
  const redirect: Redirect | undefined =
    direct &&
    ((type, disposition) =>
      direct.presignGet(key, { name: options.name, type, disposition }, REDIRECT_SECONDS));
  await sendFile(request, response, info, read, options, redirect);
}

/** Sends a file of the hub's own scratch folder (a copy too large to keep), as sendStored does. */
export async function sendLocalFile(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  options: SendOptions,
): Promise<void> {
  const info = await stat(path);
  await sendFile(
    request,
    response,
    { size: info.size, modified: info.mtime, version: localVersion(info) },
    (range) => openFile(path, range),
    options,
  );
}

/** Sends bytes the hub wrote for this answer, as sendStored sends a file; `modified` is theirs. */
export async function sendBytes(
  request: IncomingMessage,
  response: ServerResponse,
  bytes: Buffer,
  options: SendOptions & { modified: Date },
): Promise<void> {
  const version = createHash('sha256').update(bytes).digest('base64url');
  await sendFile(
    request,
    response,
    { size: bytes.length, modified: options.modified, version },
    (range) => Promise.resolve(range ? bytes.subarray(range.start, range.end + 1) : bytes),
    options,
  );
}

/** What a file of the hub's own folder is known by, as the folder store knows its files. */
function localVersion(info: Stats): string {
  return `${String(info.ino)}:${String(info.size)}:${String(info.mtimeMs)}:${String(info.ctimeMs)}`;
}

/**
 * The entity tag of a file's version: its size and a short hash of what its store knows it
 * by (S3's own ETag, a file's inode and times to the nanosecond), so that two files of one
 * size written within a second (Last-Modified's resolution) never share one.
 */
function entityTag(info: FileFacts): string {
  const hash = createHash('sha256').update(info.version).digest('base64url').slice(0, 16);
  return `${info.size.toString(16)}-${hash}`;
}

function openFile(path: string, range?: ByteRange): Promise<Readable> {
  const stream = createReadStream(path, { highWaterMark: 1 << 20, ...range });
  return new Promise((resolve, reject) => {
    stream.once('open', () => resolve(stream));
    stream.once('error', reject);
  });
}

/**
 * The conditional headers: with any of them, the store's own answer could differ from ours,
 * and a copy not made yet is answered once it is whole, by its validators.
 */
export const CONDITIONS = ['if-match', 'if-unmodified-since', 'if-none-match', 'if-modified-since'];

async function sendFile(
  request: IncomingMessage,
  response: ServerResponse,
  info: FileFacts,
  read: Reader,
  options: SendOptions,
  redirect?: Redirect,
): Promise<void> {
  const { headers } = request;
  const type = options.type ?? contentType(options.name, options.encoding);
  const etag = `"${options.etag ?? entityTag(info)}"`;
  const modified = options.modified ?? info.modified;
  const lastModified = modified.toUTCString();
  // What a 304 carries too (RFC 9110 15.4.5): a cache updates what it keeps by them.
  const validators: Record<string, string | number> = {
    ETag: etag,
    'Last-Modified': lastModified,
    ...(options.cache ? { 'Cache-Control': options.cache } : {}),
  };
  // RFC 9110 13.2.2: If-Match (or else If-Unmodified-Since), then If-None-Match (or else
  // If-Modified-Since, read by `fresh` with its weak comparison, lists and `*`), then If-Range.
  if (!preconditionsHold(headers, etag, modified)) {
    // The ETag says which version failed the condition; the answer itself is not kept.
    response.writeHead(412, { ETag: etag, 'Cache-Control': 'no-store', 'Content-Length': 0 }).end();
    return;
  }
  // Only the two conditions: `fresh` takes a request's `Cache-Control: no-cache` for a reload
  // and answers it whole, but that directive is for caches on the way (RFC 9111 5.2.1.4), and
  // fetch() adds it to every request that carries a condition of its own.
  const conditions = {
    'if-none-match': headers['if-none-match'],
    'if-modified-since': headers['if-modified-since'],
  };
  if (fresh(conditions, { etag, 'last-modified': lastModified })) {
    response.writeHead(304, validators).end();
    return;
  }
  // Ranges are of GET only (RFC 9110 14.2): a HEAD is answered as the GET of the whole file.
  const ranges =
    request.method === 'GET' ? rangesAsked(headers, info.size, etag, modified) : 'whole';
  const disposition = options.disposition && dispositionOf(options.name, options.disposition);
  if (
    redirect &&
    request.method === 'GET' &&
    // A script of another origin reads the hub's CORS answer; a bucket's has none of its own.
    headers.origin === undefined &&
    (ranges === 'whole' || (ranges !== 'unsatisfiable' && ranges.length === 1)) &&
    !CONDITIONS.some((name) => headers[name] !== undefined) &&
    headers['if-range'] === undefined
  ) {
    // A signed URL is signed for GET, the store knows neither our tag nor several ranges at
    // once: anything else is answered here.
    const url = await redirect(type, disposition);
    response.writeHead(302, { Location: url, 'Cache-Control': 'private, no-store' }).end();
    return;
  }
  const fileHeaders: Record<string, string | number> = {
    'Content-Type': type,
    ...validators,
    'Accept-Ranges': 'bytes',
    ...(disposition ? { 'Content-Disposition': disposition } : {}),
  };
  if (ranges === 'unsatisfiable') {
    response
      .writeHead(416, {
        ETag: etag,
        'Cache-Control': 'no-store',
        'Accept-Ranges': 'bytes',
        'Content-Range': `bytes */${String(info.size)}`,
        'Content-Length': 0,
      })
      .end();
    return;
  }
  if (ranges !== 'whole' && ranges.length > 1)
    return sendParts(response, info.size, read, fileHeaders, ranges);
  const range = ranges === 'whole' ? undefined : ranges[0];
  // Opened before the status is sent, so that a file that cannot be read is a 500 of its
  // own; a failure after it cuts the response short.
  const body = request.method === 'HEAD' ? undefined : await read(range);
  if (range) {
    fileHeaders['Content-Range'] =
      `bytes ${String(range.start)}-${String(range.end)}/${String(info.size)}`;
    fileHeaders['Content-Length'] = range.end - range.start + 1;
    response.writeHead(206, fileHeaders);
  } else {
    fileHeaders['Content-Length'] = info.size;
    response.writeHead(200, fileHeaders);
  }
  if (body === undefined) response.end();
  else if (Buffer.isBuffer(body)) response.end(body);
  else await pipeline(body, response);
}

/**
 * Content-Disposition with a file's name: `filename*` (RFC 8187) when it is not plain ASCII,
 * read by browsers and wget, beside a `filename` in ASCII for clients that read only that
 * (curl). Control characters and the marks that reverse the text's direction (which could
 * show `evil\u202Etxt.exe` as `evilexe.txt`) are taken out of both; in the ASCII one, `"`,
 * `\` and `%`, which curl -OJ does not read back (it saved `Über "x";y.csv` as `0.csv`),
 * become `_`.
 */
export function dispositionOf(name: string, type: 'attachment' | 'inline'): string {
  // eslint-disable-next-line no-control-regex
  const shown = name.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
  const ascii = shown
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return contentDisposition(shown, { type, fallback: ascii });
}

/**
 * Sends a file as it is written (a copy being made), to a GET: its length is told only when
 * it is already whole, and a writing that fails after the first bytes cuts the response
 * short, so that no client takes a truncated file for a whole one. A HEAD, ranges and
 * conditional requests are answered from the whole file instead (sendStored, sendLocalFile).
 */
export async function sendGrowing(
  response: ServerResponse,
  bytes: Readable,
  length: number | undefined,
  options: SendOptions & { type: string; etag: string; modified: Date },
): Promise<void> {
  response.writeHead(200, {
    'Content-Type': options.type,
    ...(options.cache !== undefined ? { 'Cache-Control': options.cache } : {}),
    ...(options.disposition
      ? { 'Content-Disposition': dispositionOf(options.name, options.disposition) }
      : {}),
    ETag: `"${options.etag}"`,
    'Last-Modified': options.modified.toUTCString(),
    ...(length !== undefined ? { 'Content-Length': String(length) } : {}),
  });
  await pipeline(bytes, response);
}

/** Whether a request asks for a file's whole answer first: its length, ranges, conditions. */
export function needsWhole(request: IncomingMessage): boolean {
  const { headers } = request;
  return (
    request.method === 'HEAD' ||
    headers.range !== undefined ||
    CONDITIONS.some((name) => headers[name] !== undefined)
  );
}

/** The entity tags of a header's list (`*` among them), as they are written. */
function entityTags(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

function dateOf(header: string | undefined): number | undefined {
  const time = header === undefined ? NaN : Date.parse(header);
  return Number.isNaN(time) ? undefined : time;
}

/** A time of change as Last-Modified says it: to the second. */
function seconds(modified: Date): number {
  return Math.floor(modified.getTime() / 1000) * 1000;
}

/**
 * If-Match with the strong comparison (a weak tag never matches, `*` matches a file that
 * exists), or else If-Unmodified-Since; an invalid date is ignored.
 */
function preconditionsHold(headers: IncomingHttpHeaders, etag: string, modified: Date): boolean {
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) return entityTags(ifMatch).some((tag) => tag === '*' || tag === etag);
  const since = dateOf(headers['if-unmodified-since']);
  return since === undefined || seconds(modified) <= since;
}

/**
 * The ranges a GET asks for and may have: `whole` when it asks for none, they are of a unit
 * other than bytes, the header is invalid, If-Range names another version (or a weak tag,
 * or a date other than Last-Modified: RFC 9110 13.1.5), or they are more than MAX_RANGES;
 * `unsatisfiable` when none of them overlaps the file. Overlapping and adjacent ranges are
 * combined (RFC 9110 15.3.7.2), so that no byte is sent twice.
 */
function rangesAsked(
  headers: IncomingHttpHeaders,
  size: number,
  etag: string,
  modified: Date,
): readonly ByteRange[] | 'whole' | 'unsatisfiable' {
  const header = headers.range;
  if (header === undefined) return 'whole';
  const given = headers['if-range'];
  const ifRange = typeof given === 'string' ? given.trim() : undefined;
  if (ifRange !== undefined) {
    const isTag = ifRange.startsWith('"') || ifRange.startsWith('W/');
    const holds = isTag ? ifRange === etag : dateOf(ifRange) === seconds(modified);
    if (!holds) return 'whole';
  }
  const asked = parseRange(size, header);
  if (asked.type !== 'bytes' || (asked.code & 1) !== 0) return 'whole';
  // None left: all past the end (2), or suffixes of an empty file, which is sent whole.
  if (asked.ranges.length === 0) return (asked.code & 2) !== 0 ? 'unsatisfiable' : 'whole';
  if (asked.ranges.length > MAX_RANGES) return 'whole';
  return combineRanges(asked.ranges).map(({ start, end }) => ({ start, end }));
}

/** Several ranges, each a part of a `multipart/byteranges` body (RFC 9110 14.6). */
async function sendParts(
  response: ServerResponse,
  size: number,
  read: Reader,
  headers: Record<string, string | number>,
  ranges: readonly ByteRange[],
): Promise<void> {
  const boundary = randomBytes(16).toString('hex');
  const type = String(headers['Content-Type']);
  const heads = ranges.map(
    (range, index) =>
      `${index === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Type: ${type}\r\n` +
      `Content-Range: bytes ${String(range.start)}-${String(range.end)}/${String(size)}\r\n\r\n`,
  );
  const tail = `\r\n--${boundary}--\r\n`;
  let length = Buffer.byteLength(tail);
  for (const [index, range] of ranges.entries())
    length += Buffer.byteLength(heads[index] ?? '') + range.end - range.start + 1;
  // Opened before the status, as one range is (sendFile); only a GET asks for ranges.
  const first = await read(ranges[0]);
  async function* parts(): AsyncGenerator<Buffer> {
    for (const [index, range] of ranges.entries()) {
      yield Buffer.from(heads[index] ?? '');
      const body = index === 0 && first ? first : await read(range);
      if (Buffer.isBuffer(body)) yield body;
      else for await (const chunk of body as AsyncIterable<Buffer>) yield chunk;
    }
    yield Buffer.from(tail);
  }
  try {
    response.writeHead(206, {
      ...headers,
      'Content-Type': `multipart/byteranges; boundary=${boundary}`,
      'Content-Length': length,
    });
    await pipeline(Readable.from(parts(), { objectMode: false }), response);
  } finally {
    // Not read at all when the response went before the parts began (the client gone).
    if (!Buffer.isBuffer(first)) first.destroy();
  }
}

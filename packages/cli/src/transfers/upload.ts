import { createHash, randomBytes, type Hash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { fileChunks } from '@data/core';
import { ALGORITHM_FIELD, CRC32_FIELD, crc32Base64 } from '@data/core';
import { ApiError, ServerError } from '@data/core';
import { errorDetail, send, withRetries, type HttpFetch, type HttpResponse } from '@data/core';

export interface UploadForm {
  method: 'POST';
  url: string;
  fields: Record<string, string>;
  path: string;
  length: number;
  contentType: string;
  /** For a form signed before the file's digest was known: the checksum sent after the file. */
  trailer?: Trailer;
}

/**
 * The last field of a form signed without the digest: the file's base64 MD5, which the body
 * waits for before it ends, or its CRC32, taken from the bytes as they are sent.
 */
export type Trailer =
  { field: 'Content-MD5'; md5: Promise<string> } | { field: typeof CRC32_FIELD };

/** A presigned PUT: the file is the body, with the headers the signature binds. */
export interface UploadPut {
  method: 'PUT';
  url: string;
  headers: Record<string, string>;
  path: string;
  length: number;
}

/**
 * An upload in parts that goes on where it broke off (docs/protocol.md): the hub says what
 * it holds and where each missing part goes, and checks the whole file's MD5 at the end.
 */
export interface UploadParts {
  method: 'PARTS';
  url: string;
  path: string;
  length: number;
  /** The file's base64 MD5, known or on its way; without it, taken as the file is read. */
  md5?: Promise<string> | string;
}

export type Upload = UploadForm | UploadPut | UploadParts;

/**
 * multipart/form-data with every field, then the file last, streamed with a known length.
 * The HTTP client asks for the next chunk only once the socket has taken the previous one
 * (it waits for 'drain' when the socket's buffer is full), so a chunk's buffer is free
 * again two chunks later; four buffers leave a margin. Were that ever wrong, the store's
 * Content-MD5 check would refuse the upload rather than keep damaged bytes.
 */
function multipart(
  form: UploadForm,
  onBytes: (sent: number) => void,
): { body: AsyncIterable<Uint8Array>; type: string; length: number } {
  const boundary = `----data${randomBytes(12).toString('hex')}`;
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const trailer = form.trailer;
  const withCrc = trailer?.field === CRC32_FIELD;
  // The hub takes a CRC32 only of uploads that announce one before the file.
  const announced: Record<string, string> = withCrc ? { [ALGORITHM_FIELD]: 'CRC32' } : {};
  const fields = Object.entries({ ...form.fields, ...announced })
    .map(([name, value]) => field(name, value))
    .join('');
  const head = Buffer.from(
    `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="file"\r\nContent-Type: ${form.contentType}\r\n\r\n`,
  );
  const tail = (value: string) =>
    `\r\n${trailer ? field(trailer.field, value) : ''}--${boundary}--\r\n`;
  // A base64 MD5 is always 24 characters, a CRC32 8: the length is known before the value.
  const tailLength = Buffer.byteLength(tail('x'.repeat(withCrc ? 8 : 24)));
  async function* body(): AsyncIterable<Uint8Array> {
    yield head;
    let sent = 0;
    let crc = 0;
    for await (const chunk of fileChunks(form.path, { chunkSize: 1 << 18, buffers: 4 })) {
      sent += chunk.length;
      if (withCrc) crc = crc32(chunk, crc);
      onBytes(sent);
      yield chunk;
    }
    if (trailer?.field === CRC32_FIELD) yield Buffer.from(tail(crc32Base64(crc)));
    else yield Buffer.from(tail((await trailer?.md5) ?? ''));
  }
  return {
    body: body(),
    type: `multipart/form-data; boundary=${boundary}`,
    length: head.length + form.length + tailLength,
  };
}

function fileBody(
  upload: UploadPut,
  onBytes: (sent: number) => void,
): { body: AsyncIterable<Uint8Array>; headers: Record<string, string> } {
  async function* body(): AsyncIterable<Uint8Array> {
    let sent = 0;
    for await (const chunk of fileChunks(upload.path, { chunkSize: 1 << 18, buffers: 4 })) {
      sent += chunk.length;
      onBytes(sent);
      yield chunk;
    }
  }
  return { body: body(), headers: { ...upload.headers, 'Content-Length': String(upload.length) } };
}

function requestOf(
  upload: UploadForm | UploadPut,
  onBytes: (sent: number) => void,
): { body: AsyncIterable<Uint8Array>; headers: Record<string, string> } {
  if (upload.method === 'PUT') return fileBody(upload, onBytes);
  const { body, type, length } = multipart(upload, onBytes);
  return { body, headers: { 'Content-Type': type, 'Content-Length': String(length) } };
}

function retryAfterMs(error: unknown): number | undefined {
  return error instanceof RetryAfter ? error.ms : undefined;
}

class RetryAfter extends ApiError {
  constructor(
    status: number,
    detail: string,
    readonly ms: number,
  ) {
    super('upload', status, detail);
  }
}

/**
 * Uploads one file through its signed form or presigned PUT, again after network errors
 * and 5xx, and returns the body of the store's answer. No token goes with it: the URL's
 * signature is the permission.
 */
export async function uploadFile(
  fetch: HttpFetch,
  upload: Upload,
  label: string,
  onBytes: (sent: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  if (upload.method === 'PARTS') return uploadParts(fetch, upload, label, onBytes, signal);
  return withRetries(
    async () => {
      const { body, headers } = requestOf(upload, onBytes);
      const response = await send(fetch, `upload ${label}`, upload.url, {
        method: upload.method,
        headers,
        body,
        duplex: 'half',
        ...(signal ? { signal } : {}),
      });
      return answerOf(response, label);
    },
    { retryAfterMs, ...(signal ? { signal } : {}) },
  );
}

/** The body of a 2xx answer; else the store's error, with when to try again if it said. */
async function answerOf(response: HttpResponse, label: string): Promise<string> {
  if (response.status >= 200 && response.status <= 299) return response.text();
  const detail = errorDetail(await response.text());
  const seconds = Number(response.headers.get('retry-after'));
  if (Number.isFinite(seconds) && seconds > 0)
    throw new RetryAfter(response.status, detail, Math.min(seconds, 60) * 1000);
  throw new ApiError(`upload ${label}`, response.status, detail);
}

interface PartPlan {
  /** Bytes the store holds already. */
  held: number;
  /** The parts still to send, in order: bytes [start, end) of the file, each PUT to its url. */
  parts: { start: number; end: number; url: string }[];
}

/**
 * Sends the parts the hub does not hold yet, asking again after a break (and for the rest,
 * when it gave only the first ones), then asks the hub to check and take the whole file.
 * A file the hub held part of that does not match its digest as a whole (its part came from
 * another file of the same length and head) is sent again once from the start.
 */
async function uploadParts(
  fetch: HttpFetch,
  upload: UploadParts,
  label: string,
  onBytes: (sent: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  const digest = upload.md5 === undefined ? new RunningDigest(upload.path, signal) : undefined;
  const options = { retryAfterMs, ...(signal ? { signal } : {}) };
  for (let attempt = 1; ; attempt++) {
    let resumed = false;
    const sendMissing = async (): Promise<void> => {
      for (let plan = await planOf(fetch, upload, label, signal); plan.parts.length > 0;) {
        resumed ||= plan.held > 0;
        let done = plan.held;
        onBytes(done);
        for (const part of plan.parts) {
          await digest?.readUpTo(part.start);
          await sendPart(
            fetch,
            upload,
            part,
            label,
            (sent) => onBytes(done + sent),
            digest,
            signal,
          );
          done += part.end - part.start;
        }
        const next = await planOf(fetch, upload, label, signal);
        if (next.parts.length > 0 && next.held <= plan.held) throw noProgress(upload, label);
        plan = next;
      }
    };
    await withRetries(sendMissing, options);
    await digest?.readUpTo(upload.length);
    const md5 = digest ? digest.value() : await upload.md5;
    try {
      return await withRetries(async () => {
        const response = await send(fetch, `upload ${label}`, upload.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ md5 }),
          ...(signal ? { signal } : {}),
        });
        return answerOf(response, label);
      }, options);
    } catch (error) {
      if (!(resumed && attempt === 1 && error instanceof ApiError && error.status === 400))
        throw error;
    }
  }
}

/** A hub that asks again for the parts it was sent: sending them again would never end. */
function noProgress(upload: UploadParts, label: string): ServerError {
  return new ServerError(
    `upload ${label}: the hub at ${new URL(upload.url).origin} was sent every part it asked for and holds no more of the file than before`,
    'try again later; if it goes on, tell whoever runs the hub',
  );
}

async function planOf(
  fetch: HttpFetch,
  upload: UploadParts,
  label: string,
  signal?: AbortSignal,
): Promise<PartPlan> {
  const response = await send(fetch, `upload ${label}`, upload.url, signal ? { signal } : {});
  const text = await answerOf(response, label);
  let plan: unknown;
  try {
    plan = JSON.parse(text);
  } catch {
    plan = undefined;
  }
  const { held, parts } = (plan ?? {}) as Partial<PartPlan>;
  const valid =
    typeof held === 'number' &&
    Array.isArray(parts) &&
    parts.every(
      (part) =>
        Number.isSafeInteger(part.start) &&
        Number.isSafeInteger(part.end) &&
        part.start >= 0 &&
        part.start < part.end &&
        part.end <= upload.length &&
        typeof part.url === 'string',
    );
  if (!valid)
    throw new ApiError(`upload ${label}`, response.status, 'the hub sent no plan of parts');
  return { held, parts };
}

async function sendPart(
  fetch: HttpFetch,
  upload: UploadParts,
  part: { start: number; end: number; url: string },
  label: string,
  onBytes: (sent: number) => void,
  digest: RunningDigest | undefined,
  signal?: AbortSignal,
): Promise<void> {
  async function* body(): AsyncIterable<Uint8Array> {
    let position = part.start;
    const chunks = fileChunks(upload.path, {
      chunkSize: 1 << 18,
      buffers: 4,
      start: part.start,
      end: part.end,
    });
    for await (const chunk of chunks) {
      digest?.add(chunk, position);
      position += chunk.length;
      onBytes(position - part.start);
      yield chunk;
    }
  }
  const response = await send(fetch, `upload ${label}`, part.url, {
    method: 'PUT',
    headers: { 'Content-Length': String(part.end - part.start) },
    body: body(),
    duplex: 'half',
    ...(signal ? { signal } : {}),
  });
  await answerOf(response, label);
}

/**
 * The MD5 of a file taken in order as its parts are sent, reading from the file itself the
 * bytes the hub held already; bytes sent again after a break are not taken twice.
 */
class RunningDigest {
  private readonly hash: Hash = createHash('md5');
  private position = 0;
  private digest: string | undefined;

  constructor(
    private readonly path: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  add(chunk: Uint8Array, at: number): void {
    const skip = this.position - at;
    if (skip < 0 || skip >= chunk.length) return;
    this.hash.update(chunk.subarray(skip));
    this.position += chunk.length - skip;
  }

  async readUpTo(end: number): Promise<void> {
    if (end <= this.position) return;
    const chunks = fileChunks(this.path, { start: this.position, end, signal: this.signal });
    for await (const chunk of chunks) this.add(chunk, this.position);
  }

  value(): string {
    this.digest ??= this.hash.digest('base64');
    return this.digest;
  }
}

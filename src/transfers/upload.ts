import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { fileChunks } from '../files/chunks.js';
import { ALGORITHM_FIELD, CRC32_FIELD, crc32Base64 } from '../files/hash.js';
import { ApiError } from '../errors.js';
import { errorDetail, send, withRetries, type HttpFetch } from '../client/http.js';

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

export type Upload = UploadForm | UploadPut;

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
  upload: Upload,
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
      if (response.status >= 200 && response.status <= 299) return response.text();
      const detail = errorDetail(await response.text());
      const seconds = Number(response.headers.get('retry-after'));
      if (Number.isFinite(seconds) && seconds > 0)
        throw new RetryAfter(response.status, detail, Math.min(seconds, 60) * 1000);
      throw new ApiError(`upload ${label}`, response.status, detail);
    },
    { retryAfterMs, ...(signal ? { signal } : {}) },
  );
}

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError, CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import {
  errorDetail,
  send,
  withRetries,
  type HttpFetch,
  type HttpResponse,
} from '../client/http.js';

export interface DownloadOptions {
  token?: string | undefined;
  bytes?: number | undefined;
  /** "md5:…", "sha256:…" or a bare md5. */
  hash?: string | undefined;
  signal?: AbortSignal | undefined;
  onBytes?: (received: number) => void;
}

/** GET that follows redirects itself, so that the token never goes to another origin. */
async function request(
  fetch: HttpFetch,
  url: string,
  headers: Record<string, string>,
  token: string | undefined,
  signal?: AbortSignal,
): Promise<HttpResponse> {
  let current = url;
  const origin = new URL(url).origin;
  for (let hop = 0; hop < 6; hop++) {
    const sameOrigin = new URL(current).origin === origin;
    const response = await send(fetch, `download ${url}`, current, {
      headers: { ...headers, ...(token && sameOrigin ? { 'Auth-Token': token } : {}) },
      redirect: 'manual',
      ...(signal ? { signal } : {}),
    });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return response;
    await response.text();
    current = new URL(location, current).href;
  }
  throw new ApiError(`download ${url}`, 310, 'too many redirects');
}

async function digestOf(path: string, algorithm: string): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** What was downloaded is not what the descriptor declares. */
export class IntegrityError extends CliError {
  constructor(message: string) {
    super(message, {
      code: 'E_INTEGRITY',
      exitCode: EXIT.invalid,
      hint: 'the file was not saved; the hub may hold a damaged copy',
    });
  }
}

/**
 * Downloads to `<target>.part`, resuming it with a byte range when it exists, checks the
 * declared bytes and hash, and only then renames it into place.
 */
export async function downloadFile(
  fetch: HttpFetch,
  url: string,
  target: string,
  options: DownloadOptions = {},
): Promise<number> {
  const part = `${target}.part`;
  await mkdir(dirname(target), { recursive: true });
  await withRetries(
    async () => {
      const have = (await stat(part).catch(() => undefined))?.size ?? 0;
      const response = await request(
        fetch,
        url,
        have > 0 ? { Range: `bytes=${String(have)}-` } : {},
        options.token,
        options.signal,
      );
      if (response.status === 416) return;
      if (!response.ok)
        throw new ApiError(`download ${url}`, response.status, errorDetail(await response.text()));
      const append = response.status === 206 && have > 0;
      let received = append ? have : 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          received += chunk.length;
          options.onBytes?.(received);
          callback(null, chunk);
        },
      });
      const out = createWriteStream(part, { flags: append ? 'a' : 'w', highWaterMark: 1 << 20 });
      await pipeline(Readable.from(response.body ?? []), count, out);
    },
    options.signal ? { signal: options.signal } : {},
  );
  const size = (await stat(part)).size;
  if (options.bytes !== undefined && options.bytes !== size) {
    await rm(part, { force: true });
    throw new IntegrityError(
      `${url}: expected ${String(options.bytes)} bytes, received ${String(size)}`,
    );
  }
  if (options.hash) {
    const [algorithm, digest] = options.hash.includes(':')
      ? options.hash.split(':', 2)
      : ['md5', options.hash];
    if (
      (algorithm === 'md5' || algorithm === 'sha256') &&
      digest &&
      (await digestOf(part, algorithm)) !== digest.toLowerCase()
    ) {
      await rm(part, { force: true });
      throw new IntegrityError(`${url}: the ${algorithm} hash does not match the descriptor`);
    }
  }
  await rename(part, target);
  return size;
}

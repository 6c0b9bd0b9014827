import { makeDirectory, replaceFile } from '@data/core';
import { createHash, type Hash } from 'node:crypto';
import { hashFile } from '@data/core';
import { hashPlan } from '@data/core';
import { closeSync, openSync, writeSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ApiError, InvalidDataError, NetworkError } from '@data/core';
import { errorDetail, send, withRetries, type HttpFetch } from '@data/core';
import { counted } from '@data/core';

export interface DownloadOptions {
  bytes?: number | undefined;
  /** "md5:…", "sha256:…" or a bare md5. */
  hash?: string | undefined;
  signal?: AbortSignal | undefined;
  onBytes?: (received: number) => void;
  /** The whole file's size, once an answer tells it. */
  onSize?: (bytes: number) => void;
}

/** What was downloaded is not what the descriptor declares. */
export class IntegrityError extends InvalidDataError {
  constructor(message: string) {
    super(message, {
      code: 'E_INTEGRITY',
      hint: 'the file was not saved; the hub may hold a damaged copy',
    });
  }
}

/**
 * Downloads to `<target>.part`, resuming it with a byte range when it exists and the hash
 * is declared, checks the declared bytes and hash, and only then moves it into place, its
 * bytes on the disk first (replaceFile, the end of the one atomic write).
 */
export async function downloadFile(
  fetch: HttpFetch,
  url: string,
  target: string,
  options: DownloadOptions = {},
): Promise<number> {
  const part = `${target}.part`;
  await makeDirectory(dirname(target));
  const expected = hashPlan(options.hash).expected;
  // Only a file whose hash is declared goes on from a part left earlier: without one nothing
  // would tell the part of another version (the dataset published again since) from this one.
  if (!expected) await rm(part, { force: true });
  let digest: string | undefined;
  await withRetries(
    async () => {
      const have = (await stat(part).catch(() => undefined))?.size ?? 0;
      const response = await send(fetch, `download ${url}`, url, {
        headers: {
          ...(have > 0 ? { Range: `bytes=${String(have)}-` } : {}),
        },
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (response.status === 416) {
        await response.text();
        return;
      }
      if (!response.ok)
        throw new ApiError(`download ${url}`, response.status, errorDetail(await response.text()));
      const append = response.status === 206 && have > 0;
      const total = sizeOf(response.headers, append ? have : 0);
      if (total !== undefined) options.onSize?.(total);
      // A resumed file is hashed once complete; a whole one on its way to the disk.
      const hasher = expected && !append ? createHash(expected.algorithm) : undefined;
      await writeBody(response.body ?? [], part, append, {
        ...options,
        url,
        hasher,
        start: append ? have : 0,
      });
      digest = hasher?.digest('hex');
    },
    options.signal ? { signal: options.signal } : {},
  );
  const size = (await stat(part)).size;
  if (options.bytes !== undefined && options.bytes !== size) {
    await rm(part, { force: true });
    throw new IntegrityError(
      `${url}: expected ${counted(options.bytes, 'byte')}, received ${String(size)}`,
    );
  }
  if (expected) {
    digest ??= (await hashFile(part, expected.algorithm)).digest.toString('hex');
    if (digest !== expected.digest) {
      await rm(part, { force: true });
      throw new IntegrityError(
        `${url}: the ${expected.algorithm} hash does not match the descriptor`,
      );
    }
  }
  await replaceFile(part, target);
  return size;
}

/** The whole file's size from an answer: Content-Range's total, or the length plus what we had. */
function sizeOf(headers: { get(name: string): string | null }, have: number): number | undefined {
  const range = /\/(\d+)$/.exec(headers.get('content-range') ?? '')?.[1];
  if (range) return Number(range);
  const length = headers.get('content-length');
  return length !== null && /^\d+$/.test(length) ? have + Number(length) : undefined;
}

/**
 * At most this many bytes per write, as curl does. Linux gives a write page-cache folios of
 * about its own size; small ones come from pages freed a moment ago, large ones from the
 * allocator's big free blocks, which a virtual machine that hands freed memory back to its
 * host (virtio-balloon free page reporting) has to fault in again. On such a two-core machine
 * 1 GB written in 64 KB writes took 0.2 to 2.8 s from run to run, in 16 KB writes 0.3 s.
 */
const WRITE_BYTES = 16 * 1024;

/**
 * Appends a response body to a file. The writes are synchronous, as curl's are: a write to
 * the page cache takes microseconds, and sparing each chunk a trip through the thread pool
 * cut a 1 GB download's time by about a fifth on a two-core machine.
 */
async function writeBody(
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  path: string,
  append: boolean,
  options: DownloadOptions & { url: string; hasher: Hash | undefined; start: number },
): Promise<void> {
  const fd = openSync(path, append ? 'a' : 'w');
  let received = options.start;
  try {
    for await (const chunk of body) {
      for (let written = 0; written < chunk.length;)
        written += writeSync(fd, chunk, written, Math.min(WRITE_BYTES, chunk.length - written));
      options.hasher?.update(chunk);
      received += chunk.length;
      options.onBytes?.(received);
    }
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const after = `after ${counted(received, 'byte')}`;
    if (error instanceof NetworkError)
      throw new NetworkError(`download ${options.url}: ${error.message} ${after}`, error);
    if (!isBrokenConnection(error)) throw error;
    throw new NetworkError(`download ${options.url}: the connection broke off ${after}`, error);
  } finally {
    closeSync(fd);
  }
}

function isBrokenConnection(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === 'string' && (code.startsWith('UND_ERR') || code.startsWith('ECONN'))) ||
    (error instanceof TypeError && error.message === 'terminated')
  );
}

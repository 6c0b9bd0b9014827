import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AuthError } from '../errors.js';
import { isRemote } from '../model/paths.js';
import { readBoundedText, TextTooLarge } from '../files/bounded-text.js';
import { fileChunks, kindOfNonFile } from '../files/chunks.js';

/** The part of a fetch Response the validator reads. */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly body: AsyncIterable<Uint8Array> | null;
}

export type Fetch = (url: string, init?: { signal?: AbortSignal }) => Promise<FetchResponse>;

/** Where a descriptor lives: relative paths are resolved against it. */
export interface Base {
  dir?: string;
  url?: string;
}

export class SourceFailure extends Error {
  constructor(
    readonly type: 'scheme-error' | 'source-error' | 'format-error',
    readonly note: string,
  ) {
    super(note);
  }
}

/**
 * A remote source could not be reached (no answer, a refused connection, an unknown host, a
 * server error): the validation cannot reach a verdict, which is no finding about the data.
 */
export class RemoteUnreachable extends Error {
  override readonly name = 'RemoteUnreachable';
}

export function locate(path: string, base: Base): string {
  if (isRemote(path)) return path;
  if (base.url) return new URL(path, base.url).href;
  return join(base.dir ?? '.', path);
}

/** A local file's stat, or the source failure to report when it is missing or not a file. */
export async function localFile(location: string): Promise<Stats> {
  const info = await stat(location).catch(() => undefined);
  if (!info) throw new SourceFailure('scheme-error', `file "${location}" does not exist`);
  if (!info.isFile())
    throw new SourceFailure('scheme-error', `"${location}" is ${kindOfNonFile(info)}, not a file`);
  return info;
}

/**
 * Opens a local file or URL as a stream of byte chunks. A local file's chunks share one
 * buffer: each is valid only until the next is read.
 */
export async function openBytes(
  location: string,
  fetch: Fetch,
  signal?: AbortSignal,
): Promise<AsyncIterable<Uint8Array>> {
  if (isRemote(location)) {
    let response: FetchResponse;
    try {
      response = await fetch(location, signal ? { signal } : {});
    } catch (error) {
      // A host the hub's operator did not allow is the package's doing, and a finding.
      if (error instanceof Error && error.name === 'HostNotAllowed')
        throw new SourceFailure('scheme-error', `cannot fetch "${location}": ${error.message}`);
      if (signal?.aborted) throw error;
      // The hub refused the token sent (a 401, see http/credential.ts): said as it is.
      if (error instanceof AuthError) throw error;
      throw new RemoteUnreachable(`cannot reach ${location}: ${describe(error)}`);
    }
    if (response.status >= 500 || response.status === 429)
      throw new RemoteUnreachable(`${location} answered HTTP ${String(response.status)}`);
    if (!response.ok || !response.body) {
      throw new SourceFailure(
        'scheme-error',
        `cannot fetch "${location}": HTTP ${String(response.status)}`,
      );
    }
    return response.body;
  }
  await localFile(location);
  return fileChunks(location, { signal });
}

/** A descriptor's text (JSON or YAML), from a file or, up to its cap, from a URL. */
export async function readText(
  location: string,
  fetch: Fetch,
  signal?: AbortSignal,
): Promise<string> {
  const bytes = await openBytes(location, fetch, signal);
  if (!isRemote(location)) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of bytes) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readBoundedText(bytes, location);
  } catch (error) {
    // No verdict on the data, as when the server does not answer: exit 3.
    if (error instanceof TextTooLarge) throw new RemoteUnreachable(error.message);
    throw error;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string } }).cause;
    return cause?.code ?? error.message;
  }
  return String(error);
}

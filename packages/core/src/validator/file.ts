import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { newHash } from '../files/hash.js';
import { isRemote } from '../model/paths.js';
import type { ResourceDescriptor } from './descriptor/types.js';
import { localFile, openBytes, SourceFailure, type Fetch } from './location.js';
import { reportError } from './report/errors.js';
import type { TaskCollector } from './report/task.js';
import type { TaskStats } from './report/types.js';

export interface HashPlan {
  algorithms: string[];
  expected?: { algorithm: string; digest: string };
  warning?: string;
}

const SUPPORTED = new Set(['md5', 'sha256']);

/** Which digests to compute while reading, from the resource's declared `hash`. */
export function hashPlan(hash: string | undefined): HashPlan {
  if (!hash) return { algorithms: [] };
  const [algorithm, digest] = hash.includes(':') ? hash.split(':', 2) : ['md5', hash];
  if (!algorithm || !digest) return { algorithms: [] };
  if (!SUPPORTED.has(algorithm)) {
    return { algorithms: [], warning: 'hash is ignored; supported algorithms: md5/sha256' };
  }
  return { algorithms: [algorithm], expected: { algorithm, digest: digest.toLowerCase() } };
}

export interface FileResult {
  bytes: number;
  digests: Record<string, string>;
  complete: boolean;
}

/** Sizes of local files that nothing asks to hash: reading them would tell no more. */
async function localSize(locations: string[]): Promise<number> {
  let bytes = 0;
  for (const location of locations) {
    const info = await localFile(location);
    await access(location, constants.R_OK).catch(() => {
      throw new SourceFailure('scheme-error', `file "${location}" cannot be read`);
    });
    bytes += info.size;
  }
  if (bytes === 0) throw new SourceFailure('source-error', 'the source is empty');
  return bytes;
}

/** Streams a non-tabular resource's parts to count and hash them. */
export async function readFile(
  locations: string[],
  algorithms: string[],
  fetch: Fetch,
  signal?: AbortSignal,
): Promise<FileResult> {
  if (algorithms.length === 0 && !locations.some(isRemote))
    return { bytes: await localSize(locations), digests: {}, complete: true };
  return { ...(await countAndHash(locations, algorithms, fetch, signal)), complete: true };
}

/**
 * Streams the parts one after another, counting and hashing them; `onChunk` sees each chunk
 * (valid only until it returns) with the bytes read so far. An empty source is an error.
 */
export async function countAndHash(
  locations: string[],
  algorithms: readonly string[],
  fetch: Fetch,
  signal?: AbortSignal,
  onChunk?: (chunk: Uint8Array, read: number) => Promise<void> | void,
): Promise<{ bytes: number; digests: Record<string, string> }> {
  const hashers = algorithms.map((name) => [name, newHash(name)] as const);
  let bytes = 0;
  for (const location of locations) {
    for await (const chunk of await openBytes(location, fetch, signal)) {
      bytes += chunk.length;
      for (const [, hasher] of hashers) hasher.update(chunk);
      await onChunk?.(chunk, bytes);
    }
  }
  if (bytes === 0) throw new SourceFailure('source-error', 'the source is empty');
  return {
    bytes,
    digests: Object.fromEntries(hashers.map(([name, hasher]) => [name, hasher.digest('hex')])),
  };
}

/** Compares what was read with the declared `bytes` and `hash`; returns the file stats. */
export function fileChecks(
  resource: ResourceDescriptor,
  result: FileResult,
  plan: HashPlan,
  collector: TaskCollector,
): Partial<TaskStats> {
  const stats: Partial<TaskStats> = { ...result.digests };
  if (resource.data !== undefined) return stats;
  stats.bytes = result.bytes;
  if (!result.complete) return stats;
  const expected = plan.expected;
  const actual = expected ? result.digests[expected.algorithm] : undefined;
  if (expected && actual !== undefined && actual !== expected.digest) {
    const note = `expected is "${expected.digest}" and actual is "${actual}"`;
    collector.add(reportError('hash-count', note));
  }
  if (typeof resource.bytes === 'number' && resource.bytes !== result.bytes) {
    const note = `expected is "${String(resource.bytes)}" and actual is "${String(result.bytes)}"`;
    collector.add(reportError('byte-count', note));
  }
  return stats;
}

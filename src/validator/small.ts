import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isRemote } from './descriptor/paths.js';
import { resolveSource } from './source.js';

/** Below this, a package is validated where it is asked for: a worker costs more than it. */
export const SMALL_INPUT_BYTES = 8 * 1024 * 1024;

const MAX_DESCRIPTOR_BYTES = 1024 * 1024;

type Held = { descriptor: Record<string, unknown>; dir: string };

/** Every path a descriptor names: resources' data, and schemas and dialects kept in files. */
function namedPaths(descriptor: Record<string, unknown>): unknown[] {
  const resources = Array.isArray(descriptor.resources) ? (descriptor.resources as unknown[]) : [];
  return resources.flatMap((resource) => {
    if (typeof resource !== 'object' || resource === null) return [];
    const { path, schema, dialect } = resource as Record<string, unknown>;
    return [...(Array.isArray(path) ? (path as unknown[]) : [path]), schema, dialect];
  });
}

async function sizeOf(dir: string, paths: unknown[]): Promise<number | undefined> {
  let total = 0;
  for (const path of paths) {
    if (typeof path !== 'string') continue;
    if (isRemote(path)) return undefined;
    const info = await stat(isAbsolute(path) ? path : join(dir, path)).catch(() => undefined);
    total += info?.size ?? 0;
    if (total >= SMALL_INPUT_BYTES) return undefined;
  }
  return total;
}

/**
 * Whether an input is local and small: its files (and its descriptor) under 8 MB, nothing
 * to fetch. Such an input is validated in the calling thread; the rest in a worker whose
 * memory is capped and which a silent server cannot hold up.
 */
export async function isSmallLocal(input: string | Held): Promise<boolean> {
  try {
    if (typeof input !== 'string')
      return (await sizeOf(input.dir, namedPaths(input.descriptor))) !== undefined;
    if (isRemote(input)) return false;
    const source = await resolveSource(input);
    if (source.kind === 'table') return (await stat(source.location)).size < SMALL_INPUT_BYTES;
    const info = await stat(source.location);
    if (info.size > MAX_DESCRIPTOR_BYTES) return false;
    const descriptor = JSON.parse(await readFile(source.location, 'utf8')) as unknown;
    if (typeof descriptor !== 'object' || descriptor === null) return true;
    return (
      (await sizeOf(source.dir ?? '.', namedPaths(descriptor as Record<string, unknown>))) !==
      undefined
    );
  } catch {
    // Whatever cannot be sized here is the worker's to read and report on.
    return false;
  }
}

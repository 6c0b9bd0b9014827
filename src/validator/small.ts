import { isDescriptorPath, readDescriptorFile } from '../files/descriptor-file.js';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isRemote } from './descriptor/paths.js';
import { resolveSource } from './source.js';
import { SPLIT_MIN_BYTES, type SplitOptions } from './table/ranges.js';

/** Below this, a package is validated where it is asked for: a worker costs more than it. */
export const SMALL_INPUT_BYTES = 8 * 1024 * 1024;

const MAX_DESCRIPTOR_BYTES = 1024 * 1024;

type Held = { descriptor: unknown; dir: string };

/** Every path a descriptor names: resources' data, and schemas and dialects kept in files. */
function namedPaths(descriptor: unknown): unknown[] {
  if (typeof descriptor !== 'object' || descriptor === null) return [];
  const { resources } = descriptor as Record<string, unknown>;
  if (!Array.isArray(resources)) return [];
  return (resources as unknown[]).flatMap((resource) => {
    if (typeof resource !== 'object' || resource === null) return [];
    const { path, schema, dialect } = resource as Record<string, unknown>;
    return [...(Array.isArray(path) ? (path as unknown[]) : [path]), schema, dialect];
  });
}

/** The sizes of the files named, or undefined when one is remote (a missing file is 0). */
async function sizesOf(dir: string, paths: unknown[]): Promise<number[] | undefined> {
  const sizes: number[] = [];
  for (const path of paths) {
    if (typeof path !== 'string') continue;
    if (isRemote(path)) return undefined;
    const info = await stat(isAbsolute(path) ? path : join(dir, path)).catch(() => undefined);
    sizes.push(info?.size ?? 0);
  }
  return sizes;
}

/** An input's local files: their sizes (the descriptor's first), and the descriptor read. */
interface LocalInput {
  sizes: number[];
  descriptor: unknown;
  dir: string;
}

/**
 * An input's local files, or undefined when it has something to fetch or cannot be sized
 * here: that is the worker's to read and report on.
 */
async function localInput(input: string | Held): Promise<LocalInput | undefined> {
  try {
    if (typeof input !== 'string') {
      const sizes = await sizesOf(input.dir, namedPaths(input.descriptor));
      return sizes && { sizes, descriptor: input.descriptor, dir: input.dir };
    }
    if (isRemote(input)) return undefined;
    const source = await resolveSource(input);
    const info = await stat(source.location);
    if (source.kind === 'table') return { sizes: [info.size], descriptor: {}, dir: '.' };
    if (info.size > MAX_DESCRIPTOR_BYTES) return undefined;
    const descriptor = await readDescriptorFile(source.location);
    const dir = source.dir ?? '.';
    const sizes = await sizesOf(dir, namedPaths(descriptor));
    return sizes && { sizes: [info.size, ...sizes], descriptor, dir };
  } catch {
    return undefined;
  }
}

/**
 * Whether an input is local and small: its files (and its descriptor) under 8 MB, nothing
 * to fetch. Such an input is validated in the calling thread; the rest in a worker whose
 * memory is capped and which a silent server cannot hold up.
 */
export async function isSmallLocal(input: string | Held): Promise<boolean> {
  const local = await localInput(input);
  if (!local || local.sizes.reduce((sum, size) => sum + size, 0) >= SMALL_INPUT_BYTES) return false;
  // A pattern may cost microseconds a cell (pattern.ts): checked in a worker, which
  // Ctrl-C ends at once, as the calling thread hears a signal only between chunks.
  return !(await declaresPattern(local));
}

const PATTERN = /"?\bpattern"?\s*:/;

/** Whether the descriptor read, or a schema file it names, may declare a pattern constraint. */
async function declaresPattern({ descriptor, dir }: LocalInput): Promise<boolean> {
  if (PATTERN.test(JSON.stringify(descriptor))) return true;
  for (const path of namedPaths(descriptor)) {
    if (typeof path !== 'string' || !isDescriptorPath(path)) continue;
    // A file that cannot be read is reported by the validation, at once.
    const schema = await readFile(isAbsolute(path) ? path : join(dir, path), 'utf8').catch(
      () => '',
    );
    if (PATTERN.test(schema)) return true;
  }
  return false;
}

/**
 * Whether a table of the input may be large enough to be read as two ranges: not when one
 * pass is asked for, nor for a remote input or one whose local files are all under the
 * threshold; yes when the input cannot be sized here.
 */
export async function maySplit(
  input: string | Held,
  split: SplitOptions | false | undefined,
): Promise<boolean> {
  if (split === false || (typeof input === 'string' && isRemote(input))) return false;
  const sizes = (await localInput(input))?.sizes;
  const threshold = split?.minBytes ?? SPLIT_MIN_BYTES;
  return sizes === undefined || sizes.some((size) => size >= threshold);
}

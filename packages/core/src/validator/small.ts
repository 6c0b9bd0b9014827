import { isDescriptorPath, readDescriptorFile } from '../files/descriptor-file.js';
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isRemote } from '../model/paths.js';
import { isParquet, isSpreadsheet } from './sheets/formats.js';
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

/**
 * Whether a path, or a resource of the descriptor, is a workbook: its size says nothing of
 * what it holds (a few hundred compressed bytes may spell billions of cells), so it is read in
 * a worker, which Ctrl-C ends whatever the reader is doing.
 */
function isWorkbook(path: unknown, format?: unknown): boolean {
  const named = typeof format === 'string' ? format.toLowerCase() : undefined;
  const extension =
    typeof path === 'string' ? /\.([a-z]+)$/i.exec(path.replace(/[?#].*$/, ''))?.[1] : undefined;
  return isSpreadsheet(named) || isSpreadsheet(extension?.toLowerCase());
}

/** Whether a path, or a resource of the descriptor, is a Parquet file. */
function isParquetFile(path: unknown, format?: unknown): boolean {
  const named = typeof format === 'string' ? format.toLowerCase() : undefined;
  const extension =
    typeof path === 'string' ? /\.([a-z]+)$/i.exec(path.replace(/[?#].*$/, ''))?.[1] : undefined;
  return isParquet(named) || isParquet(extension?.toLowerCase());
}

/** Whether a resource of the descriptor names a file that `isKind` recognises. */
function namesFile(
  descriptor: unknown,
  isKind: (path: unknown, format: unknown) => boolean,
): boolean {
  if (typeof descriptor !== 'object' || descriptor === null) return false;
  const { resources } = descriptor as Record<string, unknown>;
  if (!Array.isArray(resources)) return false;
  return (resources as unknown[]).some((resource) => {
    if (typeof resource !== 'object' || resource === null) return false;
    const { path, format } = resource as Record<string, unknown>;
    return (Array.isArray(path) ? (path as unknown[]) : [path]).some((each) =>
      isKind(each, format),
    );
  });
}

const namesParquet = (descriptor: unknown): boolean => namesFile(descriptor, isParquetFile);
const namesWorkbook = (descriptor: unknown): boolean => namesFile(descriptor, isWorkbook);

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
  /** Whether a file is Parquet, read by row group rather than as text. */
  parquet: boolean;
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
      if (namesWorkbook(input.descriptor)) return undefined;
      const sizes = await sizesOf(input.dir, namedPaths(input.descriptor));
      const parquet = namesParquet(input.descriptor);
      return sizes && { sizes, parquet, descriptor: input.descriptor, dir: input.dir };
    }
    if (isRemote(input)) return undefined;
    const source = await resolveSource(input);
    const info = await stat(source.location);
    if (source.kind === 'table')
      return isWorkbook(source.location)
        ? undefined
        : {
            sizes: [info.size],
            parquet: isParquetFile(source.location),
            descriptor: {},
            dir: '.',
          };
    if (info.size > MAX_DESCRIPTOR_BYTES) return undefined;
    const descriptor = await readDescriptorFile(source.location);
    if (namesWorkbook(descriptor)) return undefined;
    const dir = source.dir ?? '.';
    const sizes = await sizesOf(dir, namedPaths(descriptor));
    const parquet = namesParquet(descriptor);
    return sizes && { sizes: [info.size, ...sizes], parquet, descriptor, dir };
  } catch {
    return undefined;
  }
}

/**
 * Whether an input is local and small: its files (and its descriptor) under 8 MB, nothing
 * to fetch, and little pattern matching. Such an input is validated in the calling thread;
 * the rest in a worker whose memory is capped, which a silent server cannot hold up and
 * which Ctrl-C ends at once.
 */
export async function isSmallLocal(input: string | Held): Promise<boolean> {
  const local = await localInput(input);
  return local !== undefined && isSmall(local, await patternChars(local));
}

/** Small: its bytes under 8 MB, and its pattern matching little enough for this thread. */
function isSmall(local: LocalInput, patternCharacters: number): boolean {
  const bytes = local.sizes.reduce((sum, size) => sum + size, 0);
  return bytes < SMALL_INPUT_BYTES && bytes * patternCharacters <= PATTERN_WORK_IN_THREAD;
}

/**
 * Where the CLI validates an input: in the calling thread when it is small (isSmallLocal), or
 * when every file is local and none is a workbook or Parquet, with no pattern to match; there
 * beside a range worker started at once ('thread-split', see threadRangeWorker) when a file is
 * large enough to split; else in a worker. Text is read chunk by chunk, and Ctrl-C stops it at
 * the next chunk as it ends a worker; what the calling thread spares is the worker's start,
 * some 50 ms before its first row, all of which the first range of a large table waited. Its
 * young generation is not capped, but rows read in chunks leave little alive: a 1 GB table
 * with no key peaked at 176-185 MB validated there, 186-202 MB in a worker (3 runs each).
 */
export type ValidationPlace = 'thread' | 'thread-split' | 'worker';

export async function validationPlace(input: string | Held): Promise<ValidationPlace> {
  const local = await localInput(input);
  if (!local) return 'worker';
  const chars = await patternChars(local);
  if (isSmall(local, chars)) return 'thread';
  if (chars > 0 || local.parquet) return 'worker';
  return local.sizes.some((size) => size >= SPLIT_MIN_BYTES) ? 'thread-split' : 'thread';
}

/**
 * How much pattern matching the calling thread may do, as the data's bytes times the
 * characters of its patterns. The calling thread hears Ctrl-C only between chunks, and a
 * pattern, though matched in linear time (pattern.ts), may cost a microsecond a byte:
 * `(a+)+$` on 320 KB of cells that fail it took 340 ms, and on the 86 KB this allows, 120 ms.
 * A worker would make the wait shorter but costs more than that to start: it tripled the
 * time of validating a small package with a short pattern, examples/cities (300 against
 * 100 ms).
 */
const PATTERN_WORK_IN_THREAD = 64 * 1024 * 8;

/** The characters of every pattern the descriptor, or a schema file it names, declares. */
async function patternChars({ descriptor, dir }: LocalInput): Promise<number> {
  let chars = patternCharsIn(descriptor);
  for (const path of namedPaths(descriptor)) {
    if (typeof path !== 'string' || !isDescriptorPath(path)) continue;
    // A file that cannot be read is reported by the validation, at once.
    const schema = await readDescriptorFile(isAbsolute(path) ? path : join(dir, path)).catch(
      () => undefined,
    );
    chars += patternCharsIn(schema);
  }
  return chars;
}

/** The length of each string named `pattern` in a parsed descriptor, however deep. */
function patternCharsIn(value: unknown): number {
  let chars = 0;
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    for (const [key, inner] of Object.entries(next)) {
      if (key === 'pattern' && typeof inner === 'string') chars += inner.length;
      else pending.push(inner);
    }
  }
  return chars;
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

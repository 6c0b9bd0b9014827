import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { InputError } from '@data/core';
import type { HttpFetch, IsolatedOptions, Package, Report, ValidateEvent } from '@data/core';

/** What `data validate` checks, and how much of what it finds it keeps. */
export interface ValidationOptions {
  /** A folder with a descriptor, a descriptor, a URL, a CSV file or a workbook. */
  source: string;
  limitErrors: number;
  pickErrors?: string[] | undefined;
  skipErrors?: string[] | undefined;
  /** Likely typos of standard properties are errors. */
  strict?: boolean | undefined;
  /** The sheet of a single workbook, by name or number. */
  sheet?: string | undefined;
  /** Megabytes unique and primary keys may take in memory before they go to disk. */
  keyMemory?: number | undefined;
}

/** A descriptor held in memory (changed by `data publish --sheets`) and its package's folder. */
export interface HeldDescriptor {
  descriptor: Package;
  dir: string;
}

/** The fetch that carries the hub's token to the hub alone, and the token it carries. */
export interface HubReading {
  fetch: HttpFetch;
  credential: IsolatedOptions['credential'];
  /** Told each origin a request went to without the token. */
  withheld: (origin: string) => void;
}

/** What a validation reads with and tells of its progress. */
export interface ValidationDeps {
  /** Heavy work goes to a worker with a bounded heap (a small local package stays here). */
  isolate: boolean;
  /** Reads a local package's remote files, with no token. */
  fetch: HttpFetch;
  /** For a URL, which may be a private dataset of the hub's: asked only for one. */
  hubReading: () => Promise<HubReading>;
  /** The proxies the worker fetches through, when the environment names any. */
  proxy: IsolatedOptions['proxy'];
  signal: AbortSignal;
  /** How long a server of remote resources may stay silent. */
  silenceMs: number;
  onProgress: (event: ValidateEvent) => void;
}

/**
 * The use case of `data validate`, shared with publish: validates a source (or a descriptor
 * held in memory) in a worker for the real CLI, in this thread for a small local package,
 * which a worker would only slow. A source that is not there is an InputError; a remote
 * file that cannot be reached is core's RemoteUnreachable: no verdict on the data.
 */
export async function validateSource(
  options: ValidationOptions,
  deps: ValidationDeps,
  held?: HeldDescriptor,
): Promise<Report> {
  const { validate, validateDescriptor, validateIsolated, validationPlace, SourceNotFound } =
    await import('@data/core');
  // In this thread where a worker would only slow it: a small local package, or local text
  // with no pattern (core's validationPlace says which).
  const place = await validationPlace(held ?? options.source);
  const isolate = deps.isolate && place === 'worker';
  // The hub's token goes with a URL of the hub (a private dataset's) and nowhere else; a
  // local package's remote files are read without one, which spares it the keychain.
  const url = !held && /^https?:\/\//i.test(options.source);
  const reading = url ? await deps.hubReading() : undefined;
  const fetch = reading?.fetch ?? deps.fetch;
  const credential = reading?.credential;
  const settings: IsolatedOptions = {
    signal: deps.signal,
    silenceMs: deps.silenceMs,
    limitErrors: options.limitErrors,
    ...(options.pickErrors ? { pickErrors: options.pickErrors } : {}),
    ...(options.skipErrors ? { skipErrors: options.skipErrors } : {}),
    ...(options.strict ? { strict: true } : {}),
    ...(options.sheet === undefined ? {} : { sheet: options.sheet }),
    ...(options.keyMemory === undefined
      ? {}
      : { keyMemory: Math.round(options.keyMemory * 1024 * 1024) }),
    onProgress: deps.onProgress,
  };
  // A large table read here is split with a range worker that boots while this thread reads.
  const { threadRangeWorker } = await import('@data/core');
  const range = !isolate && place === 'thread-split' ? threadRangeWorker() : undefined;
  try {
    if (isolate)
      return await validateIsolated(held ?? options.source, {
        ...settings,
        proxy: deps.proxy,
        ...(credential ? { credential, onWithheld: reading?.withheld } : {}),
      });
    return held
      ? await validateDescriptor(structuredClone(held.descriptor), held.dir, {
          ...settings,
          ...range?.options,
          fetch,
        })
      : await validate(options.source, { ...settings, ...range?.options, fetch });
  } catch (error) {
    if (error instanceof SourceNotFound)
      throw new InputError(
        error.message,
        'give a folder with a datapackage.json, a datapackage.json path, an http(s) URL, a CSV file or a workbook (.xlsx, .xls, .ods)',
      );
    throw error;
  } finally {
    range?.end();
  }
}

/** Where GitHub annotations of a report point: the descriptor, and the folder of its files. */
export interface AnnotationPlaces {
  descriptor: string;
  base: string;
}

/** The descriptor and folder of a source, for annotations: a folder's own descriptor. */
export async function annotationPlaces(source: string): Promise<AnnotationPlaces> {
  const isFolder = statSync(source, { throwIfNoEntry: false })?.isDirectory() ?? false;
  if (!isFolder) return { descriptor: source, base: dirname(source) };
  const { descriptorIn } = await import('@data/core');
  const inFolder = await descriptorIn(source).catch(() => undefined);
  return { descriptor: inFolder ?? join(source, 'datapackage.json'), base: source };
}

/** Whether every error is a file's size or hash that its descriptor has out of date. */
export function onlyStaleSizes(report: Report): boolean {
  const errors = [...report.errors, ...report.tasks.flatMap((task) => task.errors)];
  return (
    errors.length > 0 &&
    errors.every((error) => error.type === 'byte-count' || error.type === 'hash-count')
  );
}

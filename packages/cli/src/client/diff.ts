import type { DiffEvent, HttpFetch, PackageDiff } from '@data/core';
import { InputError } from '@data/core';

/** What `data diff` compares, and how much of it it shows. */
export interface DiffOptions {
  /** A package folder or descriptor, owner/dataset or owner/dataset@N. */
  a: string;
  b: string;
  /** Rows of each kind to keep per resource. */
  limit: number;
  /** Memory for matching rows, in MB. */
  keyMemory?: number | undefined;
}

/** Where the sides are read and who hears how far the comparison is. */
export interface DiffDeps {
  /** Carries the hub's token to the hub and nowhere else. */
  fetch: HttpFetch;
  /** The hub's site, where owner/dataset is read. */
  site: string;
  /** Whether a token went with this URL: for the hint when a dataset does not show. */
  signedIn: (url: string) => boolean;
  /** Whether a name is read here rather than from the hub. */
  isLocal: (input: string) => boolean;
  signal: AbortSignal;
  onProgress: (event: DiffEvent) => void;
}

/** The use case of `data diff`: both sides read, then their properties, schemas and rows compared. */
export async function runDiff(options: DiffOptions, deps: DiffDeps): Promise<PackageDiff> {
  const { diffSide, diffPackages } = await import('@data/core');
  const a = await diffSide(options.a, deps);
  const b = await diffSide(options.b, deps);
  return diffPackages(a, b, {
    limit: options.limit,
    signal: deps.signal,
    onProgress: deps.onProgress,
    ...(options.keyMemory === undefined
      ? {}
      : { memory: Math.round(options.keyMemory * 1024 * 1024) }),
  }).catch(async (error: unknown) => {
    // A table that cannot be read (a damaged workbook, one past the readers' limits).
    const { SourceFailure } = await import('@data/core');
    if (error instanceof SourceFailure)
      throw new InputError(`a table cannot be read: ${error.note}`, 'check the files compared');
    throw error;
  });
}

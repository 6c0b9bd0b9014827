/**
 * How far a diff has gone, as events for whoever shows it (the CLI's progress line): each
 * table as its turn comes, then its rows as both sides are read and its parts as they are
 * matched. Nothing here prints.
 */
import type { Fetch, FetchResponse } from '../validator/location.js';

export type DiffEvent =
  | { type: 'table'; name: string; index: number; total: number }
  | {
      type: 'rows';
      name: string;
      /** Both sides are read (and written to disk in parts), then their parts are matched. */
      phase: 'reading' | 'matching';
      /** Rows of both sides read so far. */
      rows: number;
      /** Of the table's whole diff, the share done (0 to 1); undefined when a side's size is not known. */
      share: number | undefined;
    };

/**
 * Of a table's diff, the share its reading takes; matching the parts takes the rest.
 * Measured on two 1,000,000-row CSVs (64 MB a side) keyed and matched whole, each side
 * in its own thread: reading took 70–77% of the time.
 */
export const READING_SHARE = 0.72;

/** Every this many bytes a side's reading tells how far it is. */
export const READ_REPORT_BYTES = 1024 * 1024;

/** One table's progress: both sides' rows and bytes read, then the parts matched. */
export class TableProgress {
  private readonly rows = [0, 0];
  private readonly read = [0, 0];
  private readonly sizes: (number | undefined)[];
  private matched = 0;

  constructor(
    private readonly name: string,
    /** Each side's size in bytes, undefined while not known (a hub's table without `bytes`). */
    sizes: readonly (number | undefined)[],
    private readonly parts: number,
    private readonly report: ((event: DiffEvent) => void) | undefined,
  ) {
    this.sizes = [...sizes];
  }

  /** Side a (0) or b (1) turned out to be this many bytes (the length its server declared). */
  sized(side: 0 | 1, bytes: number): void {
    this.sizes[side] ??= bytes;
  }

  /** Side a (0) or b (1) has read this many rows and bytes so far. */
  reading(side: 0 | 1, rows: number, read: number): void {
    this.rows[side] = rows;
    this.read[side] = read;
    this.tell('reading');
  }

  /** Side a (0) or b (1) is read whole: its rows. */
  readWhole(side: 0 | 1, rows: number): void {
    this.rows[side] = rows;
    this.read[side] = this.sizes[side] ?? this.read[side] ?? 0;
    this.tell('reading');
  }

  /** One more part of each side matched, here or in the worker thread. */
  partMatched(): void {
    this.matched++;
    this.tell('matching');
  }

  private share(): number | undefined {
    const [sizeA, sizeB] = this.sizes;
    if (sizeA === undefined || sizeB === undefined) return undefined;
    const [readA = 0, readB = 0] = this.read;
    const reading = sizeA + sizeB === 0 ? 1 : Math.min(1, (readA + readB) / (sizeA + sizeB));
    const matching = this.parts === 0 ? 0 : Math.min(1, this.matched / this.parts);
    return READING_SHARE * reading + (1 - READING_SHARE) * matching;
  }

  private tell(phase: 'reading' | 'matching'): void {
    if (!this.report) return;
    const [rowsA = 0, rowsB = 0] = this.rows;
    this.report({ type: 'rows', name: this.name, phase, rows: rowsA + rowsB, share: this.share() });
  }
}

/** The length a response declares for its body as it comes (not content-coded), if any. */
function declaredLength(response: FetchResponse): number | undefined {
  // The readers' fetch answers web Responses; the type only promises what reading needs.
  const headers = (response as { headers?: { get(name: string): string | null } }).headers;
  if (!headers || headers.get('content-encoding')) return undefined;
  const length = Number(headers.get('content-length'));
  return Number.isSafeInteger(length) && length > 0 ? length : undefined;
}

/** A fetch that tells the length of the one file it reads: a remote side's size, for progress. */
export function measuring(fetch: Fetch, sized: (bytes: number) => void): Fetch {
  return async (url, init) => {
    const response = await fetch(url, init);
    const length = declaredLength(response);
    if (length !== undefined) sized(length);
    return response;
  };
}

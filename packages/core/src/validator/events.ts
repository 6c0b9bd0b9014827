import type { RangeOutcome } from './table/range-split.js';

/** What a validation tells while it runs (ValidateOptions.onProgress). */
export type ValidateEvent =
  | { type: 'descriptor'; location: string }
  | { type: 'resource'; name: string; index: number; total: number }
  /** Bytes of a table read so far, and its size when known (local files). */
  | { type: 'bytes'; name: string; read: number; total: number | undefined }
  /** Whether a large table was validated as two byte ranges on two workers, or why not. */
  | ({ type: 'ranges'; name: string } & RangeOutcome)
  /**
   * How a table's key memory was spent: bytes its key tables held (the first range's, and
   * the second's when it was read as two), and whether keys went to disk.
   */
  | {
      type: 'keys';
      name: string;
      budget: number;
      inMemory: number;
      spilled: boolean;
      secondRange?: number;
    };

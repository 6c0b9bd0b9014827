import { describeBytes } from '../../text/bytes.js';
import { SourceFailure } from '../location.js';
import { Utf8Pages } from '../table/utf8-pages.js';

/** Without a hub's limit: more text than any real workbook shares, less than a crash. */
export const DEFAULT_SHARED_TEXT_BYTES = 2 * 1024 * 1024 * 1024;

/** The least shared text a workbook may have here, however small its file. */
const SHARED_TEXT_FLOOR = 64 * 1024 * 1024;

/**
 * Shared text per byte of the workbook's file past which it is a zip bomb rather than a
 * workbook: a real one holds about 3 (a 100 MB workbook, 265 MB of its 10 million texts),
 * a run of one short text repeated, hundreds.
 */
const SHARED_TEXT_PER_FILE_BYTE = 16;

/**
 * Without a hub's limit, the shared text a workbook of `fileBytes` may hold: 16 times its
 * size, at least 64 MB and at most 2 GB.
 */
export function sharedTextLimit(fileBytes: number): number {
  return Math.min(
    DEFAULT_SHARED_TEXT_BYTES,
    Math.max(SHARED_TEXT_FLOOR, fileBytes * SHARED_TEXT_PER_FILE_BYTE),
  );
}

/**
 * The shared strings of a workbook, by index, as compact UTF-8: a workbook with a unique
 * text on every row has millions of them, and every one must stay until the sheet is read.
 */
export class StringStore {
  private readonly pages = new Utf8Pages();
  private total = 0;

  constructor(private readonly maxBytes = DEFAULT_SHARED_TEXT_BYTES) {}

  get size(): number {
    return this.pages.count;
  }

  add(text: string): void {
    const length = this.pages.stage(text);
    this.total += length + 12;
    if (this.total > this.maxBytes)
      throw new SourceFailure(
        'source-error',
        `the workbook's shared text is larger than ${describeBytes(this.maxBytes)}, the most read here`,
      );
    this.pages.commit(length);
  }

  get(index: number): string | undefined {
    return index >= 0 && index < this.pages.count ? this.pages.text(index) : undefined;
  }
}

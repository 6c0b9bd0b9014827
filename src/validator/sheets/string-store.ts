import { describeBytes } from '../../text/bytes.js';
import { SourceFailure } from '../location.js';
import { Utf8Pages } from '../table/utf8-pages.js';

/** Without a hub's limit: more text than any real workbook shares, less than a crash. */
export const DEFAULT_SHARED_TEXT_BYTES = 2 * 1024 * 1024 * 1024;

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

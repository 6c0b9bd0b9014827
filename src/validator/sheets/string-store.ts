import { describeBytes } from '../../text/bytes.js';
import { SourceFailure } from '../location.js';

/**
 * The shared strings of a workbook, kept as UTF-8 in large pages rather than as one
 * JavaScript string each: a string costs its UTF-8 bytes and 12 bytes of index instead of
 * the 30 to 40 bytes of a heap string's header and pointer. A workbook with a unique text
 * on every row has millions of them, and every one must stay until the sheet is read.
 */
const PAGE_BYTES = 16 * 1024 * 1024;

/** Without a hub's limit: more text than any real workbook shares, less than a crash. */
export const DEFAULT_SHARED_TEXT_BYTES = 2 * 1024 * 1024 * 1024;

const BLOCK = 1 << 16;

export class StringStore {
  private readonly pages: Buffer[] = [];
  private page: Buffer = Buffer.alloc(0);
  private used = 0;
  /** Fixed blocks of index, so that growing never copies what is there. */
  private readonly starts: Float64Array[] = [];
  private readonly lengths: Uint32Array[] = [];
  private count = 0;
  private total = 0;

  constructor(private readonly maxBytes = DEFAULT_SHARED_TEXT_BYTES) {}

  get size(): number {
    return this.count;
  }

  add(text: string): void {
    const bytes = Buffer.byteLength(text);
    this.total += bytes + 12;
    if (this.total > this.maxBytes)
      throw new SourceFailure(
        'source-error',
        `the workbook's shared text is larger than ${describeBytes(this.maxBytes)}, the most read here`,
      );
    if (this.pages.length === 0 || this.used + bytes > this.page.length) {
      this.page = Buffer.allocUnsafeSlow(Math.max(PAGE_BYTES, bytes));
      this.pages.push(this.page);
      this.used = 0;
    }
    const at = this.count & (BLOCK - 1);
    if (at === 0) {
      this.starts.push(new Float64Array(BLOCK));
      this.lengths.push(new Uint32Array(BLOCK));
    }
    this.page.write(text, this.used, 'utf8');
    (this.starts.at(-1) as Float64Array)[at] = (this.pages.length - 1) * 2 ** 32 + this.used;
    (this.lengths.at(-1) as Uint32Array)[at] = bytes;
    this.count++;
    this.used += bytes;
  }

  get(index: number): string | undefined {
    if (!(index >= 0 && index < this.count)) return undefined;
    const block = index >>> 16;
    const at = index & (BLOCK - 1);
    const start = (this.starts[block] as Float64Array)[at] as number;
    const page = this.pages[Math.floor(start / 2 ** 32)] as Buffer;
    const offset = start % 2 ** 32;
    return page.toString('utf8', offset, offset + ((this.lengths[block] as Uint32Array)[at] ?? 0));
  }
}

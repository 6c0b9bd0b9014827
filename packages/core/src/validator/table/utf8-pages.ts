/**
 * Append-only texts kept as UTF-8 in 16 MB pages, with a fixed-block index of where each
 * is: a text costs its UTF-8 bytes and 12 bytes of index, against the 30 to 40 bytes of a
 * heap string's header and pointer, and growing never copies what is there. A text is
 * written ("staged") where the next would go, then kept ("committed") or dropped.
 */
const PAGE_BYTES = 16 * 1024 * 1024;
export const BLOCK = 1 << 16;

export class Utf8Pages {
  private readonly pages: Buffer[] = [];
  private page = Buffer.alloc(0);
  private used = 0;
  private readonly starts: Float64Array[] = [];
  private readonly lengths: Uint32Array[] = [];
  count = 0;
  private pageBytes = 0;

  /** Writes the text's bytes where the next one would go; returns their length. */
  stage(text: string): number {
    const most = text.length * 3;
    if (this.pages.length === 0 || this.used + most > this.page.length) {
      this.page = Buffer.allocUnsafeSlow(Math.max(PAGE_BYTES, most));
      this.pages.push(this.page);
      this.pageBytes += this.page.length;
      this.used = 0;
    }
    return this.page.write(text, this.used, 'utf8');
  }

  /** Writes bytes given as UTF-8 where the next text would go; returns their length. */
  stageBytes(source: Uint8Array, start: number, length: number): number {
    if (this.pages.length === 0 || this.used + length > this.page.length) {
      this.page = Buffer.allocUnsafeSlow(Math.max(PAGE_BYTES, length));
      this.pages.push(this.page);
      this.pageBytes += this.page.length;
      this.used = 0;
    }
    this.page.set(source.subarray(start, start + length), this.used);
    return length;
  }

  /** Whether text `index` has the bytes just staged. */
  equalsStaged(index: number, length: number): boolean {
    const block = index >>> 16;
    const at = index & (BLOCK - 1);
    if ((this.lengths[block] as Uint32Array)[at] !== length) return false;
    const start = (this.starts[block] as Float64Array)[at] as number;
    const page = this.pages[Math.floor(start / 2 ** 32)] as Buffer;
    const offset = start % 2 ** 32;
    return page.compare(this.page, this.used, this.used + length, offset, offset + length) === 0;
  }

  /** Keeps the staged bytes; returns the text's index. */
  commit(length: number): number {
    const index = this.count++;
    const at = index & (BLOCK - 1);
    if (at === 0) {
      this.starts.push(new Float64Array(BLOCK));
      this.lengths.push(new Uint32Array(BLOCK));
    }
    (this.starts.at(-1) as Float64Array)[at] = (this.pages.length - 1) * 2 ** 32 + this.used;
    (this.lengths.at(-1) as Uint32Array)[at] = length;
    this.used += length;
    return index;
  }

  text(index: number): string {
    const block = index >>> 16;
    const at = index & (BLOCK - 1);
    const start = (this.starts[block] as Float64Array)[at] as number;
    const page = this.pages[Math.floor(start / 2 ** 32)] as Buffer;
    const offset = start % 2 ** 32;
    return page.toString('utf8', offset, offset + ((this.lengths[block] as Uint32Array)[at] ?? 0));
  }

  get bytes(): number {
    return this.pageBytes + this.starts.length * BLOCK * 12;
  }

  /** The texts as they are stored, to be moved to another thread without a copy. */
  raw(): RawPages {
    return { pages: [...this.pages], starts: [...this.starts], lengths: [...this.lengths] };
  }
}

/** The storage of a Utf8Pages: its pages and where each text is in them. */
export interface RawPages {
  pages: Uint8Array[];
  starts: Float64Array[];
  lengths: Uint32Array[];
}

/** Where text `index` of raw pages is: its page, offset and length. */
export function rawText(
  raw: RawPages,
  index: number,
): { page: Uint8Array; offset: number; length: number } {
  const block = index >>> 16;
  const at = index & (BLOCK - 1);
  const start = (raw.starts[block] as Float64Array)[at] as number;
  return {
    page: raw.pages[Math.floor(start / 2 ** 32)] as Uint8Array,
    offset: start % 2 ** 32,
    length: (raw.lengths[block] as Uint32Array)[at] as number,
  };
}

import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Keys that outgrew the memory budget go to disk, split by hash into parts small enough to
 * check one at a time in memory: the same key always lands in the same part. Written and
 * read synchronously: this runs in the validation's own thread, between rows.
 */
export const SPILL_PARTS = 64;
const BUFFER_BYTES = 64 * 1024;

/** The part a key of this hash goes to, mixed again: a number hash keeps ids in its low bits. */
export function spillPart(hash: number): number {
  return (Math.imul(hash, 0x9e3779b1) >>> 0) % SPILL_PARTS;
}

export class SpillFiles {
  private readonly dir = mkdtempSync(join(tmpdir(), 'data-keys-'));
  private readonly fds: number[] = [];
  private readonly buffers = Array.from({ length: SPILL_PARTS }, () =>
    Buffer.allocUnsafe(BUFFER_BYTES),
  );
  private readonly filled = new Array<number>(SPILL_PARTS).fill(0);

  constructor() {
    for (let part = 0; part < SPILL_PARTS; part++)
      this.fds.push(openSync(join(this.dir, String(part)), 'w+'));
    // Open files outlive their names: with the folder gone at once, nothing stays on disk
    // even when the process is killed mid-table. Where that is refused, remove() does it.
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // kept until remove()
    }
  }

  /** Appends one record (its bytes, length-prefixed) to a part. */
  append(part: number, record: Buffer): void {
    const buffer = this.buffers[part] as Buffer;
    const needed = record.length + 4;
    if ((this.filled[part] ?? 0) + needed > buffer.length) this.flush(part);
    if (needed > buffer.length) {
      const header = Buffer.allocUnsafe(4);
      header.writeUInt32LE(record.length);
      writeSync(this.fds[part] as number, header);
      writeSync(this.fds[part] as number, record);
      return;
    }
    const at = this.filled[part] ?? 0;
    buffer.writeUInt32LE(record.length, at);
    record.copy(buffer, at + 4);
    this.filled[part] = at + needed;
  }

  private flush(part: number): void {
    const filled = this.filled[part] ?? 0;
    if (filled === 0) return;
    writeSync(this.fds[part] as number, this.buffers[part] as Buffer, 0, filled);
    this.filled[part] = 0;
  }

  /** The records of a part in the order they were appended. */
  *records(part: number): Generator<Buffer> {
    this.flush(part);
    const fd = this.fds[part] as number;
    let position = 0;
    let chunk = Buffer.alloc(0);
    const read = Buffer.allocUnsafe(1024 * 1024);
    for (;;) {
      const bytes = readSync(fd, read, 0, read.length, position);
      if (bytes === 0) break;
      position += bytes;
      chunk =
        chunk.length === 0
          ? Buffer.from(read.subarray(0, bytes))
          : Buffer.concat([chunk, read.subarray(0, bytes)]);
      let at = 0;
      while (at + 4 <= chunk.length) {
        const length = chunk.readUInt32LE(at);
        if (at + 4 + length > chunk.length) break;
        yield chunk.subarray(at + 4, at + 4 + length);
        at += 4 + length;
      }
      chunk = chunk.subarray(at);
    }
  }

  remove(): void {
    for (const fd of this.fds.splice(0)) closeSync(fd);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

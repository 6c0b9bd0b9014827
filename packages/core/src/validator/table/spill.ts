import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
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

/**
 * Opens the files of a set of parts, nameless: open files outlive their names, so with
 * their folder gone at once nothing stays on disk even when the process is killed.
 */
export function openSpillParts(parts: number): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'data-keys-'));
  const fds: number[] = [];
  try {
    for (let part = 0; part < parts; part++) fds.push(openSync(join(dir, String(part)), 'w+'));
  } catch (error) {
    for (const fd of fds) closeSync(fd);
    throw error;
  }
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Where open files may not lose their names (Windows), they go when the process ends.
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return fds;
}

export class SpillFiles {
  private readonly fds: number[];
  private readonly buffers: Buffer[];
  private readonly filled: number[];

  /**
   * Parts of its own, or the files another thread opened: a worker thread's own files are
   * closed when it ends, and those it was given are not.
   */
  constructor(parts: number | readonly number[] = SPILL_PARTS) {
    this.fds = typeof parts === 'number' ? openSpillParts(parts) : [...parts];
    this.buffers = this.fds.map(() => Buffer.allocUnsafe(BUFFER_BYTES));
    this.filled = this.fds.map(() => 0);
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

  /**
   * Appends one record that `write` puts in place (at most `maxBytes`, returning how many it
   * wrote), without a Buffer of its own for each record.
   */
  appendWith(part: number, maxBytes: number, write: (buffer: Buffer, at: number) => number): void {
    const buffer = this.buffers[part] as Buffer;
    if (maxBytes + 4 > buffer.length) {
      const record = Buffer.allocUnsafe(maxBytes);
      this.append(part, record.subarray(0, write(record, 0)));
      return;
    }
    if ((this.filled[part] ?? 0) + maxBytes + 4 > buffer.length) this.flush(part);
    const at = this.filled[part] ?? 0;
    const length = write(buffer, at + 4);
    buffer.writeUInt32LE(length, at);
    this.filled[part] = at + 4 + length;
  }

  /**
   * Writes out what is buffered and hands the parts' open files over: they stay open (and
   * nameless) for whoever reads them with readPart, which owns closing them.
   */
  detach(): number[] {
    for (let part = 0; part < this.fds.length; part++) this.flush(part);
    return this.fds.splice(0);
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
  }
}

/** A detached part's bytes, whole: length-prefixed records, as append wrote them. */
export function readPart(fd: number): Buffer {
  const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
  for (let at = 0; at < bytes.length;) {
    const read = readSync(fd, bytes, at, bytes.length - at, at);
    if (read === 0) throw new Error('a spilled part is shorter than it was written');
    at += read;
  }
  return bytes;
}

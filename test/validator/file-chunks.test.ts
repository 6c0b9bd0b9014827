/**
 * Files are read in chunks through a few reused buffers, the next chunk read while the
 * consumer works on the current one: the chunks must still be the file's bytes in order,
 * each valid as long as promised, and a failed read must reach the consumer.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileChunks } from '../../packages/core/src/files/chunks.js';

function file(bytes: Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'data-chunks-')), 'file.bin');
  writeFileSync(path, bytes);
  return path;
}

const BYTES = Buffer.from(Array.from({ length: 10_000 }, (_, index) => (index * 7919) % 251));

describe('fileChunks', () => {
  it('gives the bytes between start and end in order, whatever the chunk size', async () => {
    const path = file(BYTES);
    for (const [chunkSize, start, end] of [
      [1000, 0, Infinity],
      [999, 0, Infinity],
      [4096, 123, 9000],
      [7, 9990, Infinity],
      [10_000, 0, 10_000],
      [64, 500, 500],
    ] as const) {
      const chunks: Buffer[] = [];
      for await (const chunk of fileChunks(path, { chunkSize, start, end })) {
        expect(chunk.length).toBeLessThanOrEqual(chunkSize);
        chunks.push(Buffer.from(chunk));
      }
      expect(Buffer.concat(chunks)).toEqual(BYTES.subarray(start, end));
    }
  });

  it('keeps a chunk unchanged while as many more are read as it has buffers, less one', async () => {
    const path = file(BYTES);
    for (const buffers of [1, 2, 4]) {
      const held: { chunk: Buffer; copy: Buffer }[] = [];
      for await (const chunk of fileChunks(path, { chunkSize: 500, buffers })) {
        held.push({ chunk, copy: Buffer.from(chunk) });
        // Time for the read ahead of this chunk to land where it lands.
        await new Promise((resolve) => setTimeout(resolve, 2));
        // The chunk handed on `buffers - 1` reads ago is still what it was.
        const oldest = held.at(-buffers);
        expect(oldest?.chunk).toEqual(oldest?.copy);
      }
    }
  });

  it('stops reading when the consumer stops, and can read again', async () => {
    const path = file(BYTES);
    let taken = 0;
    for await (const chunk of fileChunks(path, { chunkSize: 100 })) {
      taken += chunk.length;
      if (taken >= 300) break;
    }
    expect(taken).toBe(300);
    let again = 0;
    for await (const chunk of fileChunks(path, { chunkSize: 4096 })) again += chunk.length;
    expect(again).toBe(BYTES.length);
  });

  it('throws a failed read where the chunks are read', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'data-chunks-'));
    const reading = async (): Promise<number> => {
      let read = 0;
      for await (const chunk of fileChunks(folder)) read += chunk.length;
      return read;
    };
    await expect(reading()).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('stops at an aborted signal', async () => {
    const path = file(BYTES);
    const controller = new AbortController();
    const reading = async (): Promise<number> => {
      let read = 0;
      for await (const chunk of fileChunks(path, {
        chunkSize: 100,
        signal: controller.signal,
      })) {
        read += chunk.length;
        if (read === 200) controller.abort();
      }
      return read;
    };
    await expect(reading()).rejects.toThrow();
  });
});

import { open } from 'node:fs/promises';

export interface ChunkOptions {
  chunkSize?: number;
  /** How many buffers take turns; a chunk stays valid while `buffers - 1` more are read. */
  buffers?: number;
  signal?: AbortSignal | undefined;
  /** The byte to start at (0). */
  start?: number;
  /** The byte to stop before (the end of the file). */
  end?: number;
}

/**
 * Reads a file through a few buffers that the reads reuse in turn. A consumer that keeps a
 * chunk longer than the options allow must copy it. A fresh buffer per read would leave
 * tens of megabytes of garbage behind on a large file before the collector noticed it.
 */
export async function* fileChunks(
  path: string,
  { chunkSize = 1 << 19, buffers = 1, signal, start = 0, end = Infinity }: ChunkOptions = {},
): AsyncGenerator<Buffer, void, undefined> {
  const handle = await open(path, 'r');
  try {
    const ring = Array.from({ length: buffers }, () => Buffer.allocUnsafeSlow(chunkSize));
    let position = start;
    for (let turn = 0; position < end; turn = (turn + 1) % buffers) {
      signal?.throwIfAborted();
      const buffer = ring[turn] as Buffer;
      const length = Math.min(chunkSize, end - position);
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/** The first `bytes` of a file, or all of it when it is shorter. */
export async function fileHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

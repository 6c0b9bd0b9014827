import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** What a path that is no regular file (a named pipe, a socket, a device) is, in words. */
export function kindOfNonFile(info: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
}): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe';
  if (info.isSocket()) return 'a socket';
  return 'a device';
}

/** A read's error (EIO…) names no file: given its path, cli.ts can say which one failed. */
function namingPath(error: unknown, path: string): unknown {
  if (error instanceof Error && !('path' in error)) Object.assign(error, { path });
  return error;
}

/**
 * Opens a regular file for reading, and refuses anything else with an error coded EISDIR
 * for a folder, else EFTYPE (cli.ts names both): a named pipe with no writer would block the open, and with it one of
 * libuv's few threads, for ever. Opened without blocking, then checked, so no other path
 * can slip in between; the flag changes nothing for a regular file.
 */
export async function openRegularFile(path: string): Promise<FileHandle> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const info = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (info.isFile()) return handle;
  await handle.close();
  throw Object.assign(new Error(`${path} is ${kindOfNonFile(info)}, not a file`), {
    code: info.isDirectory() ? 'EISDIR' : 'EFTYPE',
    path,
  });
}

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
 * The next chunk is read while the consumer works on this one, into a buffer of its own:
 * waiting for each read in turn left a validation's thread idle a sixth of its time.
 */
export async function* fileChunks(
  path: string,
  { chunkSize = 1 << 19, buffers = 1, signal, start = 0, end = Infinity }: ChunkOptions = {},
): AsyncGenerator<Buffer, void, undefined> {
  const handle = await openRegularFile(path);
  const ring = Array.from({ length: buffers + 1 }, () => Buffer.allocUnsafeSlow(chunkSize));
  let turn = 0;
  const readAt = (position: number): Promise<Buffer> => {
    const buffer = ring[turn] as Buffer;
    turn = (turn + 1) % ring.length;
    const length = Math.min(chunkSize, end - position);
    const read = handle.read(buffer, 0, length, position).then(
      ({ bytesRead }) => buffer.subarray(0, bytesRead),
      (error: unknown) => {
        throw namingPath(error, path);
      },
    );
    // Its failure is thrown where it is awaited, however long the consumer takes first.
    read.catch(() => undefined);
    return read;
  };
  let next: Promise<Buffer> | undefined = start < end ? readAt(start) : undefined;
  try {
    let position = start;
    while (next) {
      const chunk = await next;
      next = undefined;
      if (chunk.length === 0) return;
      position += chunk.length;
      if (position < end) next = readAt(position);
      signal?.throwIfAborted();
      yield chunk;
    }
  } finally {
    // A read still running when the consumer stops ends before the file is closed.
    await next?.catch(() => undefined);
    await handle.close();
  }
}

/** The first `bytes` of a file, or all of it when it is shorter. */
export async function fileHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await openRegularFile(path);
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** The file's mode (0o600 for secrets), set whatever the umask. */
  mode?: number | undefined;
  /** Aborting it before the file is moved in place leaves the old file as it was. */
  signal?: AbortSignal | undefined;
}

/**
 * A fresh name beside `path`, in its folder (so that the rename stays on one file system),
 * hidden and unique to this write: `.<name>.<random>.part` (what the hub's folder store and
 * `data get` take for a file not written yet).
 */
export function temporaryBeside(path: string): string {
  // node:crypto is loaded when first needed: imported at the top, it cost every command's
  // start (data validate examples/cities took 8% more CPU time), as settings import this.
  const random = process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex');
  return join(dirname(path), `.${basename(path)}.${random}.part`);
}

/**
 * THE atomic write: the data goes to a temporary file beside `path`, is flushed to the disk
 * (fsync), then the file is renamed over `path`. A reader sees the old file or the new one,
 * never half of one, and a crash or an interruption leaves the old file whole (and no
 * temporary file, unless the process died before it could remove it).
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  options.signal?.throwIfAborted();
  const temporary = temporaryBeside(path);
  try {
    const handle = await open(temporary, 'wx', options.mode ?? 0o666);
    try {
      if (options.mode !== undefined) await handle.chmod(options.mode);
      await handle.writeFile(data, options.signal ? { signal: options.signal } : {});
      await handle.sync();
    } finally {
      await handle.close();
    }
    options.signal?.throwIfAborted();
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The same, synchronously, for the few writers that must not wait (settings, credentials). */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  options: Pick<AtomicWriteOptions, 'mode'> = {},
): void {
  const temporary = temporaryBeside(path);
  try {
    const fd = openSync(temporary, 'wx', options.mode ?? 0o666);
    try {
      if (options.mode !== undefined) fchmodSync(fd, options.mode);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let written = 0; written < bytes.length;)
        written += writeSync(fd, bytes, written, bytes.length - written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Moves a file written in full elsewhere (a download checked against its hash) over
 * `path`, once its bytes are on the disk: the end of an atomic write whose data was streamed.
 */
export async function replaceFile(written: string, path: string): Promise<void> {
  const handle = await open(written, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(written, path);
}

import { openRegularFile } from '../files/chunks.js';
import { isRemote } from '../model/paths.js';

/** The first line of a Git LFS pointer file, as Git LFS writes it. */
const POINTER_START = 'version https://git-lfs.github.com/spec/v1\n';

/** Pointer files are some 130 bytes: past this many, a file is no pointer. */
const POINTER_MOST_BYTES = 1024;

/**
 * Whether a local file is a Git LFS pointer in place of its data: a repository cloned
 * without `git lfs pull` holds these, and read as a table they give errors about their own
 * text.
 */
export async function isLfsPointer(location: string): Promise<boolean> {
  if (isRemote(location)) return false;
  const handle = await openRegularFile(location).catch(() => undefined);
  if (!handle) return false;
  try {
    const { size } = await handle.stat();
    if (size > POINTER_MOST_BYTES || size < POINTER_START.length) return false;
    const head = Buffer.alloc(POINTER_START.length);
    await handle.read(head, 0, head.length, 0);
    return head.toString('latin1') === POINTER_START;
  } finally {
    await handle.close();
  }
}

import { createHash } from 'node:crypto';
import { fileChunks, fileHead } from './chunks.js';
import { HEAD_BYTES } from './hash.js';

/** Length and digest of a file, read as a stream. */
export async function hashFile(
  path: string,
  algorithm: string,
  signal?: AbortSignal,
  onBytes?: (read: number) => void,
): Promise<{ length: number; digest: Buffer }> {
  const hash = createHash(algorithm);
  let length = 0;
  for await (const chunk of fileChunks(path, { chunkSize: 1 << 20, signal })) {
    hash.update(chunk);
    length += chunk.length;
    onBytes?.(length);
  }
  return { length, digest: hash.digest() };
}

/** Length and base64 MD5 of a file, as the raw store asks for them. */
export async function fileDigest(
  path: string,
  signal?: AbortSignal,
  onBytes?: (read: number) => void,
): Promise<{ length: number; md5: string }> {
  const { length, digest } = await hashFile(path, 'md5', signal, onBytes);
  return { length, md5: digest.toString('base64') };
}

/** Base64 MD5 of a file's first HEAD_BYTES: what a hub compares to tell files of one length apart. */
export async function headDigest(path: string): Promise<string> {
  return createHash('md5')
    .update(await fileHead(path, HEAD_BYTES))
    .digest('base64');
}

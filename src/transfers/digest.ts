import { createHash } from 'node:crypto';
import { fileChunks } from '../files/chunks.js';

/** Length and base64 MD5 of a file, read as a stream. */
export async function fileDigest(
  path: string,
  signal?: AbortSignal,
): Promise<{ length: number; md5: string }> {
  const hash = createHash('md5');
  let length = 0;
  for await (const chunk of fileChunks(path, { chunkSize: 1 << 20, signal })) {
    hash.update(chunk);
    length += chunk.length;
  }
  return { length, md5: hash.digest('base64') };
}

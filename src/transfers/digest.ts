import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Length and base64 MD5 of a file, read as a stream. */
export async function fileDigest(path: string): Promise<{ length: number; md5: string }> {
  const hash = createHash('md5');
  let length = 0;
  for await (const chunk of createReadStream(path, {
    highWaterMark: 1 << 20,
  }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    length += chunk.length;
  }
  return { length, md5: hash.digest('base64') };
}

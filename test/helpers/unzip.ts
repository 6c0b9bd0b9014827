import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import yauzl from 'yauzl';

/** Every file of a zip and its bytes, in the zip's order. */
export async function zipEntries(zipped: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(zipped, { lazyEntries: true });
  const files = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    files.set(entry.fileName, await buffer(await zip.openReadStreamPromise(entry)));
  }
  return files;
}

/** Writes a zip's files under a folder. */
export async function unzipTo(zipped: Buffer, dir: string): Promise<void> {
  for (const [name, bytes] of await zipEntries(zipped)) {
    const target = join(dir, name);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, bytes);
  }
}

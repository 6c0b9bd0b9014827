import { PassThrough, type Readable } from 'node:stream';
import type yazl from 'yazl';

/** Formats that shrink when deflated; others (spreadsheets, images, archives) are stored. */
const TEXT = /\.(csv|tsv|json|txt|md|geojson|xml|html|ndjson|yaml|yml)$/i;

/**
 * How a dataset's zip holds one file: text deflated at the fastest level (most of the gain
 * for a fraction of the time of level 6), the rest stored.
 */
export function entryOptions(path: string, mtime: Date): { mtime: Date; compressionLevel: number } {
  return { mtime, compressionLevel: TEXT.test(path) ? 1 : 0 };
}

/**
 * The bytes of a zip once every entry is added: a file that cannot be read fails this
 * stream, where unheard, yazl's error event would end the whole process.
 */
export function zipOutput(zip: yazl.ZipFile): Readable {
  const output = zip.outputStream.pipe(new PassThrough());
  zip.on('error', (error: Error) => output.destroy(error));
  zip.end();
  return output;
}

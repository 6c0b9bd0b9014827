import { createWriteStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';

/** One file of the zip: its path inside the dataset's folder, and where its bytes are. */
export interface ZipEntry {
  path: string;
  file: string;
}

/** Formats that shrink when deflated; others (spreadsheets, images, archives) are stored. */
const TEXT = /\.(csv|tsv|json|txt|md|geojson|xml|html|ndjson|yaml|yml)$/i;

/**
 * Writes a zip of a dataset: its descriptor and every file under one folder named after it,
 * laid out as `data get` lays a dataset out, so that unzipped it can be published again.
 * Streamed from the files to the zip (yazl): memory does not grow with the data. Text is
 * deflated at the fastest level: most of the gain for a fraction of the time of level 6.
 */
export async function writeDatasetZip(
  target: string,
  folder: string,
  descriptor: string,
  entries: ZipEntry[],
): Promise<void> {
  const zip = new yazl.ZipFile();
  const mtime = new Date();
  zip.addBuffer(Buffer.from(descriptor), `${folder}/datapackage.json`, {
    mtime,
    compressionLevel: 1,
  });
  for (const entry of entries)
    zip.addFile(entry.file, `${folder}/${entry.path}`, {
      mtime,
      compressionLevel: TEXT.test(entry.path) ? 1 : 0,
    });
  // A file that cannot be read (gone, say, as the hub stops and clears its work) fails the
  // zip; unheard, yazl's error event would end the whole process.
  const output = zip.outputStream.pipe(new PassThrough());
  zip.on('error', (error: Error) => output.destroy(error));
  zip.end();
  await pipeline(output, createWriteStream(target));
}

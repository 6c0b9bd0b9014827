import { PassThrough, pipeline, type Readable } from 'node:stream';
import type yazl from 'yazl';

/** Formats that shrink when deflated; others (spreadsheets, images, archives) are stored. */
const TEXT = /\.(csv|tsv|json|txt|md|geojson|xml|html|ndjson|yaml|yml)$/i;

type EntryTime = { mtime: Date; forceDosTimestamp: true };
type EntryOptions = EntryTime & { compressionLevel: number };

/**
 * An entry's time as the same bytes in every time zone: a zip's DOS time has no zone and yazl
 * writes the process's local one, so the copy of one revision differed between two hubs (or
 * one restarted) in other zones, under one ETag. It is written as the UTC time, alone.
 */
export function entryTime(time: Date): EntryTime {
  const asLocal = new Date(time.getTime() + time.getTimezoneOffset() * 60_000);
  return { mtime: asLocal, forceDosTimestamp: true };
}

/**
 * How a dataset's zip holds one file: text deflated at the fastest level (most of the gain
 * for a fraction of the time of level 6), the rest stored.
 */
export function entryOptions(path: string, time: Date): EntryOptions {
  return { ...entryTime(time), compressionLevel: TEXT.test(path) ? 1 : 0 };
}

/**
 * Adds an entry whose bytes a stream gives, opened when the zip reaches it. yazl pipes the
 * stream and listens to none of its errors, where one unheard would end the whole process:
 * here it fails the zip. A zip whose output ends early (its reader gone, its making
 * stopped) destroys the stream, so that no file or S3 body stays open behind it.
 */
export function addStreamEntry(
  zip: yazl.ZipFile,
  path: string,
  options: EntryOptions,
  open: () => Readable,
): void {
  zip.addReadStreamLazy(path, options, (done) => {
    const stream = open();
    const stop = (): void => {
      stream.destroy();
    };
    stream.on('error', (error) => zip.emit('error', error));
    zip.outputStream.once('close', stop);
    stream.once('close', () => zip.outputStream.off('close', stop));
    done(null, stream);
  });
}

/**
 * The bytes of a zip once every entry is added: a file that cannot be read fails this
 * stream, where unheard, yazl's error event would end the whole process; this stream
 * destroyed early destroys the zip's own.
 */
export function zipOutput(zip: yazl.ZipFile): Readable {
  const output = new PassThrough();
  zip.on('error', (error: Error) => output.destroy(error));
  // A failure is the output's own, told to whoever reads it.
  pipeline(zip.outputStream, output, () => undefined);
  zip.end();
  return output;
}

import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { SourceFailure } from '../location.js';
import { damaged, walkXml, type XmlHandlers } from './xml.js';

/** The parts of a zip container (xlsx, ods), read one at a time from the file. */
export class ZipParts {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly entries: Map<string, yauzl.Entry>,
  ) {}

  static async open(path: string): Promise<ZipParts> {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
      yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, opened) => {
        if (error)
          reject(new SourceFailure('format-error', `the workbook is damaged: ${error.message}`));
        else resolve(opened);
      });
    });
    const entries = new Map<string, yauzl.Entry>();
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        entries.set(entry.fileName, entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', (error) => {
        reject(damaged(error));
      });
      zip.readEntry();
    });
    return new ZipParts(zip, entries);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  async stream(name: string): Promise<Readable> {
    const entry = this.entries.get(name);
    if (!entry) throw new SourceFailure('format-error', `the workbook has no part "${name}"`);
    return this.zip.openReadStreamPromise(entry).catch((error: unknown) => {
      throw damaged(error);
    });
  }

  /** Streams one XML part through the handlers; false when `stop` ended it early. */
  async walk(name: string, handlers: XmlHandlers, stop?: () => boolean): Promise<boolean> {
    return walkXml(await this.stream(name), handlers, stop);
  }

  close(): void {
    this.zip.close();
  }
}

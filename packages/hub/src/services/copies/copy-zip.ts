import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { isDerived, type Resource } from '@data/core';
import type { HubParts } from '../../parts.js';
import { jobFile, lazyStream, type CopyJob } from './copy-job.js';
import { addStreamEntry, entryOptions, entryTime, zipOutput } from './dataset-zip.js';
import { isFolderPath, type Published } from '../published.js';
import { DERIVED_FOLDER, objectPath } from '../../engines/storage/types.js';

/**
 * Left out of the zip: the zip itself, and the Parquet copies, which are for readers that
 * fetch a table's columns and row groups by range; the zip holds what the original service's
 * held (the originals, the CSV and JSON copies, the previews).
 */
const NOT_ZIPPED = new Set(['derived/zip', 'derived/parquet']);

/** How the zip reads the other copies of a revision: the cache of copies (copies.ts). */
export interface CopyReader {
  /** Whether the bytes of a derived resource can be had. */
  has(pkg: Published, resource: Resource): Promise<boolean>;
  /** The bytes of a derived resource. */
  read(pkg: Published, resource: Resource): Promise<Readable>;
}

/**
 * The zip of a whole revision, a zipped data package as the Frictionless libraries load one:
 * `datapackage.json` at its root (without the zip itself: a file cannot hold its own hash),
 * and at each path the descriptor names, its files as uploaded, its README and the copies of
 * its tables, each read as it is made. Unzipped into a folder, it is the folder `data get`
 * writes, which can be published again. Written as a stream from start to end; its bytes
 * depend on the revision only (every entry dated at the revision's publication), so a zip
 * made again is the same zip.
 */
export async function makeZip(
  copies: CopyReader,
  hub: Pick<HubParts, 'storage'>,
  pkg: Published,
  job: CopyJob,
  signal: AbortSignal,
): Promise<void> {
  const mtime = new Date(pkg.revision.created);
  const zip = new yazl.ZipFile();
  // Each folder is listed before the files in it, as `zip -r` lists them: datapackage-js
  // writes each entry where it names it and makes no folder for it.
  const listed = new Set<string>();
  const options = (path: string) => {
    const parts = path.split('/').slice(0, -1);
    for (let depth = 1; depth <= parts.length; depth++) {
      const folder = `${parts.slice(0, depth).join('/')}/`;
      if (listed.has(folder)) continue;
      listed.add(folder);
      zip.addEmptyDirectory(folder, entryTime(mtime));
    }
    return entryOptions(path, mtime);
  };
  // A copy the hub cannot make (of a table whose file is not stored) is left out, and out of
  // the descriptor inside, which names only what the zip holds; so is a copy whose path is
  // no file's of its own (`_derived/a/../t_csv.csv`, in a revision published before core's
  // derivedFile), which would be another's entry.
  const resources: Resource[] = [];
  for (const resource of pkg.descriptor.resources) {
    const type = String((resource.datahub as { type?: unknown } | undefined)?.type);
    if (NOT_ZIPPED.has(type)) continue;
    if (!isDerived(resource)) resources.push(resource);
    else if (isFolderPath(String(resource.path)) && (await copies.has(pkg, resource)))
      resources.push(resource);
  }
  const inside = { ...pkg.descriptor, resources };
  zip.addBuffer(
    Buffer.from(`${JSON.stringify(inside, null, 2)}\n`),
    'datapackage.json',
    options('datapackage.json'),
  );
  const originals = Object.entries(pkg.files ?? {})
    .filter(([path]) => !path.startsWith(DERIVED_FOLDER))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [path, key] of originals)
    addStreamEntry(zip, path, options(path), () =>
      lazyStream(() => hub.storage.read(objectPath(key))),
    );
  const readme = pkg.descriptor.readme;
  if (typeof readme === 'string' && !pkg.files?.['README.md'])
    zip.addBuffer(Buffer.from(readme), 'README.md', options('README.md'));
  for (const resource of resources.filter(isDerived)) {
    const path = String(resource.path);
    addStreamEntry(zip, path, options(path), () => lazyStream(() => copies.read(pkg, resource)));
  }
  const output = zipOutput(zip);
  await pipeline(output, await jobFile(job), { signal });
  job.finish(job.written);
}

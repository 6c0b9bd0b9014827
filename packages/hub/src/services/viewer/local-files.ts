/**
 * A table's Parquet copy as a local file DuckDB reads, behind the copy cache and its size
 * bound: a copy being made or too large to keep is read in the scratch folder where it was
 * made (held until released); a kept copy, or one stored with an older revision, is put in
 * the viewer's own folder (`storage.materialize`: a link for a folder, a download from a
 * bucket), whose bytes are bounded, least recently used files out.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFile, link, lstat, realpath, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  derivedOf,
  formatOf,
  isDerived,
  makeDirectory,
  resourceName,
  type Resource,
} from '@data/core';
import { HttpError } from '../../http-error.js';
import type { HubParts } from '../../parts.js';
import type { Copies } from '../copies/copies.js';
import { wantedCopy } from '../copies/copies.js';
import { storedKey, type Published } from '../published.js';

/** A Parquet file to read, and what names its bytes (the same for every process). */
export interface LocalParquet {
  path: string;
  /** Names the bytes: a storage key, or a copy's ETag. */
  id: string;
  release(): void;
}

interface Entry {
  path: string;
  bytes: number;
  readers: number;
  ready: Promise<void>;
  /** Gone from the cache: its file goes once its readers are done. */
  dropped: boolean;
}

/** The table of `pkg` named `table`: an original resource. */
export function tableOf(pkg: Published, table: string): Resource | undefined {
  return pkg.descriptor.resources.find(
    (resource) => !isDerived(resource) && resourceName(resource) === table,
  );
}

/**
 * A link (a folder's materialize) made a file of the viewer's folder: DuckDB reads only
 * there, and the copy cache may remove the file it names. A hard link where it can be, a
 * copy otherwise.
 */
async function ownFile(path: string): Promise<void> {
  if (!(await lstat(path)).isSymbolicLink()) return;
  const target = await realpath(path);
  await rm(path);
  await link(target, path).catch(() => copyFile(target, path));
}

/** What `promise` settles to within `ms`, else 'making'. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'making'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'making'>((resolve) => {
    timer = setTimeout(() => resolve('making'), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export class LocalFiles {
  private readonly entries = new Map<string, Entry>();
  private held = 0;
  /** Stopped: no file is put in the folder any more. */
  private stopped = false;

  constructor(
    private readonly hub: Pick<HubParts, 'storage'>,
    private readonly copies: Pick<Copies, 'answer'>,
    /** The viewer's own folder. */
    readonly folder: string,
    private readonly budget: number,
  ) {}

  /**
   * The Parquet bytes of a table of a revision, as a local file; undefined when it has none;
   * 'making' when its copy is not made within `waitMs` (it goes on being made, and a later
   * ask finds it).
   */
  async acquire(
    pkg: Published,
    table: string,
    waitMs = Infinity,
  ): Promise<LocalParquet | 'making' | undefined> {
    const source = tableOf(pkg, table);
    if (!source || this.stopped) return undefined;
    const resources = pkg.descriptor.resources;
    const derived = derivedOf(resources, 'derived/parquet', source.name);
    if (derived) {
      const stored = storedKey(pkg.files, pkg.prefix, String(derived.path));
      if (stored && (await this.hub.storage.stat(stored))) return this.local(stored);
      const wanted = wantedCopy(pkg, derived);
      if (!wanted) return undefined;
      const asked = this.copies.answer(pkg, wanted, true);
      const answer = Number.isFinite(waitMs) ? await within(asked, waitMs) : await asked;
      if (answer === 'making') {
        // Made for the next ask, then let go of.
        asked.then((late) => late.release()).catch(() => undefined);
        return 'making';
      }
      if (answer.bytes.from === 'scratch')
        return { path: answer.bytes.path, id: answer.etag, release: () => answer.release() };
      answer.release();
      if (answer.bytes.from === 'store') return this.local(answer.bytes.key);
      return undefined;
    }
    // A Parquet original is its own copy.
    if (formatOf(source) === 'parquet' && typeof source.path === 'string') {
      const stored = storedKey(pkg.files, pkg.prefix, source.path);
      if (stored && (await this.hub.storage.stat(stored))) return this.local(stored);
    }
    return undefined;
  }

  /** Removes the viewer's files. */
  async stop(): Promise<void> {
    this.stopped = true;
    const making = [...this.entries.values()].map((entry) => entry.ready.catch(() => undefined));
    this.entries.clear();
    // A file being put there is waited for, so that the folder goes whole.
    await Promise.all(making);
    await rm(this.folder, { recursive: true, force: true, maxRetries: 3 });
  }

  private async local(key: string): Promise<LocalParquet> {
    // Asked before the stop, answered after it (a stat, a copy made): nothing goes in the
    // folder the stop removes.
    if (this.stopped) throw new HttpError(503, 'the hub is stopping');
    let entry = this.entries.get(key);
    // A link whose copy the copy cache let go is made again.
    if (entry && !entry.dropped) {
      const current = entry;
      await current.ready.catch(() => undefined);
      if (!(await stat(current.path).catch(() => undefined))) this.drop(key, current);
      entry = this.entries.get(key);
    }
    if (!entry) entry = this.add(key, (await this.hub.storage.stat(key))?.size ?? 0);
    else {
      // The most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    const held = entry;
    held.readers++;
    try {
      await held.ready;
    } catch (error) {
      this.letGo(key, held);
      throw error;
    }
    return { path: held.path, id: key, release: () => this.letGo(key, held) };
  }

  private add(key: string, bytes: number): Entry {
    // A file of its own per making: one dropped goes without touching the next.
    const name = createHash('sha256').update(key).digest('hex').slice(0, 24);
    const path = join(this.folder, `${name}-${randomBytes(4).toString('hex')}.parquet`);
    const entry: Entry = {
      path,
      bytes,
      readers: 0,
      dropped: false,
      ready: (async () => {
        await makeDirectory(this.folder);
        await this.hub.storage.materialize(key, path);
        await ownFile(path);
      })(),
    };
    entry.ready.catch(() => this.drop(key, entry));
    this.entries.set(key, entry);
    this.held += bytes;
    // Least recently used first, none that is being read.
    for (const [oldest, victim] of this.entries) {
      if (this.held <= this.budget) break;
      if (victim !== entry && victim.readers === 0) this.drop(oldest, victim);
    }
    return entry;
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) {
      this.entries.delete(key);
      this.held -= entry.bytes;
    }
    entry.dropped = true;
    if (entry.readers === 0) void rm(entry.path, { force: true });
  }

  private letGo(key: string, entry: Entry): void {
    entry.readers--;
    if (entry.readers > 0) return;
    // Larger than the budget alone, or pushed out meanwhile: not kept.
    if (entry.dropped || this.held > this.budget) this.drop(key, entry);
  }
}

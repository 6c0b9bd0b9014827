/**
 * Derived copies made when first asked for, not as a revision is published: the CSV, JSON
 * and Parquet copies of each table and the zip of the whole revision. A copy is written
 * once to the scratch folder while its readers read it as it grows (copy-job.ts), then kept
 * in a cache of the operator's byte budget (least recently used copies go first) or, larger
 * than the budget, kept in the scratch folder a short while (RECENT_COPIES) and then dropped
 * once its readers are done.
 */
import { createHash, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import {
  derivedFile,
  fileDigest,
  isDerived,
  makeDirectory,
  resourceName,
  version,
  type Resource,
} from '@data/core';
import { copyFailure, CopyJob } from './copy-job.js';
import { makeTableCopy, tableFiles, type CopyWanted } from './copy-table.js';
import { makeZip } from './copy-zip.js';
import type { HubParts } from '../../parts.js';
import { HttpError } from '../../http-error.js';
import { savedName, storedKey, type Published } from '../published.js';

const TYPES = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
  parquet: 'application/vnd.apache.parquet',
  zip: 'application/zip',
};
const TITLES = {
  csv: 'the CSV copy',
  json: 'the JSON copy',
  parquet: 'the Parquet copy',
  zip: 'the zip',
};

const KINDS: Record<string, CopyWanted['kind']> = {
  'derived/csv': 'csv',
  'derived/json': 'json',
  'derived/parquet': 'parquet',
  'derived/zip': 'zip',
};

/**
 * The copy a derived resource of a revision is, when the hub makes it on demand: of a
 * table's stored files, or of its rows inline in the descriptor; not of a table whose file
 * is not one of the revision's.
 */
export function wantedCopy(pkg: Published, resource: Resource): CopyWanted | undefined {
  const type = (resource.datahub as { type?: unknown; derivedFrom?: unknown } | undefined)?.type;
  const kind = typeof type === 'string' ? KINDS[type] : undefined;
  if (!kind) return undefined;
  if (kind === 'zip') return { kind, resource, source: -1 };
  const from = (resource.datahub as { derivedFrom?: unknown[] }).derivedFrom?.[0];
  const source = pkg.descriptor.resources.findIndex(
    (candidate) => candidate.name === from && !isDerived(candidate),
  );
  const table = pkg.descriptor.resources[source];
  return table && tableFiles(pkg, table) ? { kind, resource, source } : undefined;
}

/**
 * The version of the hub's copy writers (CSV, JSON, Parquet, zip): raised by a change that
 * writes a revision's copy in other bytes, or keeps copies under other keys. 2: a copy is
 * kept under its resource's name, where copies of tables `a/t` and `t` were both kept as
 * `t_csv.csv`, and the zip holds each table's own copies.
 */
const COPY_WRITER = 2;

/**
 * Who writes the copies, as a name: the writers' version, and what else their bytes depend
 * on, data's own version (its writers and the libraries it was released with) and the zlib
 * and zstd that compress zip entries and Parquet pages. Part of every copy's ETag and of the
 * key it is kept at, so that a hub upgraded or moved to another Node.js makes its copies anew
 * rather than sending another's bytes under validators that say they are the same.
 */
let writersName: string | undefined;
const writers = (): string => (writersName ??= writersOf());
function writersOf(): string {
  const made = [version(), process.versions.zlib, process.versions.zstd ?? ''].join('\0');
  const hash = createHash('sha256').update(made).digest('base64url').slice(0, 8);
  return `w${String(COPY_WRITER)}-${hash}`;
}

/**
 * A copy's validators, known before its bytes are: an ETag of what it is a copy of (its
 * cache key, which names its writers, and its revision's publication), and the revision's
 * publication for Last-Modified. A copy made again, kept or not, is answered with the same
 * ones, so ranges and conditional requests of a copy too large to keep hold across makings.
 */
function copyValidators(pkg: Published, key: string): { etag: string; modified: Date } {
  const hash = createHash('sha256')
    .update(`${key}\0${pkg.revision.created}`)
    .digest('base64url')
    .slice(0, 22);
  return { etag: `c${String(COPY_WRITER)}-${hash}`, modified: new Date(pkg.revision.created) };
}

/**
 * Copies too large for the cache stay in the scratch folder after they are made, this many
 * at most, each until it has not been asked for during RECENT_SECONDS: a reader asks for a
 * HEAD, then ranges (GDAL's /vsicurl/, DuckDB, a Parquet reader), which are answered from
 * one making rather than each from its own. Answering their ranges with the whole copy
 * instead would cost nothing on disk, but GDAL fails on a 200 to its first Range.
 */
const RECENT_COPIES = 4;
const RECENT_SECONDS = 60;

/**
 * Where a revision's copy is kept in the store once made: under its writers' name, so that a
 * hub whose writers changed makes its copies anew rather than sending the bytes of the
 * writers before under validators that say they are the new ones, and under its resource's
 * name, which is the revision's only (core's derivedFile), whatever path the revision's
 * descriptor gives it.
 */
function cacheKey(pkg: Published, wanted: CopyWanted): string {
  const revision = pkg.prefix.replace(/^packages\//, '');
  return `cache/${revision}${writers()}/${derivedFile(wanted.resource.name, wanted.kind)}`;
}

/**
 * A copy as a request for it is answered (the HTTP side sends it: http/read.ts): its name,
 * type and validators, and where its bytes are, the copy kept in the store, the whole copy
 * in the scratch folder, or the copy as it is made (its length told once it is whole).
 * `release` once it is sent or has failed: until then its scratch file stays.
 */
export interface CopyAnswer {
  name: string;
  type: string;
  etag: string;
  modified: Date;
  bytes:
    | { from: 'store'; key: string }
    | { from: 'scratch'; path: string }
    | { from: 'making'; stream: Readable; length: number | undefined };
  release(): void;
}

export class Copies {
  private readonly jobs = new Map<string, CopyJob>();
  private readonly stopping = new AbortController();
  /** Copies this process began to make, for the operator (and the tests) to count. */
  made = 0;

  constructor(
    private readonly hub: Pick<HubParts, 'log' | 'options' | 'storage' | 'store' | 'tmpDir'>,
  ) {}

  /**
   * A copy to send: the kept one, or as it is made. An answer that needs the whole copy
   * first (`whole`: a HEAD, for its length; a Range; a conditional request, for its
   * validators) waits for it to be made, then is answered from it as a stored file is:
   * GDAL's /vsicurl/ asks the size first, then ranges, and a Parquet reader reads the
   * footer first, so a Parquet copy is always answered once whole. Throws the reader's
   * HttpError when the making fails before the copy's first bytes.
   */
  async answer(pkg: Published, wanted: CopyWanted, whole: boolean): Promise<CopyAnswer> {
    const key = cacheKey(pkg, wanted);
    const name = savedName(wanted.resource);
    const facts = { name, type: TYPES[wanted.kind], ...copyValidators(pkg, key) };
    const kept: CopyAnswer = { ...facts, bytes: { from: 'store', key }, release: () => undefined };
    if (await this.isKept(key)) return kept;
    const job = this.jobFor(pkg, wanted, key);
    job.readers++;
    let released = false;
    const release = () => {
      if (!released) this.release(job);
      released = true;
    };
    try {
      if (wanted.kind === 'parquet' || whole) {
        await job.over;
        if (job.failure) throw copyFailure(job, job.failure);
        // Larger than the cache (or not stored): answered from the scratch file, which stays
        // while it is read and a short while after (RECENT_COPIES).
        if (!(await this.isKept(key)))
          return { ...facts, bytes: { from: 'scratch', path: job.file }, release };
        release();
        return kept;
      }
      await job.started().catch((error: unknown) => {
        throw copyFailure(job, error);
      });
      const stream = Readable.from(job.bytes(), { objectMode: false });
      const length = job.finished ? job.written : undefined;
      return { ...facts, bytes: { from: 'making', stream, length }, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * The bytes of a derived resource, whichever way the hub has them: stored with the
   * revision (previews, and copies of revisions published before copies were made on
   * demand), the original that is its own copy, kept in the cache, or as they are made.
   */
  async read(pkg: Published, resource: Resource): Promise<Readable> {
    const path = String(resource.path);
    const stored = storedKey(pkg.files, pkg.prefix, path);
    if (stored && (await this.hub.storage.stat(stored))) return this.hub.storage.read(stored);
    const wanted = wantedCopy(pkg, resource);
    if (!wanted) throw new HttpError(404, 'not found');
    const key = cacheKey(pkg, wanted);
    if (await this.isKept(key)) return this.hub.storage.read(key);
    const job = this.jobFor(pkg, wanted, key);
    job.readers++;
    const bytes = Readable.from(job.bytes(), { objectMode: false });
    bytes.once('close', () => this.release(job));
    return bytes;
  }

  /** Whether the bytes of a derived resource can be had: a copy made on demand, or stored. */
  async has(pkg: Published, resource: Resource): Promise<boolean> {
    if (wantedCopy(pkg, resource)) return true;
    const stored = storedKey(pkg.files, pkg.prefix, String(resource.path));
    return stored !== undefined && (await this.hub.storage.stat(stored)) !== undefined;
  }

  /** Forgets the kept copies of a dataset that is gone. */
  async forget(ownerid: string, dataset: string): Promise<void> {
    for (const key of this.recent.keys())
      if (key.startsWith(`cache/${ownerid}/${dataset}/`)) this.letGo(key);
    const keys = await this.hub.store.dropCopies(`cache/${ownerid}/${dataset}/`);
    for (const key of keys) await this.hub.storage.delete(key);
  }

  /** Stops every making under way (their readers see them fail) and waits for them to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.idle();
    for (const key of [...this.recent.keys()]) this.letGo(key);
  }

  /** Resolves once no copy is being made or stored. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private readonly running = new Set<Promise<void>>();

  private async isKept(key: string): Promise<boolean> {
    const bytes = await this.hub.store.cachedCopy(key);
    if (bytes === undefined) return false;
    if ((await this.hub.storage.stat(key))?.size === bytes) return true;
    // Counted but not there whole (removed by hand, say): forgotten, and made again.
    await this.hub.store.dropCopies(key);
    return false;
  }

  private jobFor(pkg: Published, wanted: CopyWanted, key: string): CopyJob {
    const running = this.jobs.get(key);
    if (running) return running;
    const recent = this.recent.get(key);
    if (recent) {
      this.hold(key, recent.job);
      return recent.job;
    }
    const dir = join(this.hub.tmpDir, 'copies', randomBytes(8).toString('hex'));
    const file = join(dir, wanted.kind === 'zip' ? 'copy.zip' : `0.${wanted.kind}`);
    const source = pkg.descriptor.resources[wanted.source];
    const title = `${TITLES[wanted.kind]}${source ? ` of ${resourceName(source)}` : ''}`;
    const job = new CopyJob(file, title);
    this.made++;
    this.jobs.set(key, job);
    this.making.add(job);
    const making = this.make(pkg, wanted, key, job, dir);
    job.over = making;
    this.running.add(making);
    void making.finally(() => this.running.delete(making));
    return job;
  }

  private async make(
    pkg: Published,
    wanted: CopyWanted,
    key: string,
    job: CopyJob,
    dir: string,
  ): Promise<void> {
    const { limits } = this.hub.options;
    const signal = AbortSignal.any([
      this.stopping.signal,
      AbortSignal.timeout(limits.processingSeconds * 1000),
    ]);
    try {
      await makeDirectory(dir);
      if (wanted.kind === 'zip') await makeZip(this, this.hub, pkg, job, signal);
      else await makeTableCopy(this.hub, pkg, wanted, job, dir, signal);
      if (!(await this.keep(key, job, TYPES[wanted.kind]))) this.hold(key, job);
    } catch (error) {
      // Readers are told why in plain words; what went wrong inside is the operator's.
      if (this.stopping.signal.aborted) job.fail(new Error('the hub is stopping'));
      else if (signal.aborted)
        job.fail(
          new Error(
            `it took longer than ${String(limits.processingSeconds)} s, the most this hub gives it`,
          ),
        );
      else {
        job.fail(new Error("the hub's operator can see why in its log"));
        this.hub.log(`making ${job.title} of ${pkg.prefix}: ${toError(error).stack ?? ''}`);
      }
    } finally {
      this.jobs.delete(key);
      this.making.delete(job);
      this.cleanUp(job);
    }
  }

  /**
   * Stores a whole copy in the cache, if it fits the budget, after what it pushes out;
   * false when it does not fit.
   */
  private async keep(key: string, job: CopyJob, type: string): Promise<boolean> {
    const { store, storage, options } = this.hub;
    const { length, md5 } = await fileDigest(job.file);
    const evicted = await store.reserveCopy(key, length, options.derivedCacheBytes);
    if (!evicted) return false;
    for (const victim of evicted) await storage.delete(victim);
    try {
      await storage.putFile(key, job.file, { md5, length, type });
      await store.keptCopy(key);
    } catch (error) {
      await store.dropCopies(key);
      throw error;
    }
    return true;
  }

  /** Copies made and too large to keep, held in the scratch folder: the newest last. */
  private readonly recent = new Map<string, { job: CopyJob; timer: NodeJS.Timeout }>();

  /** Holds a whole copy not kept for RECENT_SECONDS more, as one of the RECENT_COPIES newest. */
  private hold(key: string, job: CopyJob): void {
    const held = this.recent.get(key);
    if (held) {
      clearTimeout(held.timer);
      this.recent.delete(key);
    } else job.readers++;
    const timer = setTimeout(() => this.letGo(key), RECENT_SECONDS * 1000).unref();
    this.recent.set(key, { job, timer });
    for (const oldest of this.recent.keys()) {
      if (this.recent.size <= RECENT_COPIES) break;
      this.letGo(oldest);
    }
  }

  /** A held copy's scratch file goes once its readers are done. */
  private letGo(key: string): void {
    const held = this.recent.get(key);
    if (!held) return;
    clearTimeout(held.timer);
    this.recent.delete(key);
    this.release(held.job);
  }

  /** Copies being made or stored: their scratch files are still needed. */
  private readonly making = new Set<CopyJob>();

  private release(job: CopyJob): void {
    job.readers--;
    this.cleanUp(job);
  }

  /** The scratch file goes once its making is over and nobody reads it any more. */
  private cleanUp(job: CopyJob): void {
    if (this.making.has(job) || job.readers > 0) return;
    void rm(dirname(job.file), { recursive: true, force: true });
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

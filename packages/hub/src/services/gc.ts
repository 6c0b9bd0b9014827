/**
 * Garbage collection, mark and sweep: removes what no revision, upload in progress or user
 * needs, once it has gone unused for a grace period.
 *
 * - A holding (what a user's quota counts) goes when no queued, running or published
 *   revision of its owner names the object, and it was neither made nor confirmed to a
 *   client (`exists`) within the grace: a publication running meanwhile has named it, or
 *   touched it, or is younger than the grace.
 * - An object goes when no one holds it. It is marked first, and its bytes are moved aside
 *   before they are removed. Taking the object in again unmarks it: the collector then puts
 *   the bytes back, and whoever took it in checks afterwards that its bytes are there (and
 *   puts its own there if not). Whatever the order, bytes a publication takes in while they
 *   are collected are never lost.
 * - A staged upload (put at a presigned URL and never taken in) goes past the grace, which
 *   is longer than an upload policy lives; so do the parts of an upload that broke off and
 *   was not taken on (a partial file, or the store's multipart upload), past the grace since
 *   they were last written to.
 */
import type { HubParts } from '../parts.js';
import { objectPath } from '../engines/storage/types.js';

/** Longer than an upload's policy (an hour), with room for a publication's own pace. */
export const DEFAULT_GRACE_MINUTES = 120;

export interface Collected {
  count: number;
  bytes: number;
}

export interface GcReport {
  dryRun: boolean;
  /** Quota freed: holdings removed, by their bytes. */
  holdings: Collected;
  /** Stored objects removed. */
  objects: Collected;
  /** Staged uploads removed. */
  staged: Collected;
}

type GcHub = Pick<HubParts, 'store' | 'storage' | 'log'>;

const add = (collected: Collected, bytes: number) => {
  collected.count++;
  collected.bytes += bytes;
};

async function sweepHoldings(hub: GcHub, before: string, report: GcReport): Promise<string[]> {
  const freed: string[] = [];
  for (const { ownerid, key, bytes } of await hub.store.unusedHoldings(before))
    if (report.dryRun || (await hub.store.dropUnusedHolding(ownerid, key, before))) {
      add(report.holdings, bytes);
      freed.push(key);
    }
  return freed;
}

/** What a dry run would remove: objects no one holds, and those only freed holdings hold. */
async function objectsToSweep(
  hub: GcHub,
  before: string,
  freed: string[],
  dryRun: boolean,
): Promise<{ key: string; bytes: number }[]> {
  const unheld = await hub.store.unheldObjects(before);
  if (!dryRun) return unheld;
  const counts = new Map<string, number>();
  for (const key of freed) counts.set(key, (counts.get(key) ?? 0) + 1);
  const more: { key: string; bytes: number }[] = [];
  for (const [key, count] of counts) {
    if ((await hub.store.holdingCount(key)) > count) continue;
    const info = await hub.storage.stat(objectPath(key));
    if (info) more.push({ key, bytes: info.size });
  }
  return [...unheld, ...more];
}

/** Where an object's bytes wait while it is collected. */
const ASIDE = 'gc/';

async function sweepObject(hub: GcHub, key: string): Promise<boolean> {
  if (!(await hub.store.markCollecting(key))) return false;
  const stored = objectPath(key);
  const aside = `${ASIDE}${key}`;
  const there = (await hub.storage.stat(stored)) !== undefined;
  if (there) await hub.storage.copy(stored, aside);
  await hub.storage.delete(stored);
  const dropped = await hub.store.dropCollected(key);
  // Unmarked meanwhile: taken in again. Its bytes go back unless its taker's are there.
  if (!dropped && there && !(await hub.storage.stat(stored))) await hub.storage.copy(aside, stored);
  if (there) await hub.storage.delete(aside);
  return dropped;
}

/** Staged uploads never taken in, and bytes a stopped collection left aside. */
async function sweepLeftovers(
  hub: GcHub,
  prefix: string,
  before: number,
  report: GcReport,
  collected: Collected,
): Promise<void> {
  for await (const { key, size } of hub.storage.list(prefix)) {
    const info = await hub.storage.stat(key);
    if (!info || info.modified.getTime() >= before) continue;
    if (!report.dryRun) await hub.storage.delete(key);
    add(collected, size);
  }
}

/** The store's multipart uploads not written to within the grace: aborted, their parts gone. */
async function sweepMultipart(
  hub: GcHub,
  prefix: string,
  before: number,
  report: GcReport,
): Promise<void> {
  const multipart = hub.storage.multipart;
  if (!multipart) return;
  for await (const { key, uploadId, size, modified } of multipart.list(prefix)) {
    if (modified.getTime() >= before) continue;
    // One completed since it was listed is no longer staged.
    if (!report.dryRun && !(await multipart.abort(key, uploadId))) continue;
    add(report.staged, size);
  }
}

export async function collectGarbage(
  hub: GcHub,
  options: { graceMinutes: number; dryRun: boolean },
): Promise<GcReport> {
  const cutoff = Date.now() - options.graceMinutes * 60_000;
  const before = new Date(cutoff).toISOString();
  const report: GcReport = {
    dryRun: options.dryRun,
    holdings: { count: 0, bytes: 0 },
    objects: { count: 0, bytes: 0 },
    staged: { count: 0, bytes: 0 },
  };
  const freed = await sweepHoldings(hub, before, report);
  for (const { key, bytes } of await objectsToSweep(hub, before, freed, options.dryRun))
    if (options.dryRun || (await sweepObject(hub, key))) add(report.objects, bytes);
  await sweepLeftovers(hub, 'uploads/', cutoff, report, report.staged);
  await sweepMultipart(hub, 'uploads/', cutoff, report);
  await sweepLeftovers(hub, ASIDE, cutoff, report, report.objects);
  return report;
}

/**
 * Each published revision's changes since the published revision before it, summed up once
 * in the background after publication (by the process that published it) and kept with the
 * revision, for `data history` and the dataset's pages.
 */
import { changeSummary, type ChangeSummary, diffPackages } from '@data/core';
import type { HubParts } from '../../parts.js';
import type { Revision } from '../../engines/metadata/types.js';
import { revisionSide, storedPackage } from '../published.js';

/**
 * Memory for matching rows while summing up: a hub process validates and serves at the same
 * time, and larger tables are matched part by part from disk.
 */
const SUMMARY_MEMORY = 32 * 1024 * 1024;

const NONE: Omit<ChangeSummary, 'since'> = {
  rows: { added: 0, removed: 0, changed: 0 },
  resources: { added: [], removed: [], renamed: [] },
  fields: { added: [], removed: [], retyped: [], changed: [] },
  properties: [],
};

export async function summarizeRevision(
  hub: Pick<HubParts, 'storage' | 'store'>,
  which: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
  signal: AbortSignal,
): Promise<void> {
  const owner = await hub.store.userById(which.ownerid);
  const dataset = owner && (await hub.store.dataset(which.ownerid, which.dataset));
  if (!owner || !dataset) return;
  const revisions = await hub.store.revisions(which.ownerid, which.dataset);
  const stored = (revision: Revision | undefined) =>
    revision && storedPackage(owner, dataset, revision);
  const current = stored(revisions.find((each) => each.revision === which.revision));
  if (!current) return;
  const before = stored(
    revisions
      .filter((each) => each.revision < which.revision && each.state === 'SUCCEEDED')
      .sort((x, y) => y.revision - x.revision)[0],
  );
  let summary: ChangeSummary = { since: null, ...NONE };
  if (before) {
    const label = (revision: number) => `${owner.username}/${dataset.name}@${String(revision)}`;
    const diff = await diffPackages(
      revisionSide(hub, before, label(before.revision.revision)),
      revisionSide(hub, current, label(which.revision)),
      { limit: 0, memory: SUMMARY_MEMORY, signal },
    );
    summary = changeSummary(diff, before.revision.revision);
  }
  await hub.store.saveChanges(which, JSON.stringify(summary));
}

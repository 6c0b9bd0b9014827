import { UsageError, writeFileAtomic } from '@data/core';
import type { Fetch, Package, Report, ValidateEvent } from '@data/core';
import type { Draft, DraftNotes } from '../init/draft.js';
import type { Refreshed } from '../init/refresh.js';

/** How far `data init` is: each file read, what drafting found, then the validation's events. */
export type InitEvent =
  | { type: 'reading'; path: string; index: number; total: number }
  | { type: 'drafted'; notes: DraftNotes }
  | { type: 'validate'; event: ValidateEvent };

export interface DraftDeps {
  /** Reads the remote files a descriptor may name (none a draft names). */
  fetch: Fetch;
  signal: AbortSignal;
  onEvent: (event: InitEvent) => void;
}

/** A descriptor drafted from a folder's files and loosened until the data agrees with it. */
export interface SettledDraft {
  draft: Draft;
  /** The last validation: what no descriptor can mend, when it is not valid. */
  report: Report;
  notes: DraftNotes;
}

/**
 * The use case of `data init`: each data file of a folder read and described, then the
 * whole data validated and the description loosened where it contradicts it (a few rounds).
 */
export async function draftDescriptor(
  dir: string,
  name: string,
  deps: DraftDeps,
): Promise<SettledDraft> {
  const { draftPackage } = await import('../init/draft.js');
  const { settle } = await import('../init/settle.js');
  const { draft, notes } = await draftPackage(dir, name, deps.signal, (path, index, total) => {
    deps.onEvent({ type: 'reading', path, index, total });
  });
  deps.onEvent({ type: 'drafted', notes });
  // A package lists at least one resource: a descriptor of nothing would not validate.
  if (draft.resources.length === 0)
    throw new UsageError(
      `${dir} holds no data file to describe`,
      'put the data files in the folder first (hidden files are left out)',
    );
  const settled = await settle(draft, dir, {
    fetch: deps.fetch,
    signal: deps.signal,
    onProgress: (event) => {
      deps.onEvent({ type: 'validate', event });
    },
  });
  return { ...settled, notes };
}

/**
 * A descriptor written whole or not at all, as JSON or YAML: nothing is there until the
 * rename, and an interrupted init (Ctrl-C, SIGTERM) writes nothing.
 */
export async function writeDescriptor(
  target: string,
  descriptor: Package,
  yaml: boolean,
  signal: AbortSignal,
): Promise<void> {
  const text = yaml
    ? (await import('yaml')).stringify(descriptor)
    : `${JSON.stringify(descriptor, null, 2)}\n`;
  await writeFileAtomic(target, text, { signal });
}

/**
 * `data init --refresh`: the bytes and hash of a descriptor brought up to date with its
 * files. `file` is the descriptor; a file that cannot be read or parsed is a UsageError.
 */
export async function refreshSizes(file: string): Promise<Refreshed[]> {
  const { refreshDescriptor } = await import('../init/refresh.js');
  try {
    return await refreshDescriptor(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : ''}`);
  }
}

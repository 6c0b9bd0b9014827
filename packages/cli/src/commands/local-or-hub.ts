import { statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Context } from '../context.js';
import { DESCRIPTOR_NAMES } from '@data/core';
import { visible } from '@data/core';

/** Two names, neither starting with a dot: what `owner/dataset` looks like. */
const OWNER_DATASET = /^[^./\\][^/\\]*\/[^/\\]+$/;

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The dataset's address on the hub, or how to write one where no hub is set up right. */
function hubAddressOf(input: string, ctx: Context): string {
  try {
    return `${ctx.hub().site}/${input}`;
  } catch {
    return `<hub>/${input}`;
  }
}

/**
 * The one rule for a name that may be a local file or folder or a hub dataset (cat, info,
 * diff): a path that exists here is read here, and anything else is the hub's. Written
 * `owner/dataset`, a folder here is read only if it holds a descriptor (one `data get` broke
 * off is no package yet) and then a note on stderr names it and the address of the hub's
 * dataset, so that the local copy is never read by surprise; `./owner/dataset` says the folder
 * is meant, with no note.
 */
export function readsLocally(input: string, ctx: Context): boolean {
  if (input === '-' || /^[a-z][a-z0-9+.-]*:\/\//i.test(input)) return false;
  const path = resolve(ctx.io.cwd, input);
  const found = statOf(path);
  if (!found) return false;
  if (!found.isDirectory() || !OWNER_DATASET.test(input)) return true;
  if (!DESCRIPTOR_NAMES.some((name) => statOf(join(path, name)))) return false;
  ctx.io.stderr.write(
    `note: reading the folder ./${visible(input)}; the hub's dataset ${visible(input)} is ${visible(hubAddressOf(input, ctx))}\n`,
  );
  return true;
}

import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { makeDirectorySync } from '@data/core';

/** What a scratch folder is called: its process, a random part, and its machine. */
const TAG = /^p(\d+)\.[0-9a-f]+\.(.+)$/;

/** Leftovers of a process on another machine are removed once they are this old. */
const FOREIGN_AGE_MS = 24 * 60 * 60 * 1000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a scratch entry was left by a process that is gone. */
function isLeftover(root: string, name: string): boolean {
  const tag = TAG.exec(name);
  // Not a process's folder: the single-process layout of earlier versions.
  if (!tag) return true;
  if (tag[2] === hostname()) return !isAlive(Number(tag[1]));
  const modified = statSync(join(root, name), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return Date.now() - modified > FOREIGN_AGE_MS;
}

/**
 * This process's scratch folder under `<data-dir>/tmp` (unfinished uploads, pipeline work
 * folders), with what stopped processes left there removed. Hub processes sharing a data
 * folder each have their own, so that one starting never removes another's work.
 */
export function scratchFolder(root: string): string {
  makeDirectorySync(root);
  for (const name of readdirSync(root))
    if (isLeftover(root, name)) rmSync(join(root, name), { recursive: true, force: true });
  const mine = join(
    root,
    `p${String(process.pid)}.${randomBytes(4).toString('hex')}.${hostname()}`,
  );
  makeDirectorySync(mine);
  return mine;
}

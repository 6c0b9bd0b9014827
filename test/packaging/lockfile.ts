/**
 * A lockfile for an install of the packed CLI alone, made from the workspace's: each package the
 * CLI needs at run time, where the workspace's lockfile puts it, with its version and integrity.
 * npm then installs from the tarballs in its cache by their integrity, asking the registry for
 * nothing: without a lockfile it would want each package's metadata, which `npm ci` never fetched.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

interface Entry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  peer?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, Entry>;
}

/** Where Node.js finds `name` from the package at `from`, among the lockfile's locations. */
function locate(packages: Record<string, Entry>, from: string, name: string): string | undefined {
  let at = from;
  for (;;) {
    const here = `${at ? `${at}/` : ''}node_modules/${name}`;
    if (packages[here]) return here;
    if (at === '') return undefined;
    const inside = at.lastIndexOf('/node_modules/');
    at = inside >= 0 ? at.slice(0, inside) : '';
  }
}

/** Every run-time dependency of `entry`, with whether only an optional one asks for it. */
function wants(entry: Entry): [string, boolean][] {
  const optionalPeer = (name: string) => entry.peerDependenciesMeta?.[name]?.optional === true;
  return [
    ...Object.keys(entry.dependencies ?? {}).map((name): [string, boolean] => [name, false]),
    ...Object.keys(entry.optionalDependencies ?? {}).map((name): [string, boolean] => [name, true]),
    ...Object.keys(entry.peerDependencies ?? {})
      .filter((name) => !optionalPeer(name))
      .map((name): [string, boolean] => [name, false]),
  ];
}

/**
 * The lockfile of a folder whose package.json depends on `tarball` (a file beside it), the
 * packed workspace at `workspace` (packages/cli), named `name`.
 */
export function lockfileForTarball(
  workspaceLock: string,
  workspace: string,
  name: string,
  tarball: { file: string; path: string },
): object {
  const lock = JSON.parse(readFileSync(workspaceLock, 'utf8')) as Lockfile;
  const source = lock.packages;
  const self = source[workspace];
  if (!self) throw new Error(`${workspace} is not in ${workspaceLock}`);
  const moved = (location: string) =>
    location === workspace
      ? `node_modules/${name}`
      : location.startsWith(`${workspace}/`)
        ? `node_modules/${name}${location.slice(workspace.length)}`
        : location;
  const taken = new Map<string, boolean>();
  const queue: [string, boolean][] = [[workspace, false]];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, optional] = next;
    const entry = source[from];
    if (!entry) continue;
    for (const [dependency, optionalEdge] of wants(entry)) {
      const found = locate(source, from, dependency);
      if (found === undefined) {
        if (optionalEdge) continue;
        throw new Error(`${from} needs ${dependency}, which ${workspaceLock} does not hold`);
      }
      const nowOptional = optional || optionalEdge;
      const before = taken.get(found);
      if (before === false || before === nowOptional) continue;
      taken.set(found, nowOptional);
      queue.push([found, nowOptional]);
    }
  }
  const packages: Record<string, Entry> = {
    '': { dependencies: { [name]: `file:${tarball.file}` } },
    [`node_modules/${name}`]: {
      ...withoutFlags(self),
      resolved: `file:${tarball.file}`,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball.path)).digest('base64')}`,
      devDependencies: undefined,
    },
  };
  for (const [location, optional] of [...taken].sort(([a], [b]) => a.localeCompare(b))) {
    const entry = source[location];
    if (!entry) continue;
    packages[moved(location)] = { ...withoutFlags(entry), ...(optional ? { optional } : {}) };
  }
  return { name: 'install', lockfileVersion: 3, requires: true, packages };
}

function withoutFlags(entry: Entry): Entry {
  const { dev: _dev, devOptional: _devOptional, optional: _optional, peer: _peer, ...rest } = entry;
  return rest;
}

import { randomBytes } from 'node:crypto';
import { isReservedName } from '../../services/names.js';
import type { MovedTable, Row } from './tables.js';
import type { CachedCopy, Dataset, DatasetSort, Findability, Identity, User } from './types.js';

export { MOVED_TABLES, type MovedTable, type Row } from './tables.js';
export type { CachedCopy } from './types.js';

/** The user name to try at `attempt` (from 1): `wanted`, then `wanted-2`, `wanted-3`… */
export function usernameCandidate(wanted: string, attempt: number): string {
  return attempt === 1 ? wanted : `${wanted.slice(0, 36)}-${String(attempt)}`;
}

export { isReservedName };

/** A new user of an identity, under a user name nobody holds. */
export function newUser(identity: Identity, username: string): User {
  return {
    userid: randomBytes(16).toString('hex'),
    username,
    email: identity.email,
    name: identity.name,
    provider: identity.provider,
    join_date: new Date().toISOString(),
  };
}

/**
 * The findability a succeeded revision is published with: its own if it named one, else
 * what the dataset had, and published for a dataset's first publication.
 */
export function publishedFindability(
  asked: Findability | null | undefined,
  current: Dataset | undefined,
): Findability {
  return asked ?? (current?.published_revision == null ? 'published' : current.findability);
}

/** Whether a revision becomes the dataset's published one: not when a later one already is. */
export function supersedes(current: Dataset | undefined, revision: number): boolean {
  return current?.published_revision == null || current.published_revision <= revision;
}

/** A one-time record taken from the database, if it had not expired. */
export function unexpired<T extends { expires: number }>(row: T | undefined): T | undefined {
  return row && row.expires > Date.now() ? row : undefined;
}

/** A cache version: this process's write count and the current second. */
export function freshness(writes: number): string {
  return `${String(writes)}:${String(Math.floor(Date.now() / 1000))}`;
}

/**
 * SQL: whether a holding `h` is used by a revision of its owner that is queued, in progress
 * or published (its files, or its flow spec's upload URLs, name the key). `find` is the
 * engine's substring function, (haystack, needle) → position from 1, or 0.
 */
export function holdingInUse(find: string): string {
  return `exists (select 1 from revisions r where r.ownerid = h.ownerid
    and r.state in ('QUEUED', 'INPROGRESS', 'SUCCEEDED')
    and (${find}(coalesce(r.files, ''), h.key) > 0 or ${find}(r.spec, h.key) > 0))`;
}

/**
 * SQL for a revision `r` waiting for a worker, in either engine's dialect (`now` is the
 * placeholder of the current time in ms): queued, or in progress under a lease that ran
 * out, with no earlier unfinished revision of its dataset.
 */
export function waitingRevision(now: string): string {
  return `(r.state = 'QUEUED' or (r.state = 'INPROGRESS' and coalesce(r.lease_until, 0) < ${now}))
  and not exists (select 1 from revisions e where e.ownerid = r.ownerid and e.dataset = r.dataset
    and e.revision < r.revision and e.state in ('QUEUED', 'INPROGRESS'))`;
}

/**
 * The key of a dataset name's revision numbers: its lower case, as names are told apart in
 * none (dataset names are ASCII, which every engine and JavaScript fold alike).
 */
export function revisionNameKey(dataset: string): string {
  return dataset.toLowerCase();
}

/**
 * SQL of the last revision number a dataset name used (`last`, 0 for none), in either
 * engine's dialect (`owner`, `dataset` and `key` the placeholders of the owner id, the
 * dataset name and its `revisionNameKey`): its dataset's revisions, and those of the
 * datasets of that name in any case that were deleted. A revision's number is never
 * given again to other bytes: `/v/<N>/` is an address caches keep for a year.
 */
export function lastRevisionUsed(owner: string, dataset: string, key: string): string {
  return `select coalesce(max(last), 0) as last from (
    select max(revision) as last from revisions where ownerid = ${owner} and dataset = ${dataset}
    union all
    select last_revision from deleted_names where ownerid = ${owner} and name = ${key}) as used`;
}

/** Whether a database address names a PostgreSQL server rather than a SQLite file. */
export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/**
 * A row as another engine takes it. Users made by hubs before identities were kept have no
 * subject; PostgreSQL requires one, and their user id, which no provider gives, stands in.
 */
export function portableRow(table: MovedTable, row: Row): Row {
  if (table === 'users' && (row.subject === null || row.subject === undefined))
    return { ...row, subject: `unknown:${String(row.userid)}` };
  return row;
}

/** The ORDER BY of a listing: a sort asked for, ties broken so that pages never overlap. */
export function listingOrder(sort: DatasetSort): string {
  const orders: Record<DatasetSort, string> = {
    updated: 'd.modified desc',
    name: 'd.name asc',
    size: 'd.bytes desc nulls last',
    rows: 'd.row_count desc nulls last',
  };
  const first = orders[sort];
  return `${first}, d.modified desc, d.ownerid, d.name`;
}

/** A copy reserved but not stored this long ago was left by a process that stopped. */
const ABANDONED_MS = 10 * 60 * 1000;

/**
 * Which copies to take out of a cache of `budget` bytes to make room for `bytes` more:
 * abandoned reservations first, then kept copies, least recently used first. Undefined
 * when the copy cannot fit even in an empty cache.
 */
export function copiesToEvict(
  rows: readonly CachedCopy[],
  bytes: number,
  budget: number,
  now: number,
): CachedCopy[] | undefined {
  if (bytes > budget) return undefined;
  let used = rows.reduce((total, row) => total + row.bytes, 0);
  const abandoned = rows.filter((row) => !row.ready && now - row.used > ABANDONED_MS);
  const kept = rows.filter((row) => row.ready).sort((a, b) => a.used - b.used);
  const victims: CachedCopy[] = [];
  for (const row of [...abandoned, ...kept]) {
    if (used + bytes <= budget) break;
    victims.push(row);
    used -= row.bytes;
  }
  return used + bytes <= budget ? victims : undefined;
}

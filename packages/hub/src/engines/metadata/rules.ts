import { randomBytes } from 'node:crypto';
import { isReservedName } from '../../names.js';
import { answer, type Answer, type Rule } from './run.js';
import { NAME_KEPT } from './organisations.js';
import type { MovedTable, Row } from './tables.js';
import type {
  CachedCopy,
  CreatedRevision,
  Dataset,
  DatasetSort,
  DatasetSummary,
  Findability,
  Identity,
  NewRevision,
  Revision,
  User,
} from './types.js';

/** The user name to try at `attempt` (from 1): `wanted`, then `wanted-2`, `wanted-3`… */
function usernameCandidate(wanted: string, attempt: number): string {
  return attempt === 1 ? wanted : `${wanted.slice(0, 36)}-${String(attempt)}`;
}

/** A new user of an identity, under a user name nobody holds. */
function newUser(identity: Identity, username: string): User {
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
function publishedFindability(
  asked: Findability | null | undefined,
  current: Dataset | undefined,
): Findability {
  return asked ?? (current?.published_revision == null ? 'published' : current.findability);
}

/** Whether a revision becomes the dataset's published one: not when a later one already is. */
function supersedes(current: Dataset | undefined, revision: number): boolean {
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
 * SQL: whether a dataset `d` is found by a viewer, in either engine's dialect (`viewer` and
 * `viewerAgain` the placeholders of the viewer's user id, '' for none; `owner` and
 * `ownerAgain` those of the owner searched in, '' for every owner): a published dataset,
 * listed for everyone, or the viewer's own or an organisation's the viewer is a member of.
 * Unlisted and private datasets are found by their owner (and its members) only.
 */
export function findableBy(
  viewer: string,
  owner: string,
  ownerAgain = owner,
  viewerAgain = viewer,
): string {
  return `d.published_revision is not null and (d.findability = 'published' or d.ownerid = ${viewer}
        or exists (select 1 from members m where m.orgid = d.ownerid and m.userid = ${viewerAgain}))
      and (${owner} = '' or d.ownerid = ${ownerAgain})`;
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
 * given again to other bytes: `/v/<N>/` is an address caches keep for a year. The numbers
 * an organisation deleted since (NAME_KEPT) left with its name count for the name's holder.
 */
export function lastRevisionUsed(owner: string, dataset: string, key: string): string {
  return `select coalesce(max(last), 0) as last from (
    select max(revision) as last from revisions where ownerid = ${owner} and dataset = ${dataset}
    union all
    select last_revision from deleted_names where ownerid = ${owner} and name = ${key}
    union all
    select last_revision from deleted_names where name = ${key}
      and ownerid = ('${NAME_KEPT}' || (select username from users where userid = ${owner}))) as used`;
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
function copiesToEvict(
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

// The rule-bearing writes below are written once, for both engines, above a thin layer of
// SQL, each a generator run by the engine (run.ts): the engines' `Tables` only run SQL.

/** A row of `revisions` as it is queued. */
export interface QueuedRevision {
  ownerid: string;
  dataset: string;
  revision: number;
  state: 'QUEUED';
  spec: string;
  specBytes: number;
  findability: Findability | null;
  pipelines: string;
  errorLog: string;
  created: string;
  requestId: string | null;
}

/** What a dataset's row says once a revision of it is published. */
export interface PublishedFields extends DatasetSummary {
  revision: number;
  findability: Findability;
  modified: string;
}

/** A holding as it is recorded: a user's claim on the bytes of an object. */
export interface NewHolding {
  key: string;
  ownerid: string;
  bytes: number;
  isPrivate: boolean;
  created: string;
  headMd5: string | null;
}

/**
 * The statements the rules run: those whose SQL is the same in both engines are written once
 * (statements.ts), the others by each engine in its own SQL (search, types, upserts). None
 * decides anything: what to check, in which order, and what to write is the rules'.
 */
export interface Tables {
  userOfSubject(provider: string, subject: string): Answer<User | undefined>;
  usernameTaken(username: string): Answer<boolean>;
  insertUser(user: User, subject: string): Answer<void>;
  holds(ownerid: string, key: string): Answer<boolean>;
  /** A holding's bytes are no longer private: someone stored them as public. */
  makeHoldingPublic(ownerid: string, key: string): Answer<void>;
  /** Bytes a user's quota counts: the objects the user holds and every revision spec kept. */
  usedBytes(ownerid: string): Answer<number>;
  /** The object, unless it is known; no longer marked as being collected either way. */
  keepObject(holding: NewHolding): Answer<void>;
  insertHolding(holding: NewHolding): Answer<void>;
  dataset(ownerid: string, name: string): Answer<Dataset | undefined>;
  datasetsInAnyCase(ownerid: string, name: string): Answer<Dataset[]>;
  datasetCount(ownerid: string): Answer<number>;
  insertDataset(
    ownerid: string,
    name: string,
    findability: Findability,
    modified: string,
  ): Answer<void>;
  /** The last revision number the name used, deleted datasets of that name included (0: none). */
  lastRevisionUsed(ownerid: string, dataset: string): Answer<number>;
  insertRevision(revision: QueuedRevision): Answer<void>;
  /** The findability a revision asked for; undefined when there is no such revision. */
  revisionFindability(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
  ): Answer<Findability | null | undefined>;
  setRevisionFindability(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    findability: Findability,
  ): Answer<void>;
  setPublished(ownerid: string, dataset: string, fields: PublishedFields): Answer<void>;
  /** Puts a dataset's published fields in the search index, in place of what was there. */
  index(ownerid: string, dataset: string): Answer<void>;
  /** Takes a dataset out of the search index, where the index is apart from its row. */
  unindex(ownerid: string, dataset: string): Answer<void>;
  /** Keeps the last revision number a name used, once its dataset is gone. */
  rememberName(ownerid: string, nameKey: string, last: number): Answer<void>;
  deleteRevisions(ownerid: string, dataset: string): Answer<void>;
  /** Whether there was such a dataset to delete. */
  deleteDataset(ownerid: string, dataset: string): Answer<boolean>;
  cachedCopies(): Answer<CachedCopy[]>;
  deleteCopies(keys: readonly string[]): Answer<void>;
  /** Counts a copy being stored (not ready), used now. */
  insertCopy(key: string, bytes: number, used: number): Answer<void>;
}

/** Whether `bytes` more fit a quota of which `used` is taken. */
function fitsQuota(used: number, bytes: number, quota: number): boolean {
  return used + bytes <= quota;
}

/** The user of an identity, created on first sign-in under a user name nobody holds. */
export function* userForIdentity(tables: Tables, identity: Identity): Rule<User> {
  const known = yield* answer(tables.userOfSubject(identity.provider, identity.subject));
  if (known) return known;
  let username: string | undefined;
  for (let attempt = 1; username === undefined; attempt++) {
    const candidate = usernameCandidate(identity.username, attempt);
    if (!isReservedName(candidate) && !(yield* answer(tables.usernameTaken(candidate))))
      username = candidate;
  }
  const user = newUser(identity, username);
  yield* answer(tables.insertUser(user, identity.subject));
  return user;
}

/**
 * Records that a user stored bytes, if the user's quota allows them: false when over it.
 * Bytes the user holds already are held once (public if they were stored public once).
 */
export function* addHolding(
  tables: Tables,
  asked: Omit<NewHolding, 'created'>,
  quota: number,
): Rule<boolean> {
  const { ownerid, key } = asked;
  const holding = { ...asked, created: new Date().toISOString() };
  if (yield* answer(tables.holds(ownerid, key))) {
    if (!holding.isPrivate) yield* answer(tables.makeHoldingPublic(ownerid, key));
    return true;
  }
  if (!fitsQuota(yield* answer(tables.usedBytes(ownerid)), holding.bytes, quota)) return false;
  yield* answer(tables.keepObject(holding));
  yield* answer(tables.insertHolding(holding));
  return true;
}

/**
 * Queues the next revision of a dataset, or says why it may not: a dataset of the owner has
 * the name in another case, the owner has as many datasets as allowed (for a new one), or
 * the spec's own bytes would pass the storage quota. A new dataset stays private until a
 * revision of it succeeds. A revision's number is never given again to other bytes.
 */
export function* createRevision(tables: Tables, asked: NewRevision): Rule<CreatedRevision> {
  const { ownerid, dataset, limits } = asked;
  const created = new Date().toISOString();
  const specBytes = Buffer.byteLength(asked.spec);
  const existing = yield* answer(tables.dataset(ownerid, dataset));
  if (!existing) {
    const alike = (yield* answer(tables.datasetsInAnyCase(ownerid, dataset)))[0];
    if (alike) return { refused: 'name', existing: alike.name };
    if ((yield* answer(tables.datasetCount(ownerid))) >= limits.maxDatasets)
      return { refused: 'datasets' };
  }
  if (!fitsQuota(yield* answer(tables.usedBytes(ownerid)), specBytes, limits.maxStorageBytes))
    return { refused: 'storage' };
  if (!existing) yield* answer(tables.insertDataset(ownerid, dataset, 'private', created));
  const revision = (yield* answer(tables.lastRevisionUsed(ownerid, dataset))) + 1;
  yield* answer(
    tables.insertRevision({
      ownerid,
      dataset,
      findability: asked.findability,
      spec: asked.spec,
      pipelines: asked.pipelines,
      requestId: asked.requestId,
      revision,
      state: 'QUEUED',
      specBytes,
      errorLog: '[]',
      created,
    }),
  );
  return { revision };
}

/**
 * Publishes a succeeded revision: it keeps the findability it is published with, and it
 * becomes the dataset's published revision (with its summary, found by search) unless a
 * later one already is.
 */
export function* publish(
  tables: Tables,
  revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
  summary: DatasetSummary,
): Rule<void> {
  const { ownerid, dataset } = revision;
  const asked = yield* answer(tables.revisionFindability(revision));
  const current = yield* answer(tables.dataset(ownerid, dataset));
  const findability = publishedFindability(asked, current);
  yield* answer(tables.setRevisionFindability(revision, findability));
  if (!supersedes(current, revision.revision)) return;
  const modified = new Date().toISOString();
  yield* answer(
    tables.setPublished(ownerid, dataset, {
      ...summary,
      revision: revision.revision,
      findability,
      modified,
    }),
  );
  yield* answer(tables.index(ownerid, dataset));
}

/**
 * Removes a dataset and its revisions (the files stay in their owner's storage), keeping
 * the last revision number its name used: `/v/<N>/` is an address caches keep for a year.
 */
export function* deleteDataset(tables: Tables, ownerid: string, dataset: string): Rule<boolean> {
  const last = yield* answer(tables.lastRevisionUsed(ownerid, dataset));
  if (last > 0) yield* answer(tables.rememberName(ownerid, revisionNameKey(dataset), last));
  yield* answer(tables.unindex(ownerid, dataset));
  yield* answer(tables.deleteRevisions(ownerid, dataset));
  return yield* answer(tables.deleteDataset(ownerid, dataset));
}

/**
 * Counts a derived copy of `bytes` in a cache of `budget` bytes, taking out what it must
 * (copiesToEvict) and returning their keys; undefined, with nothing changed, when the copy
 * cannot fit. A copy counted already returns no keys and is left as it is.
 */
export function* reserveCopy(
  tables: Tables,
  key: string,
  bytes: number,
  budget: number,
): Rule<string[] | undefined> {
  const rows = yield* answer(tables.cachedCopies());
  if (rows.some((row) => row.key === key)) return [];
  const now = Date.now();
  const victims = copiesToEvict(rows, bytes, budget, now);
  if (!victims) return undefined;
  const keys = victims.map((victim) => victim.key);
  if (keys.length > 0) yield* answer(tables.deleteCopies(keys));
  yield* answer(tables.insertCopy(key, bytes, now));
  return keys;
}

/** Which revision `which` names: the latest, the last that succeeded, a number, or none. */
export function revisionAsked(which: string): 'latest' | 'successful' | number | undefined {
  if (which === 'latest' || which === 'successful') return which;
  return /^\d{1,9}$/.test(which) ? Number(which) : undefined;
}

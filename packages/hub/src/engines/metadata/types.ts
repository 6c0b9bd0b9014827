import type { Findability, FlowState } from '@data/core';
import type { MovedTable, Row } from './tables.js';
import type { Organisations, OwnerKind } from './organisations.js';
import type { NamedTokens } from './named-tokens.js';
import type { Publishers } from './publishers.js';

// The protocol's (core protocol/types.ts), which the hub stores as they travel.
export type { Findability } from '@data/core';
export type RevisionState = FlowState;

export interface User {
  userid: string;
  username: string;
  email: string;
  name: string;
  provider: string;
  join_date: string;
  /** A user signs in; an organisation (organisations.ts) never does. Null or absent: a user. */
  kind?: OwnerKind | null;
}

export interface Dataset {
  ownerid: string;
  name: string;
  findability: Findability;
  title: string | null;
  description: string | null;
  published_revision: number | null;
  modified: string;
  /** Of the published revision: the bytes of its own files, its tables' rows, its licence. */
  bytes: number | null;
  row_count: number | null;
  license: string | null;
}

/** What a dataset's listing says of its published revision. */
export interface DatasetSummary {
  title: string | null;
  description: string | null;
  bytes: number | null;
  rows: number | null;
  license: string | null;
}

/** Orders of a listing: newest first, by name, largest first, most rows first. */
export const DATASET_SORTS = ['updated', 'name', 'size', 'rows'] as const;
export type DatasetSort = (typeof DATASET_SORTS)[number];

export interface PipelineStatus {
  title: string;
  status: 'QUEUED' | 'INPROGRESS' | 'SUCCEEDED' | 'FAILED' | 'SKIPPED';
  stats: Record<string, unknown>;
  error_log: string[];
}

export interface Revision {
  ownerid: string;
  dataset: string;
  revision: number;
  state: RevisionState;
  spec: string;
  pipelines: string;
  error_log: string;
  descriptor: string | null;
  report: string | null;
  created: string;
  modified: string;
  /** Set when queued if the spec named one; applied to the dataset when the revision succeeds. */
  findability: Findability | null;
  /** JSON: each local resource path of the revision and the object key holding its bytes. */
  files: string | null;
  /** JSON: its changes since the published revision before it (a ChangeSummary), once summed up. */
  changes: string | null;
  /** JSON: its tables' column statistics (RevisionStats), once computed. */
  stats: string | null;
  /** The id of the request that queued it (X-Request-Id), for the pipeline's log lines. */
  request_id: string | null;
}

/** A revision to queue (`createRevision`): its dataset, what it carries, the owner's limits. */
export interface NewRevision {
  ownerid: string;
  dataset: string;
  /** The findability its spec names, applied once it succeeds; null for none. */
  findability: Findability | null;
  /** JSON of its flow spec. */
  spec: string;
  /** JSON of its pipelines' initial statuses. */
  pipelines: string;
  /** The id of the request that queues it. */
  requestId: string | null;
  limits: { maxDatasets: number; maxStorageBytes: number };
}

/** What `createRevision` did: queued a revision, or refused with the reason. */
export type CreatedRevision =
  | { revision: number }
  | { refused: 'datasets' | 'storage' }
  | { refused: 'name'; existing: string };

/** Who signed in, as a provider tells it. */
export interface Identity {
  provider: string;
  subject: string;
  username: string;
  email: string;
  name: string;
}

export interface LoginCode {
  code: string;
  challenge: string;
  next: string;
  userid: string;
  expires: number;
}

/** A sign-in under way at an identity provider: what the callback needs to finish it. */
export interface LoginState {
  state: string;
  provider: string;
  verifier: string;
  nonce: string;
  /** JSON of where the sign-in goes after the provider: next, response kind, challenge. */
  request: string;
  expires: number;
}

/** What a search returns: a page of datasets with their owners' names, and how many match. */
export interface SearchPage {
  rows: (Dataset & { username: string })[];
  total: number;
}

/** A derived copy the cache counts: kept (`ready`) or being stored. */
export interface CachedCopy {
  key: string;
  bytes: number;
  /** When it was last read or reserved, in milliseconds since the epoch. */
  used: number;
  ready: boolean;
}

/**
 * The hub's metadata: users, stored objects and who holds them, datasets and their
 * revisions, sign-in codes and revoked tokens. One implementation per engine; every service
 * of the hub goes through this.
 */
export interface Metadata {
  /**
   * Changes at every write this process makes and at least every second, so that readers
   * may cache lookups: another process's writes are seen within a second.
   */
  readonly version: string;
  close(): Promise<void>;
  /** Resolves when the database answers a query; rejects when it cannot. */
  ping(): Promise<void>;
  userForIdentity(identity: Identity): Promise<User>;
  userById(userid: string): Promise<User | undefined>;
  userByName(username: string): Promise<User | undefined>;
  holds(ownerid: string, key: string): Promise<boolean>;
  /**
   * Whether this user holds an object that may be a file of this length and head (the MD5
   * of its first HEAD_BYTES): one of the same length whose head matches or was not recorded.
   */
  mayHold(ownerid: string, bytes: number, headMd5: string | undefined): Promise<boolean>;
  hasObject(key: string): Promise<boolean>;
  addHolding(
    key: string,
    ownerid: string,
    bytes: number,
    isPrivate: boolean,
    quota: number,
    headMd5?: string,
  ): Promise<boolean>;
  recordUpload(ownerid: string, path: string, key: string): Promise<void>;
  lastUpload(ownerid: string, path: string): Promise<string | undefined>;
  storageUsed(ownerid: string): Promise<number>;
  dataset(ownerid: string, name: string): Promise<Dataset | undefined>;
  /**
   * The owner's datasets whose names equal this one in any case, in order of name. Names
   * are unique whatever their case; hubs from before that rule may hold more than one.
   */
  datasetsInAnyCase(ownerid: string, name: string): Promise<Dataset[]>;
  /**
   * Queues a revision, making its dataset if it is new: refused past the owner's limits,
   * or (`existing`) when a dataset of the owner already has the name in another case. Both
   * are decided in the transaction that makes the dataset, so that racing publications
   * cannot both pass.
   */
  createRevision(asked: NewRevision): Promise<CreatedRevision>;
  revision(ownerid: string, dataset: string, which: string): Promise<Revision | undefined>;
  updateRevision(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    changes: Partial<
      Pick<Revision, 'state' | 'pipelines' | 'error_log' | 'descriptor' | 'report' | 'files'>
    >,
  ): Promise<void>;
  /**
   * Counts more bytes for a revision in its owner's quota: the files the pipeline wrote for
   * it (descriptor, report, previews), beside its flow spec.
   */
  addRevisionBytes(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    bytes: number,
  ): Promise<void>;
  /** Keeps a published revision's change summary, without counting it as a change of the revision. */
  saveChanges(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    changes: string,
  ): Promise<void>;
  /** Keeps a published revision's column statistics, as saveChanges keeps its summary. */
  saveStats(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    stats: string,
  ): Promise<void>;
  /**
   * Takes the oldest revision waiting to be processed, for `worker` until `leaseUntil`
   * (milliseconds since the epoch): a queued one, or one in progress whose worker's lease
   * ran out (it stopped or died). Revisions of one dataset are taken in order: none while an
   * earlier one is unfinished. No two workers, on any process, take the same revision.
   */
  claimRevision(worker: string, leaseUntil: number): Promise<Revision | undefined>;
  /** Extends a lease the worker still holds; false when the revision is no longer its own. */
  renewLease(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    worker: string,
    leaseUntil: number,
  ): Promise<boolean>;
  /** Whether any revision could be claimed now. */
  hasWaiting(): Promise<boolean>;
  publish(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    summary: DatasetSummary,
  ): Promise<void>;
  /**
   * Records an id until `expires` (s), in the revoked_tokens table: a revoked token's, a traded
   * ID token's, a file a limited credential sent (each named apart: objects.ts, publishers.ts);
   * false when it was recorded already.
   */
  remember(id: string, expires: number): Promise<boolean>;
  /** Whether an id is recorded and its time not over. */
  remembers(id: string): Promise<boolean>;
  /** Organisations and their members' roles (`data org`). */
  readonly organisations: Organisations;
  /** The named tokens users made (`data token create`): hashes and records, never a token. */
  readonly namedTokens: NamedTokens;
  /** Trusted publishers: the CI workflows that may publish each dataset (`data publisher`). */
  readonly publishers: Publishers;
  /**
   * A value every hub process shares, set once: the first process to offer one sets it,
   * and every process, then and later, reads that one.
   */
  sharedValue(name: string, offer: () => string): Promise<string>;
  /** Every row of a table, for copying to another engine. */
  exportRows(table: MovedTable): AsyncIterable<Row>;
  /** Rows copied from another engine; rows already here (by primary key) stay as they are. */
  importRows(table: MovedTable, rows: Row[]): Promise<void>;
  saveLoginCode(code: LoginCode): Promise<void>;
  takeLoginCode(code: string): Promise<LoginCode | undefined>;
  saveLoginState(state: LoginState): Promise<void>;
  takeLoginState(state: string): Promise<LoginState | undefined>;
  revisions(ownerid: string, dataset: string): Promise<Revision[]>;
  /** The bytes of a derived copy the cache keeps, marking it used now; undefined if not kept. */
  cachedCopy(key: string): Promise<number | undefined>;
  /**
   * Counts a copy of `bytes` in a cache of `budget` bytes, taking out what it must (see
   * copiesToEvict) and returning their keys for the caller to delete; undefined, with
   * nothing changed, when the copy cannot fit. The copy is read only once `keptCopy` says
   * it is stored. A copy counted already returns no keys and is left as it is.
   */
  reserveCopy(key: string, bytes: number, budget: number): Promise<string[] | undefined>;
  keptCopy(key: string): Promise<void>;
  /** Forgets the copies whose keys start with the prefix; returns their keys. */
  dropCopies(prefix: string): Promise<string[]>;
  /** Marks a holding used now: garbage collection keeps what was used within its grace. */
  touchHolding(ownerid: string, key: string): Promise<void>;
  /** Holdings no queued, running or published revision of their owner uses, made before `before` (ISO). */
  unusedHoldings(before: string): Promise<{ ownerid: string; key: string; bytes: number }[]>;
  /** Removes a holding if it is still unused and older than `before`; whether it did. */
  dropUnusedHolding(ownerid: string, key: string, before: string): Promise<boolean>;
  /** How many users hold the object. */
  holdingCount(key: string): Promise<number>;
  /** Objects no one holds, made before `before`. */
  unheldObjects(before: string): Promise<{ key: string; bytes: number }[]>;
  /** Marks an object no one holds as being collected; false when someone holds it. */
  markCollecting(key: string): Promise<boolean>;
  /** Forgets a collected object if it is still marked; whether it did. */
  dropCollected(key: string): Promise<boolean>;
  /** Revisions waiting or in progress, and when the oldest of them was created (ms). */
  queue(): Promise<{ depth: number; oldest: number | undefined }>;
  /** Bytes of the stored objects (the files users uploaded), and how many. */
  objectUsage(): Promise<{ bytes: number; objects: number }>;
  /** Bytes the derived-copy cache counts, and how many copies. */
  cacheUsage(): Promise<{ bytes: number; copies: number }>;
  deleteDataset(ownerid: string, dataset: string): Promise<boolean>;
  search(
    text: string,
    viewer: string | undefined,
    size: number,
    from: number,
    ownerid?: string,
    sort?: DatasetSort,
  ): Promise<SearchPage>;
}

/** The database an address names cannot be opened or reached: why, in the engine's words. */
export class DatabaseUnavailable extends Error {
  override readonly name = 'DatabaseUnavailable';
}

import type { LogFormat } from './logger.js';

/** What the operator sets of a hub: its folder, its quotas and the limits of one package. */
export interface HubOptions {
  dataDir: string;
  /** How the log is written: text lines for a terminal, or JSON objects for a collector. */
  logFormat: LogFormat;
  /** User tokens live this many days. */
  tokenDays: number;
  /** Named tokens (`data token create`) live this many days at most. */
  maxTokenDays: number;
  /** What one user may make: organisations, named tokens, datasets named by one token. */
  caps: HubCaps;
  maxStorageBytes: number;
  maxDatasets: number;
  /** Hosts the pipeline may fetch remote resources and schemas from: none by default. */
  fetchHosts: string[];
  /**
   * The OpenID issuers whose ID tokens the hub trades for a token that may publish one
   * dataset (trusted publishing): none by default, which turns it off.
   */
  trustedIssuers: string[];
  limits: HubLimits;
  /**
   * Bytes the cache of derived copies (CSV, JSON, zip made when asked for) may keep in all,
   * whatever the owners' quotas: least recently read copies go first.
   */
  derivedCacheBytes: number;
  /** The table viewer's engine: its memory, threads, questions at once and their time. */
  viewer?: Partial<ViewerOptions> | undefined;
}

/** The table viewer's DuckDB (services/viewer/duckdb.ts). */
export interface ViewerOptions {
  /** DuckDB's memory_limit, in MB: beyond it, sorts and aggregates spill to the scratch folder. */
  memoryMb: number;
  /** DuckDB's worker threads. */
  threads: number;
  /** Questions answered at once. */
  queries: number;
  /** Questions that wait for a turn; past them the hub answers 503. */
  queued: number;
  /** Seconds one question of a page may take before it is interrupted. */
  querySeconds: number;
  /** MB of Parquet copies the viewer keeps as local files (those of an S3 bucket, say). */
  cacheMb: number;
  /**
   * DuckDB's memory_limit for column statistics, in MB: they are computed by an instance of
   * their own, one thread and one table at a time, open while there are statistics to make.
   */
  statsMemoryMb: number;
}

export const DEFAULT_VIEWER: ViewerOptions = {
  memoryMb: 256,
  threads: 2,
  queries: 2,
  queued: 16,
  querySeconds: 10,
  cacheMb: 1024,
  statsMemoryMb: 64,
};

export const DEFAULT_DERIVED_CACHE_MB = 1024;

/**
 * What one user may make, so that nobody squats names or fills the database: organisations
 * they are an admin of (making another is refused past it), named tokens they hold,
 * datasets one token names, and trusted publishers of one owner's datasets in all (each
 * dataset has at most 20 besides). Each is counted and made in one transaction.
 */
export interface HubCaps {
  maxOrganisationsPerUser: number;
  maxTokensPerUser: number;
  maxDatasetsPerToken: number;
  maxPublishersPerOwner: number;
}

export const DEFAULT_CAPS: HubCaps = {
  maxOrganisationsPerUser: 10,
  maxTokensPerUser: 50,
  maxDatasetsPerToken: 50,
  maxPublishersPerOwner: 100,
};

/** What one package may ask of the hub; past these it fails with a plain reason. */
export interface HubLimits {
  /** Resources in one descriptor. */
  resources: number;
  /** Bytes of one flow spec (the descriptor is inside it) and of any JSON body. */
  specBytes: number;
  /** Heap of the worker that validates one revision, in MB. */
  processingMemoryMb: number;
  /** Characters in one row of a table. */
  rowChars: number;
  /** Cells in one row of a table. */
  columns: number;
  /** Seconds one revision's processing may take before it is stopped and fails. */
  processingSeconds: number;
}

export const DEFAULT_LIMITS: HubLimits = {
  resources: 1000,
  specBytes: 4 * 1024 * 1024,
  processingMemoryMb: 256,
  rowChars: 16 * 1024 * 1024,
  columns: 10_000,
  processingSeconds: 300,
};

export type MetricsAccess = { enabled: false } | { enabled: true; token?: string | undefined };

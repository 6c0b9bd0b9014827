/**
 * The parts of a running hub that its services use. A service takes those it uses, as
 * `Pick<HubParts, …>`, never the whole hub: what it can touch is in its signature, a test
 * can hand it just those parts, and no service depends on the HTTP side (context.ts).
 */
import type { Metadata } from './engines/metadata/types.js';
import type { Storage } from './engines/storage/types.js';
import type { HubLog } from './logger.js';
import type { HubMetrics } from './metrics.js';
import type { HubOptions } from './options.js';
import type { BoundedCache } from './bounded-cache.js';
import type { Keys } from './services/tokens.js';

export interface HubParts {
  readonly options: HubOptions;
  /** The metadata database. */
  readonly store: Metadata;
  /** The keys that sign tokens and upload forms. */
  readonly keys: Keys;
  /** The origin the hub is reached at, e.g. http://127.0.0.1:8080 (no trailing slash). */
  readonly base: string;
  /** Objects, staged uploads and the files the pipeline writes: a folder or a bucket. */
  readonly storage: Storage;
  /** This process's own scratch folder, always local. */
  readonly tmpDir: string;
  /** Read lookups, each valid while the store's version is the one it was made at. */
  readonly lookups: BoundedCache<{ version: string; value: unknown }>;
  /** Where problems that are not a client's fault are reported, for the operator. */
  readonly log: HubLog;
  readonly metrics: HubMetrics;
}

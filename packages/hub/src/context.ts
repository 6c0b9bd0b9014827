/**
 * The hub as its HTTP handlers see it: the parts its services use (parts.ts) and what only
 * requests need (identity providers, the derived copies, readiness, who may read metrics).
 */
import type { Copies } from './services/copies/copies.js';
import type { Provider } from './engines/providers/types.js';
import type { MetricsAccess } from './options.js';
import type { HubParts } from './parts.js';
import type { IdTokenVerifier } from './services/trusted-publishing.js';
import type { TableViewer } from './services/viewer/engine.js';

export interface Hub extends HubParts {
  /** Identity providers the operator configured, by name. */
  readonly providers: ReadonlyMap<string, Provider>;
  /** Whether the development sign-in (a form that believes what it is told) is offered. */
  readonly devSignIn: boolean;
  /** Says a revision was queued (in the database): this process's idle workers look at once. */
  enqueue(): void;
  /** The derived copies, made when first asked for. */
  readonly copies: Copies;
  /** The table viewer: pages of a table sorted, filtered and searched, and its statistics. */
  readonly viewer: TableViewer;
  /** Set once the process begins to shut down: it is then no longer ready. */
  readonly lifecycle: { stopping: boolean };
  /** Who may read /metrics: nobody (off), anyone who reaches the hub, or bearers of a token. */
  readonly metricsAccess: MetricsAccess;
  /** Checks the ID tokens trusted publishing trades, against the issuers the operator trusts. */
  readonly idTokens: IdTokenVerifier;
}

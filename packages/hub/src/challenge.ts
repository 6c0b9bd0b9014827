/**
 * The challenge of a refusal for want of scope (RFC 6750 3.1): a 403 to a token whose scope,
 * or list of datasets, does not allow what it asked says `WWW-Authenticate: Bearer
 * error="insufficient_scope", scope="…"`, naming the least scope that does. The refusal is
 * decided by the access rule (services/access.ts, credentialRefusal), which knows no
 * response: the response being answered is found here, for the request in progress, so that
 * every route that refuses a credential its scope says it, however it sends the 403.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { Scope } from './caller.js';

const answering = new AsyncLocalStorage<ServerResponse>();

/** Runs the answer of one request, whose refusals for want of scope are challenged. */
export function answeringWith<T>(response: ServerResponse, run: () => T): T {
  return answering.run(response, run);
}

/** The challenge of a refusal that wants this scope. */
export function insufficientScope(scope: Scope): string {
  return `Bearer realm="data hub", error="insufficient_scope", scope="${scope}"`;
}

/** Says, on the answer in progress, that what was asked wants this scope. */
export function challengeScope(scope: Scope): void {
  const response = answering.getStore();
  if (response && !response.headersSent)
    response.setHeader('WWW-Authenticate', insufficientScope(scope));
}

import { makeDirectorySync, visibleLayout } from '@data/core';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as auth from './http/auth.js';
import type { Hub } from './context.js';
import type { HubParts } from './parts.js';
import { HubRefused } from './refused.js';
import { answeringWith } from './challenge.js';
import {
  DEFAULT_CAPS,
  DEFAULT_DERIVED_CACHE_MB,
  DEFAULT_LIMITS,
  type HubCaps,
  type HubLimits,
  type HubOptions,
  type MetricsAccess,
} from './options.js';
import { Copies } from './services/copies/copies.js';
import { TableViewer } from './services/viewer/engine.js';
import { tableRows } from './http/table-rows.js';
import { BoundedCache } from './bounded-cache.js';
import type { Provider } from './engines/providers/types.js';
import * as frontend from './http/frontend.js';
import * as health from './http/health.js';
import { HubMetrics } from './metrics.js';
import { hubLog, type HubLog, type LogFormat } from './logger.js';
import { randomUUID } from 'node:crypto';
import { revisionDiff } from './http/revision-diff.js';
import { HttpError } from './http-error.js';
import { HTML, redirect, segmentsOf, sendJson, sendText, type Request } from './http/request.js';
import * as metastore from './http/metastore.js';
import * as pipelineStore from './http/pipeline-store.js';
import * as publishers from './http/publishers.js';
import * as rawstore from './http/rawstore.js';
import * as resumable from './http/resumable.js';
import { OBJECT_KEY } from './services/objects.js';
import * as tokens from './http/tokens.js';
import { bearerChallenge, refuseDeadCredential } from './http/callers.js';
import * as orgs from './http/orgs.js';
import * as read from './http/read.js';
import { Runner, type RunnerHooks, type RunnerOptions } from './services/pipeline/runner.js';
import { openMetadata } from './engines/metadata/open.js';
import { DatabaseUnavailable } from './engines/metadata/types.js';
import { scratchFolder } from './services/scratch.js';
import { openStorage } from './engines/storage/open.js';
import { StorageAddressError, type Storage } from './engines/storage/types.js';
import { loadKeys } from './services/tokens.js';
import { allowedMethods, ROUTES, sameForAll, type FixedRoute, type PATTERNS } from './routes.js';
import { DEFAULT_MAX_TOKEN_DAYS } from './services/named-tokens.js';
import { isReservedName } from './names.js';
import { allowCrossOriginRead, answerPreflight, crossOriginReadable } from './http/cors.js';
import { revisionParam, versionedAddress } from './http/published.js';
import { isRevisionNumber } from './services/published.js';
import { IdTokenVerifier, issuerProblem } from './services/trusted-publishing.js';
import { errorPage, notFoundPage } from './views/layout.js';

export interface StartOptions extends Partial<Omit<HubOptions, 'limits' | 'caps'>> {
  dataDir: string;
  /** The metadata database: a SQLite file (default <dataDir>/hub.sqlite) or postgres://… */
  database?: string | undefined;
  /** Where the bytes go: a folder (default dataDir), file://… or s3://bucket[/prefix]?… */
  storage?: string | undefined;
  limits?: Partial<HubLimits>;
  /** What one user may make; the others their defaults. */
  caps?: Partial<HubCaps>;
  host?: string;
  port?: number;
  /** Identity providers; the development sign-in is offered besides them only on loopback. */
  providers?: Provider[];
  /** Offers the development sign-in beyond loopback too (the operator said so). */
  devSignIn?: boolean;
  /** The address users reach the hub at, when a proxy stands in front (https://hub.example.org). */
  publicUrl?: string;
  hooks?: RunnerHooks;
  /** The pipeline's workers: lease, polling and how many revisions at once. */
  pipeline?: RunnerOptions;
  /**
   * What this process does: `api` answers requests and processes nothing, `worker`
   * processes revisions and listens on no port, `all` (the default) both.
   */
  role?: HubRole;
  /** Where problems that are not the client's fault are reported. */
  log?: (line: string) => void;
  /** How long requests in flight may take to finish once the hub is asked to stop. */
  shutdownSeconds?: number;
  /** text: a line per problem; json: an object per line, requests answered included. */
  logFormat?: LogFormat;
  /**
   * `/metrics`: on by default on loopback only, since metrics tell of traffic; beyond it
   * when the operator turns it on, behind a bearer token if one is given.
   */
  metrics?: { enabled?: boolean | undefined; token?: string | undefined } | undefined;
}

function metricsAccess(options: StartOptions, host: string): MetricsAccess {
  const enabled = options.metrics?.enabled ?? isLoopback(host);
  return enabled ? { enabled, token: options.metrics?.token } : { enabled };
}

export const DEFAULT_SHUTDOWN_SECONDS = 30;

export type HubRole = 'api' | 'worker' | 'all';

export interface RunningHub {
  readonly url: string;
  readonly hub: Hub;
  readonly runner: Runner;
  close(): Promise<void>;
}

type Route = (hub: Hub, request: Request, response: ServerResponse) => Promise<void> | void;

/** A handler for each route without parameters, and for no other: routes.ts lists them. */
const API: Record<FixedRoute, Route> = {
  'GET /auth/check': auth.check,
  'GET /auth/authorize': auth.authorize,
  'GET /auth/public-key': auth.publicKey,
  'GET /auth/resolve': auth.resolve,
  'GET /auth/login': auth.chooseProvider,
  'GET /auth/login/local': auth.loginForm,
  'POST /auth/login/local': auth.loginSubmit,
  'POST /auth/continue': auth.continueSignIn,
  'POST /auth/token': auth.exchangeCode,
  'POST /auth/logout': auth.logout,
  'POST /auth/trusted': publishers.trade,
  'GET /auth/logout': auth.signOutForm,
  'GET /static/hub.css': frontend.stylesheet,
  'GET /static/hub.js': frontend.script,
  'GET /static/favicon.svg': frontend.favicon,
  'GET /favicon.ico': frontend.favicon,
  'POST /rawstore/authorize': rawstore.authorize,
  'POST /rawstore/objects': rawstore.upload,
  'GET /rawstore/presign': rawstore.presign,
  'GET /rawstore/uploads': resumable.plan,
  'PUT /rawstore/uploads': resumable.write,
  'POST /rawstore/uploads': resumable.complete,
  'POST /source/upload': pipelineStore.upload,
  'GET /metastore/search': metastore.search,
  'GET /': frontend.home,
  'GET /healthz': health.healthz,
  'GET /readyz': health.readyz,
  'GET /metrics': health.metrics,
  'POST /api/tokens': tokens.create,
  'GET /api/tokens': tokens.list,
  'GET /settings/tokens': tokens.page,
  'POST /settings/tokens/revoke': tokens.revokeFromPage,
  'POST /api/orgs': orgs.create,
};

type Template = (typeof PATTERNS)[number] extends `${string} ${infer Path}` ? Path : never;

export { ROUTES };

async function route(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const path = request.url.pathname.replace(/\/+$/, '') || '/';
  const fixed = (API as Partial<Record<string, Route>>)[`${method} ${path}`];
  const at = (template: Template) => (request.route = template);
  if (fixed) {
    request.route = path;
    return fixed(hub, request, response);
  }
  const [first, second, third, fourth] = request.segments;
  const count = request.segments.length;
  if (first === 'api' && second === 'publishers' && third && fourth && count <= 5)
    return publishersRoute(hub, request, response);
  if (first === 'api' && second === 'orgs' && third && fourth === 'members' && count <= 5)
    return orgsRoute(hub, request, response);
  if (method === 'DELETE' && first === 'source' && second && third && count === 3) {
    at('/source/:ownerid/:dataset');
    return pipelineStore.remove(hub, request, response, second, third);
  }
  if (method === 'DELETE' && first === 'api' && second === 'tokens' && third && count === 3) {
    at('/api/tokens/:name');
    return tokens.revoke(hub, request, response, third);
  }
  if (method === 'DELETE' && first === 'api' && second === 'orgs' && third && count === 3) {
    at('/api/orgs/:org');
    return orgs.deleteOrganisation(hub, request, response, third);
  }
  // Past the changes the table has, an address is a 405 only where the table has it (its
  // Allow names the methods); anywhere else, as under a name nobody has, a 404.
  if (method !== 'GET') throw unmatched(request);
  if (first === 'auth' && (second === 'login' || second === 'callback') && third && count === 3) {
    at(second === 'login' ? '/auth/login/:provider' : '/auth/callback/:provider');
    return second === 'login'
      ? auth.beginProviderSignIn(hub, request, response, third)
      : auth.providerCallback(hub, request, response, third);
  }
  if (first === 'rawstore' && second === 'objects' && third && count === 3) {
    at('/rawstore/objects/:key');
    if (!OBJECT_KEY.test(third)) throw new HttpError(404, 'not found');
    return rawstore.object(hub, request, response, third);
  }
  if (first === 'source' && second && third && fourth && count === 4) {
    at(
      fourth === 'revisions'
        ? '/source/:ownerid/:dataset/revisions'
        : '/source/:ownerid/:dataset/:revision',
    );
    return pipelineStore.status(hub, request, response, second, third, fourth);
  }
  if (!first || isReservedName(first)) throw unmatched(request);
  try {
    return await readRoute(hub, request, response);
  } catch (error) {
    // A name in another case is the same name: the read goes to the address as named.
    const moved =
      error instanceof HttpError && error.status === 404 && !response.headersSent
        ? await read.canonicalAddress(hub, request)
        : undefined;
    if (moved === undefined) throw error;
    redirect(response, moved, 301);
  }
}

/**
 * The refusal of an address no route takes under the request's method: a 405 when the route
 * table has it under another (the answer's Allow names them), else a 404. Decided here, from
 * the table, for every route: `GET /api/orgs` is a 405, not a missing page.
 */
function unmatched(request: Request): HttpError {
  const methods = allowedMethods(request.segments, '');
  return methods.length > 0 && !methods.includes(request.method)
    ? new HttpError(405, 'method not allowed')
    : new HttpError(404, 'not found');
}

/** `/api/publishers/:owner/:dataset` (GET, POST) and `…/:id` (DELETE): trusted publishers. */
function publishersRoute(hub: Hub, request: Request, response: ServerResponse) {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const [, , owner = '', dataset = '', id] = request.segments;
  if (id === undefined) {
    request.route = '/api/publishers/:owner/:dataset';
    if (method === 'GET') return publishers.list(hub, request, response, owner, dataset);
    if (method === 'POST') return publishers.add(hub, request, response, owner, dataset);
  } else {
    request.route = '/api/publishers/:owner/:dataset/:id';
    if (method === 'DELETE') return publishers.remove(hub, request, response, owner, dataset, id);
  }
  throw new HttpError(405, 'method not allowed');
}

/** `/api/orgs/:org/members` (GET) and `…/:user` (PUT, DELETE): an organisation's members. */
function orgsRoute(hub: Hub, request: Request, response: ServerResponse) {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const [, , org = '', , user] = request.segments;
  if (user === undefined) {
    request.route = '/api/orgs/:org/members';
    if (method === 'GET') return orgs.members(hub, request, response, org);
  } else {
    request.route = '/api/orgs/:org/members/:user';
    if (method === 'PUT') return orgs.setMember(hub, request, response, org, user);
    if (method === 'DELETE') return orgs.removeMember(hub, request, response, org, user);
  }
  throw new HttpError(405, 'method not allowed');
}

/** The reads of `/<owner>/…`: pages, descriptors, files and their copies. */
async function readRoute(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const at = (template: Template) => (request.route = template);
  const [first = '', second, third, fourth] = request.segments;
  const count = request.segments.length;
  if (count === 1) {
    at('/:owner');
    return frontend.owner(hub, request, response, first);
  }
  if (!second) throw new HttpError(404, 'not found');
  if (count === 2) {
    at('/:owner/:dataset');
    return frontend.dataset(hub, request, response, first, second);
  }
  if (count === 4 && third === 'diff' && fourth) {
    at('/:owner/:dataset/diff/:range');
    return revisionDiff(hub, request, response, first, second, fourth);
  }
  if (count === 4 && third === 'v' && isRevisionNumber(fourth)) {
    at('/:owner/:dataset/v/:revision');
    return frontend.dataset(hub, request, response, first, second, Number(fourth));
  }
  if (count === 5 && third === 'v' && isRevisionNumber(fourth) && request.segments[4] === 'rows') {
    at('/:owner/:dataset/v/:revision/rows');
    return tableRows(hub, request, response, first, second, fourth);
  }
  if (count >= 5 && third === 'v' && isRevisionNumber(fourth)) {
    return versionedRead(hub, request, response);
  }
  if (count === 3 && third === 'rows') {
    at('/:owner/:dataset/rows');
    return tableRows(hub, request, response, first, second, null);
  }
  // `?v=N` of a file moves to revision N's own address; of the descriptor, see below.
  const asked = revisionParam(request);
  const send = (pick: read.Pick) =>
    asked === null
      ? read.sendPublished(hub, request, response, first, second, pick)
      : toRevision(request, response, asked);
  if (count === 3 && (third === 'datapackage.json' || third === 'validation_report.json')) {
    at(
      third === 'datapackage.json'
        ? '/:owner/:dataset/datapackage.json'
        : '/:owner/:dataset/validation_report.json',
    );
    // Read where a redirect would not help: a reader resolves the descriptor's relative
    // paths against the address it asked, so they are written to reach `v/N/…` from it.
    if (asked !== null && third === 'datapackage.json')
      return read.sendDescriptorAt(hub, request, response, first, second, asked);
    return send(read.stored(third));
  }
  if (count === 4 && third === 'r' && fourth) {
    at('/:owner/:dataset/r/:file');
    return send(read.byFileName(fourth));
  }
  at('/:owner/:dataset/:path');
  return send(read.atPath(request.segments.slice(2).join('/')));
}

/**
 * A read of a file of the latest at `?v=N` sent to revision N's address: the same for
 * everyone, as what it names is, so a cache may keep it whoever asked; sent whether or not
 * the revision is there or may be seen, which the address it names answers.
 */
function toRevision(request: Request, response: ServerResponse, revision: string): void {
  response.setHeader('Cache-Control', 'public, max-age=86400');
  response.removeHeader('Vary');
  redirect(response, versionedAddress(request, revision), 301);
}

/**
 * The reads of `/<owner>/<dataset>/v/<N>/…`: revision N's descriptor, report and files, at
 * addresses whose bytes never change. A revision that did not succeed, or is hidden from
 * the reader, is not there.
 */
async function versionedRead(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const at = (template: Template) => (request.route = template);
  const [owner = '', dataset = '', , revision = '', file, name] = request.segments;
  if (!isRevisionNumber(revision)) throw new HttpError(404, 'not found');
  const count = request.segments.length;
  const send = (pick: read.Pick) =>
    read.sendPublished(hub, request, response, owner, dataset, pick, revision);
  if (count === 5 && (file === 'datapackage.json' || file === 'validation_report.json')) {
    at(
      file === 'datapackage.json'
        ? '/:owner/:dataset/v/:revision/datapackage.json'
        : '/:owner/:dataset/v/:revision/validation_report.json',
    );
    return send(read.stored(file));
  }
  if (count === 6 && file === 'r' && name) {
    at('/:owner/:dataset/v/:revision/r/:file');
    return send(read.byFileName(name));
  }
  at('/:owner/:dataset/v/:revision/:path');
  return send(read.atPath(request.segments.slice(4).join('/')));
}

/** Routes that are the operator's, not users': not counted as requests. */
const OPERATIONS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * What each connection had carried when its last request was answered: a request's bytes
 * are what its connection carried since (headers and body, however they were buffered).
 */
const carried = new WeakMap<Socket, { read: number; written: number }>();

/** Counts and logs each answered request by its route template, with its time and its bytes. */
function measure(hub: Hub, request: Request, response: ServerResponse): void {
  const started = performance.now();
  const socket = request.raw.socket;
  response.once('close', () => {
    const before = carried.get(socket) ?? { read: 0, written: 0 };
    const now = { read: socket.bytesRead, written: socket.bytesWritten };
    carried.set(socket, now);
    if (OPERATIONS.has(request.route)) return;
    const seconds = (performance.now() - started) / 1000;
    hub.metrics.request(request.route, request.method, response.statusCode, seconds);
    hub.metrics.bytes(now.read - before.read, now.written - before.written);
    hub.log('request', {
      level: 'info',
      requestId: request.id,
      route: request.route,
      method: request.method,
      status: response.statusCode,
      durationMs: Math.round(seconds * 1000),
      ...(request.userId ? { userId: request.userId } : {}),
    });
  });
}

/** A proxy's request id when it looks like one (so that its logs and ours meet), else a new one. */
function requestId(incoming: IncomingMessage): string {
  const given = incoming.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : randomUUID();
}

function wantsHtml(request: IncomingMessage): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * Headers of every answer: pages cannot be framed, sniffed into scripts or leak their
 * address, and a cache in front of the hub (a CDN) keeps no answer that does not say it may:
 * pages and API answers depend on who asks.
 */
const SECURITY_HEADERS = {
  'Cache-Control': 'private, no-cache',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self' http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/**
 * The request headers a credential rides in: the `Auth-Token` header and the pages' session
 * cookie (tokenOf in context.ts), and `Authorization` (the bearer token of /metrics). Every
 * answer that may depend on who asks names them in Vary (RFC 9110 12.5.5), so that a cache
 * keeps one answer per credential and never gives one reader's answer to another.
 */
const CREDENTIAL_HEADERS = 'Auth-Token, Cookie, Authorization';

/** A request target fit for a log: credentials and one-time values in the query are hidden. */
export function loggableTarget(target: string): string {
  const [path = '', query] = target.split('?', 2);
  if (query === undefined) return path;
  const params = new URLSearchParams(query);
  for (const name of [...params.keys()])
    if (/^(jwt|token|code|state|signature|code_verifier|code_challenge|ticket|csrf)$/i.test(name))
      params.set(name, '[hidden]');
  return `${path}?${params.toString()}`;
}

/** The request stream's own error: its connection closed before the request's end. */
function clientWentAway(incoming: IncomingMessage, error: unknown): boolean {
  return incoming.errored !== null && error === incoming.errored;
}

/**
 * The response closed before its end with no error of the hub's: its connection was closed
 * by the client (the hub destroys a response it cuts short with the error that cut it). What
 * the request failed with says nothing of it: a stream the hub was sending fails in its own
 * way when it is torn down, as a store's answer from S3, whose connection is then closed,
 * fails with 'aborted' just as when the store breaks it off.
 */
function responseClosedByClient(response: ServerResponse): boolean {
  return response.destroyed && !response.writableFinished && response.errored == null;
}

function handler(hub: Hub, log: HubLog) {
  return (incoming: IncomingMessage, response: ServerResponse): void => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
    if (!sameForAll((incoming.url ?? '/').split('?')[0] ?? '/'))
      response.setHeader('Vary', CREDENTIAL_HEADERS);
    const respond = async (): Promise<void> => {
      const target = incoming.url ?? '/';
      // Segments come from the raw target: URL parsing would resolve "%2e%2e" before we see it.
      const segments = segmentsOf(target.split('?')[0] ?? '/');
      const url = new URL(target, hub.base);
      const request: Request = {
        raw: incoming,
        method: incoming.method ?? 'GET',
        url,
        segments,
        route: 'other',
        id: requestId(incoming),
      };
      response.setHeader('X-Request-Id', request.id);
      measure(hub, request, response);
      if (crossOriginReadable(url.pathname, segments)) {
        if (request.method === 'OPTIONS') return answerPreflight(response);
        if (request.method === 'GET' || request.method === 'HEAD') allowCrossOriginRead(response);
      }
      await refuseDeadCredential(hub, request, response);
      await route(hub, request, response);
    };
    answeringWith(response, respond).catch((error: unknown) => {
      // A client that went away mid-request (a cancelled upload) is no fault of the hub's,
      // and there is no one left to answer.
      if (response.headersSent || clientWentAway(incoming, error)) {
        // Cut short, so that no client takes a part for the whole; why is the operator's,
        // unless the client is what went away (its response closed before its end).
        const closedByClient = clientWentAway(incoming, error) || responseClosedByClient(response);
        if (!closedByClient)
          log(
            `${incoming.method ?? ''} ${loggableTarget(incoming.url ?? '')} cut short: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
            { requestId: String(response.getHeader('X-Request-Id') ?? '') },
          );
        response.destroy();
        return;
      }
      if (error instanceof HttpError) return answerError(incoming, response, error);
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC')
        return sendText(response, 507, 'the hub has run out of storage space; try again later');
      log(
        `internal error on ${incoming.method ?? ''} ${loggableTarget(incoming.url ?? '')}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        { requestId: String(response.getHeader('X-Request-Id') ?? '') },
      );
      sendJson(response, 500, { error: 'internal error' });
    });
  };
}

/**
 * The answer of a refusal: a 405 names its address's methods in Allow (an address that
 * answers none is not there: RFC 9110 15.5.6 reads an empty Allow as a resource that allows
 * nothing), a 401 how to authenticate (RFC 9110 15.5.2; a refused token's says why); to a
 * browser, a missing page or a form's refusal is a page of the site with a way back.
 */
function answerError(incoming: IncomingMessage, response: ServerResponse, error: HttpError): void {
  let refusal = error;
  if (refusal.status === 405) {
    const path = segmentsOf((incoming.url ?? '/').split('?')[0] ?? '/');
    const allow = allowedMethods(path, incoming.method ?? '');
    if (allow.length === 0) refusal = new HttpError(404, 'not found');
    else response.setHeader('Allow', allow.join(', '));
  }
  const { status, message } = refusal;
  if (status === 401 && !response.hasHeader('WWW-Authenticate'))
    response.setHeader('WWW-Authenticate', bearerChallenge(false));
  if (status === 404 && wantsHtml(incoming)) return sendText(response, 404, notFoundPage(), HTML);
  if (refusal.asText && wantsHtml(incoming))
    return sendText(response, status, errorPage(status, message, wayBack(incoming)), HTML);
  return refusal.asText
    ? sendText(response, status, message)
    : sendJson(response, status, { error: message });
}

/** Where a browser refused by a form goes on: the page that form is on, made afresh. */
function wayBack(incoming: IncomingMessage): { href: string; label: string } {
  const path = (incoming.url ?? '/').split('?')[0] ?? '/';
  if (path.startsWith('/settings/tokens'))
    return { href: '/settings/tokens', label: 'Back to your tokens' };
  if (path.startsWith('/auth/logout'))
    return { href: '/auth/logout', label: 'Back to signing out' };
  if (path.startsWith('/auth/')) return { href: '/auth/login', label: 'Sign in again' };
  return { href: '/', label: 'Back to the hub' };
}

const LOOKUP_CACHE_BYTES = 32 * 1024 * 1024;

/** Whether an address to listen on reaches this machine only. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const DATABASE_HINT =
  'the database is a SQLite file in a folder you can write to, or postgres://user@host/database of a PostgreSQL that takes connections from here';

/** The storage an address names; a bucket that cannot be reached stops the start. */
async function openHubStorage(address: string, dataDir: string): Promise<Storage> {
  try {
    return await openStorage(address);
  } catch (error) {
    if (error instanceof StorageAddressError) throw new HubRefused(error.message, error.hint);
    const code = (error as NodeJS.ErrnoException).code;
    if (address !== dataDir && typeof code === 'string' && code.startsWith('E'))
      throw new HubRefused(
        `the storage folder cannot be used: ${(error as Error).message}`,
        'choose a storage folder you can write to',
        'storage',
      );
    throw error;
  }
}

async function listen(hub: Hub, log: HubLog, host: string, port: number): Promise<Server> {
  const server: Server = createServer(handler(hub, log));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/** Starts the hub: every service of the protocol on one origin, all state under dataDir. */
export async function startHub(options: StartOptions): Promise<RunningHub> {
  // Refused before the data folder, storage or database is touched: nothing to close.
  const host = options.host ?? '127.0.0.1';
  const providers = new Map((options.providers ?? []).map((provider) => [provider.name, provider]));
  const devSignIn = options.devSignIn ?? isLoopback(host);
  if (!devSignIn && providers.size === 0)
    throw new HubRefused(
      `a hub listening on ${host} needs a sign-in provider`,
      'configure one in the hub configuration, or allow the development sign-in for a development hub',
      'sign-in',
    );
  for (const issuer of options.trustedIssuers ?? []) {
    const problem = issuerProblem(issuer);
    if (problem !== undefined)
      throw new HubRefused(
        `a trusted issuer cannot be used: ${problem}`,
        'list in trustedIssuers the https address of each issuer, as its tokens say it',
      );
  }
  const dataDir = options.dataDir;
  makeDirectorySync(dataDir);
  const storage = await openHubStorage(options.storage ?? dataDir, dataDir);
  // What a stopped hub left half-done goes; another running process's work stays.
  const dirs = { storage, tmpDir: scratchFolder(join(dataDir, 'tmp')) };
  const store = await openMetadata(options.database ?? join(dataDir, 'hub.sqlite')).catch(
    (error: unknown) => {
      storage.close();
      if (error instanceof DatabaseUnavailable)
        throw new HubRefused(error.message, DATABASE_HINT, 'database');
      throw error;
    },
  );
  const keys = await loadKeys(dataDir, store);
  const settings: HubOptions = {
    dataDir,
    logFormat: options.logFormat ?? 'text',
    tokenDays: options.tokenDays ?? 14,
    maxStorageBytes: options.maxStorageBytes ?? 10 * 1024 ** 3,
    maxDatasets: options.maxDatasets ?? 1000,
    maxTokenDays: options.maxTokenDays ?? DEFAULT_MAX_TOKEN_DAYS,
    fetchHosts: options.fetchHosts ?? [],
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    caps: { ...DEFAULT_CAPS, ...options.caps },
    derivedCacheBytes: options.derivedCacheBytes ?? DEFAULT_DERIVED_CACHE_MB * 1024 * 1024,
    trustedIssuers: options.trustedIssuers ?? [],
  };
  // Log lines quote what users sent (names, paths, messages): shown on the operator's
  // terminal with their control characters escaped, stack traces keeping their lines.
  const logFormat = settings.logFormat;
  const shown = logFormat === 'text' ? visibleLayout : (line: string) => line;
  const log = hubLog(
    logFormat,
    options.log ?? ((line: string) => void process.stderr.write(`${shown(line)}\n`)),
  );
  const queue: { runner?: Runner } = {};
  const parts: HubParts = {
    options: settings,
    store,
    keys,
    base: '',
    ...dirs,
    log,
    lookups: new BoundedCache(LOOKUP_CACHE_BYTES),
    metrics: new HubMetrics(store),
  };
  const copies = new Copies(parts);
  const hub: { -readonly [K in keyof Hub]: Hub[K] } = {
    ...parts,
    providers,
    devSignIn,
    enqueue: () => queue.runner?.enqueue(),
    copies,
    viewer: new TableViewer(parts, copies, options.viewer),
    lifecycle: { stopping: false },
    metricsAccess: metricsAccess(options, host),
    idTokens: new IdTokenVerifier({ issuers: settings.trustedIssuers }),
  };
  const runner = new Runner(hub, options.hooks, options.pipeline);
  queue.runner = runner;
  const role = options.role ?? 'all';
  const server = role === 'worker' ? undefined : await listen(hub, log, host, options.port ?? 0);
  const address = server?.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  hub.base = server
    ? (options.publicUrl?.replace(/\/+$/, '') ??
      `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`)
    : '';
  if (role !== 'api') runner.start();
  const running = runner;
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    // Not ready from now: a load balancer sends no more; what is in flight finishes, within
    // the time the operator gives, while the revisions in progress go back to the queue.
    hub.lifecycle.stopping = true;
    const shutdownMs = (options.shutdownSeconds ?? DEFAULT_SHUTDOWN_SECONDS) * 1000;
    const closed = server
      ? new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), shutdownMs).unref();
        })
      : undefined;
    await Promise.all([closed, running.stop()]);
    await hub.viewer.stop();
    await hub.copies.stop();
    hub.metrics.registry.clear();
    await store.close();
    storage.close();
    rmSync(dirs.tmpDir, { recursive: true, force: true });
  };
  return {
    url: hub.base,
    hub,
    runner: running,
    // Once: a second signal, or a test that stopped it already, waits for the same close.
    close: () => (closing ??= close()),
  };
}

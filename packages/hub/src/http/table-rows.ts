/**
 * The table viewer's queries as JSON: `GET /<owner>/<dataset>/rows?table=…` (the published
 * revision) and `/<owner>/<dataset>/v/<N>/rows?…` (revision N), with the page's parameters
 * (services/viewer/query-params.ts), limits and permissions: whoever may read the revision's
 * files may read its rows, and a revision hidden from the asker is not there.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import fresh from 'fresh';
import { isDerived, resourceName, version } from '@data/core';
import type { Hub } from '../context.js';
import { HttpError } from '../http-error.js';
import { ViewerBusy } from '../services/viewer/duckdb.js';
import { tableOf } from '../services/viewer/local-files.js';
import { queryParams, tableQuery } from '../services/viewer/query-params.js';
import { tableStats } from '../services/viewer/stats.js';
import type { TablePage, TableQuery, TableStats } from '../services/viewer/types.js';
import { userOf } from './callers.js';
import { publishedRevision, revisionParam } from './published.js';
import { cachePolicy } from './read.js';
import { sendJson, type Request } from './request.js';

/** What the route answers: a page of the table, its statistics once computed, its neighbours. */
export interface RowsAnswer extends TablePage {
  /** The table's column statistics; null while they are being computed. */
  stats: TableStats | null;
  /** The addresses of the next and previous pages of the same query; null at either end. */
  next: string | null;
  prev: string | null;
}

/** Parameters /rows takes and ignores: a cache-buster's, and the page's choice of columns. */
const IGNORED = ['_', 'cols'];

/** The version of this answer's shape and engine: part of its ETag. */
const ANSWER_VERSION = 1;

export async function tableRows(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  ownerName: string,
  name: string,
  revision: string | null,
): Promise<void> {
  if (revision !== null && request.url.searchParams.has('v'))
    throw new HttpError(
      400,
      `"v" is not taken at a revision's own address: its path names the revision`,
    );
  const asked = revision ?? revisionParam(request);
  const pkg = await publishedRevision(hub, request, ownerName, name, asked);
  // Taken and ignored: `_`, the cache-buster jQuery and others add to an address, and the
  // page's `cols` (which of its columns the page shows; /rows answers every column).
  const params = new URLSearchParams(request.url.searchParams);
  for (const ignored of IGNORED) params.delete(ignored);
  const tables = pkg.descriptor.resources.filter((resource) => !isDerived(resource));
  const tableName = params.get('table') ?? (tables[0] ? resourceName(tables[0]) : '');
  const source = tableOf(pkg, tableName);
  if (!source) throw new HttpError(404, `no table named "${tableName.slice(0, 100)}"`);
  const gone = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) gone.abort();
  });
  // `v` names the revision at /rows; the rest is the viewer's.
  const columns = await hub.viewer.tableColumns(pkg, tableName, gone.signal);
  const query = tableQuery(params, columns, tableName, revision === null ? ['v'] : []);
  const base = request.url.pathname;
  const stats = await tableStats(hub, pkg, query.table);
  // The same query of the same revision is the same answer, once its statistics have come
  // and its rows are counted (an answer whose count is a lower bound has no ETag).
  const etag = `"r${String(ANSWER_VERSION)}-${createHash('sha256')
    .update(
      [
        version(),
        pkg.prefix,
        pkg.revision.created,
        queryParams(query).toString(),
        stats ? 's' : '',
      ].join('\0'),
    )
    .digest('base64url')
    .slice(0, 27)}"`;
  // Kept at a revision's own address once nothing in the answer is still to come.
  const cache = stats ? cachePolicy(pkg, revision !== null) : cachePolicy(pkg, false);
  const headers = request.raw.headers;
  if (fresh({ 'if-none-match': headers['if-none-match'] }, { etag })) {
    response.writeHead(304, { ETag: etag, 'Cache-Control': cache }).end();
    return;
  }
  let page: Awaited<ReturnType<Hub['viewer']['queryTable']>>;
  try {
    page = await hub.viewer.queryTable(pkg, query, gone.signal, await viewerClient(hub, request));
  } catch (error) {
    if (error instanceof ViewerBusy) response.setHeader('Retry-After', String(error.retryAfter));
    throw error;
  }
  if ('unavailable' in page) {
    if (page.unavailable === 'making') {
      response.setHeader('Retry-After', '30');
      throw new HttpError(503, page.message);
    }
    throw new HttpError(page.unavailable === 'copy' ? 404 : 501, page.message);
  }
  const answer: RowsAnswer = {
    ...page,
    stats: stats ?? null,
    ...neighbours(base, query, page.matching),
  };
  if (page.atLeast) {
    // Its count is still being made: an answer of its own, asked for again, never validated.
    response.setHeader('Cache-Control', cachePolicy(pkg, false));
  } else {
    response.setHeader('ETag', etag);
    response.setHeader('Cache-Control', cache);
  }
  sendJson(response, 200, answer);
}

/**
 * Who asks the viewer, for each a fair share of its engine: the signed-in user, else the
 * client's address: the last X-Forwarded-For entry when the request comes from this machine
 * (a reverse proxy beside the hub, which writes it), the peer's address otherwise (a peer
 * elsewhere could write any X-Forwarded-For).
 */
export async function viewerClient(hub: Hub, request: Request): Promise<string> {
  const user = await userOf(hub, request).catch(() => undefined);
  if (user) return `user:${user.userid}`;
  const peer = request.raw.socket.remoteAddress ?? '';
  const local = peer === '::1' || /^(::ffff:)?127\./.test(peer);
  const forwarded = request.raw.headers['x-forwarded-for'];
  const last = typeof forwarded === 'string' ? forwarded.split(',').at(-1)?.trim() : undefined;
  return `address:${local && last ? last.slice(0, 100) : peer}`;
}

/** The addresses of the pages after and before this one. */
function neighbours(
  base: string,
  query: TableQuery,
  matching: number,
): { next: string | null; prev: string | null } {
  const at = (offset: number) => `${base}?${queryParams({ ...query, offset }).toString()}`;
  const after = query.offset + query.limit;
  return {
    next: after < matching ? at(after) : null,
    prev: query.offset > 0 ? at(Math.max(0, Math.min(query.offset, matching) - query.limit)) : null,
  };
}

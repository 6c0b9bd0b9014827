/**
 * Cross-origin reads (the Fetch standard's CORS protocol): a script of another origin (a
 * Frictionless viewer, DuckDB-WASM, a notebook, a map) may read what anyone may read, as
 * from GitHub's raw files, Hugging Face's `resolve` or a public S3 bucket, and nothing else.
 *
 * The answer allows every origin (`*`) and never credentials: a browser then reads it from
 * another origin only when the request carried no cookie, so what a signed-in browser may
 * read of its own private data stays unreadable to other sites' scripts, and a script that
 * wants to send `Auth-Token` is stopped by the preflight, which does not allow that header.
 * Routes that change state, sign in or upload get no CORS header at all.
 */
import type { ServerResponse } from 'node:http';
import { isReservedName } from '../names.js';
import { isRevisionNumber } from '../services/published.js';

/** The headers a reader needs besides those every browser lets scripts read. */
const EXPOSED = [
  'Content-Length',
  'Content-Range',
  'Accept-Ranges',
  'ETag',
  'Last-Modified',
  'Content-Location',
  'Content-Disposition',
  'Link',
  // Why a credential was refused (RFC 6750 3): a browser app reads it as a program does.
  'WWW-Authenticate',
].join(', ');

/**
 * The request headers a reader may send from another origin: those of conditional and range
 * requests. `Range` of one simple range needs no preflight; several ranges and the
 * conditional headers do. No credential header: a cross-origin read is anonymous.
 */
const ALLOWED_HEADERS = [
  'Range',
  'If-None-Match',
  'If-Modified-Since',
  'If-Range',
  'If-Match',
].join(', ');

/** How long a browser may keep a preflight's answer (Chromium keeps it 2 hours at most). */
const PREFLIGHT_SECONDS = 86400;

/**
 * Whether the path is one of the reads another origin may make: search and, under
 * `/<owner>/<dataset>/`, the descriptor, the report, the files, their copies and the zip,
 * at the latest and at `/v/<N>/`. Not the pages (`/<owner>`, `/<owner>/<dataset>`, its
 * `/v/<N>` and `/diff/…`), which are for people, nor any route of the API but search.
 * It follows the hub's routing (server.ts): a test checks it against every route.
 */
export function crossOriginReadable(pathname: string, segments: readonly string[]): boolean {
  if ((pathname.replace(/\/+$/, '') || '/') === '/metastore/search') return true;
  const [owner, , third, fourth] = segments;
  if (owner === undefined || isReservedName(owner) || segments.length < 3) return false;
  const page =
    segments.length === 4 && (third === 'diff' || (third === 'v' && isRevisionNumber(fourth)));
  return !page;
}

/** A GET or HEAD of a cross-origin read: any origin may read the answer, errors included. */
export function allowCrossOriginRead(response: ServerResponse): void {
  response.setHeader('Access-Control-Allow-Origin', '*');
  response.setHeader('Access-Control-Expose-Headers', EXPOSED);
}

/**
 * The answer to a preflight (`OPTIONS`) of a cross-origin read: GET and HEAD with the range
 * and conditional headers. The same for every origin and every credential, so it varies on
 * nothing.
 */
export function answerPreflight(response: ServerResponse): void {
  response.removeHeader('Vary');
  response.writeHead(204, {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': 'GET, HEAD',
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': String(PREFLIGHT_SECONDS),
    Allow: 'GET, HEAD, OPTIONS',
  });
  response.end();
}

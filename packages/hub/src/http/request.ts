import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../http-error.js';
import { bodyRule, checkFields } from './bodies.js';

export interface Request {
  readonly raw: IncomingMessage;
  readonly method: string;
  readonly url: URL;
  /** Path segments, percent-decoded. */
  readonly segments: string[];
  /** The route template it took (`/:owner/:dataset/r/:file`), for metrics and logs: never a name. */
  route: string;
  /** Its id, sent back as X-Request-Id and carried into the log lines it causes. */
  readonly id: string;
  /** The user its token names, once a handler checked it: for the log. */
  userId?: string | undefined;
}

export type Handler = (request: Request, response: ServerResponse) => Promise<void> | void;

const JSON_LIMIT = 16 * 1024 * 1024;

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * An answer that carries a credential (a token, a JWT): no cache may keep it, not even the
 * browser's own (RFC 6749 5.1, RFC 9111 5.2.2.5), where every other answer says `private, no-cache`.
 */
export function sendCredential(response: ServerResponse, status: number, body: unknown): void {
  response.setHeader('Cache-Control', 'no-store');
  sendJson(response, status, body);
}

/** The type of every page the hub sends. */
export const HTML = 'text/html; charset=utf-8';

export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  type = 'text/plain; charset=utf-8',
): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

export function redirect(response: ServerResponse, location: string, status = 302): void {
  response.writeHead(status, { Location: location, 'Content-Length': 0 });
  response.end();
}

export async function readBody(request: Request, limit = JSON_LIMIT): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** JSON nested deeper than this is refused: no honest descriptor comes near it. */
export const MAX_JSON_DEPTH = 64;

/** How deep arrays and objects nest in JSON text, counted without parsing it. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92) index++;
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 91 || code === 123) deepest = Math.max(deepest, ++depth);
    else if (code === 93 || code === 125) depth--;
  }
  return deepest;
}

/**
 * The JSON body of a request, its fields checked against its route's rule (bodies.ts): a
 * field the route does not take is refused, naming it.
 */
export async function readJson(request: Request, limit = JSON_LIMIT): Promise<unknown> {
  const rule = bodyRule(request.method, request.route);
  const text = (await readBody(request, limit)).toString('utf8');
  if (rule.mayBeEmpty === true && text.trim() === '') return {};
  if (jsonDepth(text) > MAX_JSON_DEPTH)
    throw new HttpError(400, `the request body nests deeper than ${String(MAX_JSON_DEPTH)} levels`);
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'the request body is not valid JSON');
  }
  checkFields(request.method, request.route, rule, body);
  return body;
}

export async function readForm(request: Request): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(request, 64 * 1024)).toString('utf8'));
}

/**
 * Splits a path into decoded segments; a segment that decodes to a path trick is refused. A
 * `/` percent-encoded stays in its segment, as a resource named `a/t` is asked for
 * (`/r/a%2Ft.csv`), unless a part of it is empty, `.` or `..`.
 */
export function segmentsOf(pathname: string): string[] {
  const parts = pathname.split('/').filter((part) => part !== '');
  return parts.map((part) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      throw new HttpError(400, 'malformed path');
    }
    const inside = decoded.split('/');
    if (/[\\\0]/.test(decoded) || inside.some((each) => each === '' || /^\.\.?$/.test(each)))
      throw new HttpError(400, 'malformed path');
    return decoded;
  });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

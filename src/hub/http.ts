import type { IncomingMessage, ServerResponse } from 'node:http';

/** An error that becomes an HTTP answer: a status and a message, never a stack. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly asText = false,
  ) {
    super(message);
  }
}

export interface Request {
  readonly raw: IncomingMessage;
  readonly method: string;
  readonly url: URL;
  /** Path segments, percent-decoded. */
  readonly segments: string[];
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

export function sendText(
  response: ServerResponse,
  status: number,
  text: string,
  type = 'text/plain; charset=utf-8',
): void {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

export function redirect(response: ServerResponse, location: string): void {
  response.writeHead(302, { Location: location, 'Content-Length': 0 });
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

export async function readJson(request: Request): Promise<unknown> {
  const text = (await readBody(request)).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'the request body is not valid JSON');
  }
}

export async function readForm(request: Request): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(request, 64 * 1024)).toString('utf8'));
}

/** Splits a path into decoded segments; a segment that decodes to a path trick is refused. */
export function segmentsOf(pathname: string): string[] {
  const parts = pathname.split('/').filter((part) => part !== '');
  return parts.map((part) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      throw new HttpError(400, 'malformed path');
    }
    if (decoded === '..' || decoded === '.' || /[/\\\0]/.test(decoded))
      throw new HttpError(400, 'malformed path');
    return decoded;
  });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

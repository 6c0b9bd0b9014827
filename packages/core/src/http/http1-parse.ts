/**
 * The parts of HTTP/1.1 (RFC 9112) that a download needs: the head of a GET, and of the
 * response the head, how the body is framed, and chunked transfer coding.
 */
import { NetworkError } from '../errors.js';

/** The server's answer is not well-formed HTTP/1.1. */
export class ProtocolError extends NetworkError {
  constructor(detail: string) {
    super(`the server's answer is not valid HTTP/1.1: ${detail}`);
  }
}

export interface ResponseHead {
  status: number;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor: number;
  /** Lower-case names; repeated fields joined with ", ". */
  headers: Map<string, string>;
}

const TOKEN = "[!#$%&'*+.^_`|~\\dA-Za-z-]+";
const FIELD_NAME = new RegExp(`^${TOKEN}$`);
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const HEADER_LINE = new RegExp(`^(${TOKEN}):[\\t ]*(.*?)[\\t ]*$`);

function quoted(text: string): string {
  return JSON.stringify(text.slice(0, 60));
}

/** The head of a GET; a field that would break the request's lines is refused. */
export function requestHead(url: URL, headers: Record<string, string>): string {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) {
    if (!FIELD_NAME.test(name) || /[\r\n\0]/.test(value))
      throw new TypeError(`invalid request header ${JSON.stringify(name)}`);
    lines.push(`${name}: ${value}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Parses a head without its final empty line. Folded header lines are refused. */
export function parseHead(text: string): ResponseHead {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const status = STATUS_LINE.exec(statusLine);
  if (!status) throw new ProtocolError(`status line ${quoted(statusLine)}`);
  const headers = new Map<string, string>();
  for (const line of lines) {
    const field = HEADER_LINE.exec(line);
    if (!field?.[1] || field[2] === undefined)
      throw new ProtocolError(`header line ${quoted(line)}`);
    const name = field[1].toLowerCase();
    const before = headers.get(name);
    headers.set(name, before === undefined ? field[2] : `${before}, ${field[2]}`);
  }
  return { status: Number(status[2]), minor: Number(status[1]), headers };
}

export type Framing =
  | { kind: 'none' }
  | { kind: 'length'; left: number }
  | { kind: 'chunked'; decoder: ChunkedDecoder }
  | { kind: 'close' };

function tokens(value: string | undefined): string[] {
  return (value ?? '').split(',').map((token) => token.trim().toLowerCase());
}

/** How the body of an answer to a GET ends (RFC 9112, section 6.3). */
export function framing(head: ResponseHead): Framing {
  if (head.status < 200 || head.status === 204 || head.status === 304) return { kind: 'none' };
  const transfer = head.headers.get('transfer-encoding');
  if (transfer !== undefined)
    return tokens(transfer).at(-1) === 'chunked'
      ? { kind: 'chunked', decoder: new ChunkedDecoder() }
      : { kind: 'close' };
  const length = head.headers.get('content-length');
  if (length === undefined) return { kind: 'close' };
  const values = new Set(length.split(',').map((value) => value.trim()));
  const [only = ''] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(only))
    throw new ProtocolError(`Content-Length ${quoted(length)}`);
  return { kind: 'length', left: Number(only) };
}

/** Whether the connection may carry another request once this answer is read. */
export function keepsAlive(head: ResponseHead, framed: Framing): boolean {
  return (
    head.minor === 1 &&
    framed.kind !== 'close' &&
    !tokens(head.headers.get('connection')).includes('close') &&
    !(head.headers.has('transfer-encoding') && head.headers.has('content-length'))
  );
}

const LINE_LIMIT = 8 * 1024;
const CR = 13;
const LF = 10;

type ChunkedState = 'size' | 'data' | 'data-cr' | 'data-lf' | 'trailer' | 'done';

/** Decodes chunked transfer coding fed in pieces, handing out the data as views of them. */
export class ChunkedDecoder {
  private state: ChunkedState = 'size';
  private line = '';
  private left = 0;

  get done(): boolean {
    return this.state === 'done';
  }

  /** Feeds bytes; returns how many belonged to the body (the rest follow the message). */
  feed(bytes: Uint8Array, emit: (data: Uint8Array) => void): number {
    let at = 0;
    while (at < bytes.length && this.state !== 'done') {
      if (this.state === 'data') {
        const take = Math.min(this.left, bytes.length - at);
        emit(bytes.subarray(at, at + take));
        at += take;
        this.left -= take;
        if (this.left === 0) this.state = 'data-cr';
      } else {
        this.control(bytes[at] ?? 0);
        at++;
      }
    }
    return at;
  }

  private control(byte: number): void {
    if (this.state === 'data-cr' || this.state === 'data-lf') {
      const expected = this.state === 'data-cr' ? CR : LF;
      if (byte !== expected) throw new ProtocolError('a chunk does not end with CRLF');
      this.state = this.state === 'data-cr' ? 'data-lf' : 'size';
      return;
    }
    if (byte !== LF) {
      if (this.line.length >= LINE_LIMIT) throw new ProtocolError('a chunk line is too long');
      this.line += String.fromCharCode(byte);
      return;
    }
    const line = this.line.endsWith('\r') ? this.line.slice(0, -1) : this.line;
    this.line = '';
    if (this.state === 'trailer') {
      if (line === '') this.state = 'done';
    } else this.startChunk(line);
  }

  private startChunk(line: string): void {
    const size = (line.split(';')[0] ?? '').trimEnd();
    if (!/^[\dA-Fa-f]{1,12}$/.test(size)) throw new ProtocolError(`chunk size ${quoted(line)}`);
    this.left = parseInt(size, 16);
    this.state = this.left === 0 ? 'trailer' : 'data';
  }
}

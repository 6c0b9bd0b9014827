/**
 * GET over HTTP/1.1 on node:net and node:tls, for downloads. Each connection reads into a
 * few buffers of its own (see ReadBuffers), and the body's chunks are lent from them: a chunk
 * is valid only until the next one is asked for. undici reads each 64 KB into fresh memory,
 * and on a two-core machine that fresh memory cost a 1 GB download about a second of CPU, as
 * much again as curl needs for the whole download (npm run bench:transfer); buffers read into
 * again and again stay in the processor's cache. With two of them the socket rarely waits for
 * the writer: while one is read into, the other's chunks are on their way to the disk.
 */
import { connect as connectTcp, isIP, type OnReadOpts, type Socket } from 'node:net';
import type * as NodeTls from 'node:tls';
import { NetworkError } from '../errors.js';
import {
  framing,
  keepsAlive,
  parseHead,
  ProtocolError,
  requestHead,
  type Framing,
  type ResponseHead,
} from './http1-parse.js';
import type { HttpFetch, HttpInit, HttpResponse } from './http.js';

/** A read takes what the socket holds up to this; fewer chunks cost less JavaScript. */
const READ_BUFFER_BYTES = 256 * 1024;
const HEAD_LIMIT = 64 * 1024;
const IDLE_MS = 4_000;
const HEAD_END = Buffer.from('\r\n\r\n');

export interface LendingOptions {
  /** Certificates to trust besides the system's, for tests. */
  ca?: string | Buffer;
}

type Tls = typeof NodeTls;
let tlsModule: Promise<Tls> | undefined;
/** node:tls takes about 10 ms to load: plain http never loads it. */
const loadTls = () => (tlsModule ??= import('node:tls'));

/** A connection went away before the first byte of the answer: safe to ask again. */
class StaleConnection extends Error {}

class ClosedEarly extends NetworkError {
  constructor(what: string) {
    super(`the connection closed before the end of the ${what}`);
  }
}

type Lent = IteratorResult<Uint8Array>;

/** A chunk of a body, and the read buffer it is a view of (-1: memory of its own). */
interface Piece {
  chunk: Uint8Array;
  from: number;
}

/**
 * The read buffers of a connection. The socket reads into a free one, and chunks of a buffer
 * are lent until they come back. It is asked to stop while two buffers are lent, but TLS may
 * still deliver what it has decrypted: a third buffer takes that, so that a lent chunk is
 * never written over, whatever the socket does.
 */
class ReadBuffers {
  private readonly buffers: Buffer[] = [];
  private readonly lent: number[] = [];
  /** The socket stopped reading until a buffer comes back. */
  waiting = false;

  /** A buffer with no lent chunks, for the socket's next read (node:net asks after each). */
  free(): Buffer {
    const index = this.lent.findIndex((count) => count === 0);
    if (index >= 0) return this.buffers[index] ?? this.add();
    return this.add();
  }

  private add(): Buffer {
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.buffers.push(buffer);
    this.lent.push(0);
    return buffer;
  }

  /** Which buffer a read went into (-1: none of ours). */
  indexOf(buffer: Uint8Array): number {
    return this.buffers.findIndex((own) => own.buffer === buffer.buffer);
  }

  /** Counts the chunks lent from a buffer; says whether the socket may read on. */
  lend(index: number, chunks: number): boolean {
    this.lent[index] = (this.lent[index] ?? 0) + chunks;
    this.waiting = this.busy() >= 2;
    return !this.waiting;
  }

  /** A lent chunk came back; says whether a stopped socket may read again. */
  giveBack(index: number): boolean {
    if (index >= 0) this.lent[index] = (this.lent[index] ?? 1) - 1;
    if (!this.waiting || this.busy() >= 2) return false;
    this.waiting = false;
    return true;
  }

  private busy(): number {
    return this.lent.filter((count) => count > 0).length;
  }
}

/** One answer read from a connection; its body chunks are views of the connection's buffer. */
class Exchange {
  head = Buffer.alloc(0);
  parsed: ResponseHead | undefined;
  framed: Framing = { kind: 'none' };
  finished = false;
  failure: Error | undefined;
  readonly queue: Piece[] = [];
  /** The chunk the reader holds: given back when it asks for the next. */
  held: Piece | undefined;
  waiter: { resolve: (result: Lent) => void; reject: (error: unknown) => void } | undefined;
  /** Stops listening to the caller's signal. */
  forget: () => void = () => undefined;

  constructor(
    readonly answered: (head: ResponseHead) => void,
    readonly refused: (error: unknown) => void,
  ) {}
}

class Connection {
  readonly socket: Socket;
  private readonly buffers = new ReadBuffers();
  private exchange: Exchange | undefined;
  private reusable = false;
  used = false;

  constructor(
    url: URL,
    options: LendingOptions,
    tls: Tls | undefined,
    private readonly release: (connection: Connection) => void,
  ) {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const onread = {
      buffer: () => this.buffers.free(),
      callback: (bytes: number, buffer: Uint8Array) => this.onRead(buffer.subarray(0, bytes)),
    };
    // node:tls takes onread as node:net does; its type declarations leave it out.
    const secure: NodeTls.ConnectionOptions & { onread: OnReadOpts } = {
      host,
      port: Number(url.port || 443),
      ...(isIP(host) ? {} : { servername: host }),
      ALPNProtocols: ['http/1.1'],
      ...(options.ca ? { ca: options.ca } : {}),
      onread,
    };
    this.socket = tls
      ? tls.connect(secure)
      : connectTcp({ host, port: Number(url.port || 80), onread });
    this.socket.on('error', (error) => {
      this.fail(error);
    });
    this.socket.on('close', () => {
      this.closed();
    });
    this.socket.on('timeout', () => this.socket.destroy());
  }

  get alive(): boolean {
    return !this.socket.destroyed;
  }

  /** Sends a GET and resolves with the head of the answer. */
  request(head: string, signal?: AbortSignal): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const exchange = new Exchange((head) => {
        resolve(this.response(head, exchange));
      }, reject);
      this.exchange = exchange;
      const abort = () => this.socket.destroy(signal?.reason as Error);
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      exchange.forget = () => signal?.removeEventListener('abort', abort);
      this.socket.ref();
      this.socket.setTimeout(0);
      this.socket.resume();
      this.socket.write(head);
    });
  }

  private response(head: ResponseHead, exchange: Exchange): HttpResponse {
    const body: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => this.next(exchange),
        return: () => {
          if (exchange.held) this.giveBack(exchange.held);
          exchange.held = undefined;
          // A reader that stops early leaves the rest of the body on the connection.
          if (this.exchange === exchange) {
            if (exchange.finished && exchange.queue.length === 0) this.done(exchange);
            else this.socket.destroy();
          }
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
    return {
      ok: head.status >= 200 && head.status < 300,
      status: head.status,
      headers: { get: (name) => head.headers.get(name.toLowerCase()) ?? null },
      body,
      text: async () => {
        const copies: Buffer[] = [];
        for await (const chunk of body) copies.push(Buffer.from(chunk));
        return Buffer.concat(copies).toString('utf8');
      },
    };
  }

  private next(exchange: Exchange): Promise<Lent> {
    if (exchange.held) this.giveBack(exchange.held);
    exchange.held = exchange.queue.shift();
    if (exchange.held) return Promise.resolve({ done: false, value: exchange.held.chunk });
    if (exchange.failure !== undefined) return Promise.reject(exchange.failure);
    if (exchange.finished) {
      this.done(exchange);
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => (exchange.waiter = { resolve, reject }));
  }

  private giveBack(piece: Piece): void {
    if (this.buffers.giveBack(piece.from) && this.alive) this.socket.resume();
  }

  /** Returns false, asking the socket to stop, while two buffers are lent. */
  private onRead(read: Uint8Array): boolean {
    const exchange = this.exchange;
    if (!exchange || exchange.finished) {
      this.socket.destroy();
      return false;
    }
    const queued = exchange.queue.length;
    // The head is copied as it is gathered, and so is whatever follows it in the same read.
    const from = exchange.parsed ? this.buffers.indexOf(read) : -1;
    try {
      if (!exchange.parsed) this.readHead(exchange, read);
      else this.body(exchange, from >= 0 ? read : Buffer.from(read), from);
    } catch (error) {
      this.socket.destroy(error as Error);
      return false;
    }
    const lent = exchange.queue.length - queued;
    const reading = from < 0 || this.buffers.lend(from, lent);
    this.hand(exchange);
    return reading;
  }

  private readHead(exchange: Exchange, view: Uint8Array): void {
    exchange.head = Buffer.concat([exchange.head, view]);
    for (;;) {
      const end = exchange.head.indexOf(HEAD_END);
      if (end < 0) {
        if (exchange.head.length > HEAD_LIMIT) throw new ProtocolError('the head is too long');
        return;
      }
      const head = parseHead(exchange.head.subarray(0, end).toString('latin1'));
      const rest = exchange.head.subarray(end + HEAD_END.length);
      exchange.head = rest;
      if (head.status === 101) throw new ProtocolError('the server switched protocols');
      if (head.status >= 200) return this.startBody(exchange, head, rest);
    }
  }

  private startBody(exchange: Exchange, head: ResponseHead, rest: Buffer): void {
    exchange.framed = framing(head);
    exchange.parsed = head;
    this.reusable = keepsAlive(head, exchange.framed);
    exchange.answered(head);
    if (exchange.framed.kind === 'none') this.finish(exchange, rest.length);
    else this.body(exchange, rest, -1);
    // Nothing lent (no body, or all of it came with the head): the connection is free now.
    if (exchange.finished) this.done(exchange);
  }

  /** Queues the body's chunks in `view`, which is read buffer `from` (-1: a copy). */
  private body(exchange: Exchange, view: Uint8Array, from: number): void {
    const framed = exchange.framed;
    const lend = (chunk: Uint8Array) => {
      if (chunk.length > 0) exchange.queue.push({ chunk, from });
    };
    if (framed.kind === 'close') return lend(view);
    if (framed.kind === 'length') {
      const take = Math.min(framed.left, view.length);
      lend(view.subarray(0, take));
      framed.left -= take;
      if (framed.left === 0) this.finish(exchange, view.length - take);
      return;
    }
    if (framed.kind === 'chunked') {
      const used = framed.decoder.feed(view, lend);
      if (framed.decoder.done) this.finish(exchange, view.length - used);
    }
  }

  private finish(exchange: Exchange, extraBytes: number): void {
    exchange.finished = true;
    if (extraBytes > 0) this.reusable = false;
  }

  private hand(exchange: Exchange): void {
    const waiter = exchange.waiter;
    if (!waiter) return;
    exchange.held = exchange.queue.shift();
    if (exchange.held) {
      exchange.waiter = undefined;
      waiter.resolve({ done: false, value: exchange.held.chunk });
    } else if (exchange.finished) {
      exchange.waiter = undefined;
      this.done(exchange);
      waiter.resolve({ done: true, value: undefined });
    }
  }

  /** The answer is read and none of it is lent any more. */
  private done(exchange: Exchange): void {
    if (this.exchange !== exchange) return;
    this.exchange = undefined;
    exchange.forget();
    if (!this.reusable || !this.alive) return void this.socket.destroy();
    this.used = true;
    this.socket.setTimeout(IDLE_MS);
    this.socket.unref();
    this.release(this);
  }

  private closed(): void {
    const exchange = this.exchange;
    if (!exchange || exchange.failure !== undefined) return;
    if (exchange.parsed && exchange.framed.kind === 'close' && !exchange.finished) {
      exchange.finished = true;
      return this.hand(exchange);
    }
    if (!exchange.finished) this.fail(new ClosedEarly(exchange.parsed ? 'body' : 'answer'));
  }

  private fail(error: unknown): void {
    const exchange = this.exchange;
    if (!exchange || exchange.failure !== undefined || exchange.finished) return;
    const stale = this.used && !exchange.parsed && exchange.head.length === 0;
    exchange.failure = stale
      ? new StaleConnection()
      : error instanceof Error
        ? error
        : new NetworkError(String(error));
    exchange.forget();
    if (!exchange.parsed) return exchange.refused(exchange.failure);
    exchange.queue.length = 0;
    const waiter = exchange.waiter;
    exchange.waiter = undefined;
    waiter?.reject(exchange.failure);
  }
}

/**
 * A fetch for GET only whose body chunks are lent (see above). Connections that end their
 * answers cleanly are kept for the next request to the same origin for a few seconds.
 */
export function lendingFetch(options: LendingOptions = {}): HttpFetch {
  const idle = new Map<string, Connection[]>();
  const release = (connection: Connection, origin: string) => {
    const list = (idle.get(origin) ?? []).filter((other) => other.alive);
    list.push(connection);
    idle.set(origin, list);
  };
  const open = (url: URL, tls: Tls | undefined) =>
    new Connection(url, options, tls, (connection) => {
      release(connection, url.origin);
    });
  const take = (url: URL, tls: Tls | undefined) => {
    const list = idle.get(url.origin) ?? [];
    let connection = list.pop();
    while (connection && !connection.alive) connection = list.pop();
    return connection ?? open(url, tls);
  };
  return async (href: string, init: HttpInit = {}) => {
    const url = new URL(href);
    if ((init.method ?? 'GET') !== 'GET' || init.body !== undefined)
      throw new TypeError('the lending fetch only sends GET requests');
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`cannot download ${url.protocol} addresses`);
    const head = requestHead(url, init.headers ?? {});
    const tls = url.protocol === 'https:' ? await loadTls() : undefined;
    try {
      return await take(url, tls).request(head, init.signal);
    } catch (error) {
      if (!(error instanceof StaleConnection)) throw error;
      return open(url, tls).request(head, init.signal);
    }
  };
}

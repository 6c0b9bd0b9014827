import { EventEmitter, once } from 'node:events';
import { open } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { HttpError } from '../../http-error.js';

/** Read from a copy's file and sent on in pieces of this size: one per reader at a time. */
const PIECE_BYTES = 64 * 1024;

/**
 * A derived copy being written to a file of the hub's scratch folder, read by any number of
 * readers while it grows: each reads what is written so far and waits for more, so fifty
 * readers of a copy that does not exist yet cost one making of it and a piece of memory each.
 */
export class CopyJob {
  /** Bytes of the file that are written and may be read. */
  written = 0;
  finished = false;
  failure: Error | undefined;
  /** Readers reading the file now: it stays until the last one is done. */
  readers = 0;
  /** Settles once the copy is made and kept (or not), or has failed. */
  over: Promise<void> = Promise.resolve();
  private readonly events = new EventEmitter().setMaxListeners(0);

  constructor(
    readonly file: string,
    /** What the copy is, for messages: "the JSON copy of cities". */
    readonly title: string,
  ) {}

  grow(bytes: number): void {
    if (bytes <= this.written) return;
    this.written = bytes;
    this.events.emit('change');
  }

  finish(bytes: number): void {
    this.grow(bytes);
    this.finished = true;
    this.events.emit('change');
  }

  fail(error: Error): void {
    if (this.finished) return;
    this.failure = error;
    this.events.emit('change');
  }

  get settled(): boolean {
    return this.finished || this.failure !== undefined;
  }

  /** Resolves at the next change: more bytes written, the end, or a failure. */
  async changed(): Promise<void> {
    await once(this.events, 'change');
  }

  /** Resolves once there are bytes to send or the copy is whole; throws if it failed first. */
  async started(): Promise<void> {
    while (this.written === 0 && !this.finished) {
      if (this.failure) throw this.failure;
      await this.changed();
    }
  }

  /**
   * The copy's bytes from the start as they are written; fails if the making fails, so that
   * no reader takes a part for the whole.
   */
  async *bytes(): AsyncGenerator<Buffer> {
    // The file exists once its first bytes are written.
    await this.started();
    const handle = await open(this.file, 'r');
    try {
      let position = 0;
      for (;;) {
        if (this.failure) throw this.failure;
        if (position < this.written) {
          const size = Math.min(PIECE_BYTES, this.written - position);
          const { bytesRead, buffer } = await handle.read(Buffer.alloc(size), 0, size, position);
          if (bytesRead === 0) throw new Error(`${this.title} ended early`);
          position += bytesRead;
          yield buffer.subarray(0, bytesRead);
        } else if (this.finished) return;
        else await this.changed();
      }
    } finally {
      await handle.close();
    }
  }
}

/** Why a copy could not be made, as the reader is told it: a 500 with a plain reason. */
export function copyFailure(job: CopyJob, error: unknown): HttpError {
  const reason = error instanceof Error ? error.message : String(error);
  return new HttpError(500, `${job.title} could not be made: ${reason}`);
}

/**
 * A stream opened when first read: a zip's entries are opened one at a time, in turn. One
 * destroyed while it opens destroys what it opened.
 */
export function lazyStream(open: () => Promise<Readable>): Readable {
  let source: Readable | undefined;
  let pieces: AsyncIterator<Buffer> | undefined;
  let gone = false;
  const next = async (): Promise<IteratorResult<Buffer>> => {
    if (!pieces) {
      source = await open();
      if (gone) source.destroy();
      pieces = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    }
    return pieces.next();
  };
  return new Readable({
    read() {
      next().then(
        (result) => this.push(result.done ? null : result.value),
        (error: unknown) => this.destroy(error instanceof Error ? error : new Error(String(error))),
      );
    },
    destroy(error, done) {
      gone = true;
      source?.destroy();
      done(error);
    },
  });
}

/** A file the job's readers read as it is written: each write is told once it is done. */
export async function jobFile(job: CopyJob): Promise<Writable> {
  const handle = await open(job.file, 'wx');
  let position = 0;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return new Writable({
    write(chunk: Buffer, _encoding, next) {
      handle.write(chunk, 0, chunk.length, position).then(({ bytesWritten }) => {
        position += bytesWritten;
        job.grow(position);
        next();
      }, next);
    },
    final(next) {
      close().then(() => next(), next);
    },
    destroy(error, next) {
      close().then(
        () => next(error),
        () => next(error),
      );
    },
  });
}

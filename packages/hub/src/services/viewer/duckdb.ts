/**
 * The table viewer's DuckDB: loaded when first asked (a hub that never shows a table never
 * pays for its 68 MB binding), one instance per hub process, bounded in threads, memory and
 * spill, allowed to read only the folders the viewer's Parquet files are in. At most
 * `queries` questions run at once, `queued` more wait their turn and past them the hub
 * answers 503 with Retry-After; each question is interrupted after `querySeconds` and when
 * its request's client goes. Each client (its user, else its address) has a fair share: one
 * question running and one waiting at most, past which its own are refused, not others'; a
 * question of a small table (SMALL_ROWS) goes before those of large ones, with a lane of its
 * own beside the `queries`, so that deep sorts of a large table do not hold up small ones.
 */
import { makeDirectory } from '@data/core';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { HttpError } from '../../http-error.js';
import type { ViewerOptions } from '../../options.js';

/** The hub answers as many table questions as it takes: try again in a moment. */
export class ViewerBusy extends HttpError {
  readonly retryAfter = 2;
  constructor() {
    super(503, 'the hub is answering as many table queries as it can: try again in a moment');
  }
}

/** Who asks a question, for a fair share of the engine. */
export interface Asker {
  /** The signed-in user, else the address the hub sees. */
  key: string;
  /** The question reads a small table (SMALL_ROWS rows at most). */
  small?: boolean;
}

/** A client's questions at once: one running and one waiting. */
export const PER_CLIENT = 2;
/** A table of this many rows at most is read at once: its questions take milliseconds. */
export const SMALL_ROWS = 100_000;
/** A Parquet file this small is small too, when its rows are not known yet. */
export const SMALL_BYTES = 8 * 1024 * 1024;

interface Waiter {
  wake: () => void;
  small: boolean;
}

/** A question that ran past its time, or whose client went. */
export class QueryStopped extends Error {}

/**
 * DuckDB could not be loaded on this hub (no binary for its platform, or the single
 * executable, which carries none): sorting, filtering and searching are unavailable.
 */
export interface EngineMissing {
  missing: string;
}

interface Loaded {
  instance: DuckDBInstance;
  idle: DuckDBConnection[];
}

export class DuckEngine {
  private loading: Promise<Loaded | EngineMissing> | undefined;
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Questions asked and not done, by client. */
  private readonly asked = new Map<string, number>();
  private readonly busy = new Set<DuckDBConnection>();
  private stopped = false;

  constructor(
    private readonly options: ViewerOptions,
    /** Where DuckDB spills. */
    private readonly spill: string,
    /** The only folders DuckDB may read (each ending in a separator). */
    private readonly readable: string[],
  ) {}

  /** Whether DuckDB loads here; the reason when it does not. */
  async available(): Promise<true | EngineMissing> {
    const loaded = await this.load();
    return 'missing' in loaded ? loaded : true;
  }

  /**
   * Runs `work` on a connection of its own once a turn is free: ViewerBusy when too many
   * wait; QueryStopped once `seconds` pass or `signal` aborts (its question is interrupted).
   */
  async run<T>(
    work: (connection: DuckDBConnection) => Promise<T>,
    signal: AbortSignal | undefined,
    seconds = this.options.querySeconds,
    asker?: Asker,
  ): Promise<T> {
    if (!asker) return this.runOne(work, signal, seconds, false);
    const held = this.asked.get(asker.key) ?? 0;
    // A client past its share is refused its own question, whatever the queue holds.
    if (held >= PER_CLIENT) throw new ViewerBusy();
    this.asked.set(asker.key, held + 1);
    try {
      return await this.runOne(work, signal, seconds, asker.small === true);
    } finally {
      const left = (this.asked.get(asker.key) ?? 1) - 1;
      if (left > 0) this.asked.set(asker.key, left);
      else this.asked.delete(asker.key);
    }
  }

  private async runOne<T>(
    work: (connection: DuckDBConnection) => Promise<T>,
    signal: AbortSignal | undefined,
    seconds: number,
    small: boolean,
  ): Promise<T> {
    const loaded = await this.load();
    if ('missing' in loaded)
      throw new HttpError(503, 'the table engine is unavailable on this hub');
    await this.turn(signal, small);
    let connection: DuckDBConnection | undefined;
    try {
      if (this.stopped) throw new QueryStopped('the hub is stopping');
      connection = loaded.idle.pop() ?? (await loaded.instance.connect());
      this.busy.add(connection);
      return await this.bounded(connection, work, signal, seconds);
    } finally {
      if (connection) {
        this.busy.delete(connection);
        if (this.stopped) connection.closeSync();
        else loaded.idle.push(connection);
      }
      this.running--;
      this.next();
    }
  }

  /** Whether a question may start now: within `queries`, or a small one in its own lane. */
  private free(small: boolean): boolean {
    return this.running < this.options.queries + (small ? 1 : 0);
  }

  /** Starts the first waiting question that may start. */
  private next(): void {
    const at = this.waiting.findIndex((waiter) => this.free(waiter.small));
    if (at >= 0) this.waiting.splice(at, 1)[0]?.wake();
  }

  /** Interrupts what runs and closes the instance: later questions fail. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { wake } of this.waiting.splice(0)) wake();
    const loaded = await this.loading?.catch(() => undefined);
    if (!loaded || 'missing' in loaded) return;
    for (const connection of this.busy) connection.interrupt();
    for (const connection of loaded.idle.splice(0)) connection.closeSync();
    while (this.running > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    loaded.instance.closeSync();
  }

  private async turn(signal: AbortSignal | undefined, small = false): Promise<void> {
    if (this.free(small) && (small || this.waiting.length === 0)) {
      this.running++;
      return;
    }
    if (this.waiting.length >= this.options.queued) throw new ViewerBusy();
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', gone);
        this.running++;
        resolve();
      };
      const waiter: Waiter = { wake, small };
      const gone = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new QueryStopped('the client went'));
      };
      if (signal?.aborted) return gone();
      signal?.addEventListener('abort', gone, { once: true });
      // A small table's question waits before the large ones'.
      const before = small ? this.waiting.findIndex((each) => !each.small) : -1;
      if (before >= 0) this.waiting.splice(before, 0, waiter);
      else this.waiting.push(waiter);
    });
  }

  private async bounded<T>(
    connection: DuckDBConnection,
    work: (connection: DuckDBConnection) => Promise<T>,
    signal: AbortSignal | undefined,
    seconds: number,
  ): Promise<T> {
    let why: string | undefined;
    let again: NodeJS.Timeout | undefined;
    const stop = (reason: string) => {
      why ??= reason;
      connection.interrupt();
      // An interrupt that comes before DuckDB began the question is lost: said again.
      again ??= setInterval(() => connection.interrupt(), 50);
    };
    const timer = setTimeout(
      () => stop(`it took longer than ${String(seconds)} s, the most this hub gives a table query`),
      seconds * 1000,
    );
    const gone = () => stop('the client went');
    if (signal?.aborted) gone();
    signal?.addEventListener('abort', gone, { once: true });
    try {
      const result = await work(connection);
      if (why !== undefined) throw new QueryStopped(why);
      return result;
    } catch (error) {
      if (why !== undefined) throw new QueryStopped(why);
      throw error;
    } finally {
      clearTimeout(timer);
      clearInterval(again);
      signal?.removeEventListener('abort', gone);
    }
  }

  private load(): Promise<Loaded | EngineMissing> {
    return (this.loading ??= this.open());
  }

  private async open(): Promise<Loaded | EngineMissing> {
    let create: typeof DuckDBInstance.create;
    try {
      const { DuckDBInstance } = await import('@duckdb/node-api');
      create = (path, options) => DuckDBInstance.create(path, options);
    } catch (error) {
      return { missing: error instanceof Error ? error.message : String(error) };
    }
    await makeDirectory(this.spill);
    const { memoryMb, threads } = this.options;
    const instance = await create(':memory:', {
      threads: String(threads),
      memory_limit: `${String(memoryMb)}MB`,
      temp_directory: this.spill,
      max_temp_directory_size: `${String(Math.max(1024, memoryMb * 8))}MB`,
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    const connection = await instance.connect();
    // Datetimes written and read in UTC, whatever the machine's zone.
    await connection.run("set global TimeZone = 'UTC'");
    // Once external access is off, DuckDB reads these folders only, and no setting changes.
    const list = this.readable.map((folder) => `'${folder.replaceAll("'", "''")}'`).join(', ');
    await connection.run(`set allowed_directories = [${list}]`);
    await connection.run('set enable_external_access = false');
    await connection.run('set lock_configuration = true');
    return { instance, idle: [connection] };
  }
}

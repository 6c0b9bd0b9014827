/** Starts, joins and stops the second range's worker for the first range's reader: see ranges.ts. */
import { availableParallelism } from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import { isRemote } from '../../model/paths.js';
import { isParquet, isSpreadsheet } from '../sheets/formats.js';
import type { SchemaDescriptor, StandardVersion } from '../descriptor/types.js';
import type { TaskLimits } from '../report/task.js';
import { workerUrl, YOUNG_GENERATION_MB } from '../worker-url.js';
import type { ResolvedDialect } from './dialect.js';
import type { RowLimits } from './row-limits.js';
import type { FieldsMatch } from './header.js';
import { mergeRange } from './range-merge.js';
import {
  planRanges,
  splittableEncoding,
  type RangeStop,
  type RangeWorkerData,
  type SplitOptions,
  type RangeMessage,
  type RangePlan,
  type RangeRequest,
  type RangeResult,
} from './ranges.js';
import { rowsLeft, type TableKeys, type TableValidator } from './table-validator.js';

export interface RangeSetup {
  schema: SchemaDescriptor;
  version: StandardVersion;
  keys: TableKeys;
  fieldsMatch: FieldsMatch;
  limits: TaskLimits;
  /** The second range's share of the key memory. */
  keyMemory: number;
  /** The limits on one row, which the second range keeps too. */
  rowLimits?: RowLimits | undefined;
  /** Told whether the table was read as two ranges, and if not, why. */
  onOutcome?: (outcome: RangeOutcome) => void;
}

export type RangeOutcome = { joined: true } | { joined: false; reason: string };

/** Where the second range's worker is told what to do, and answers. */
interface RangeChannel {
  post(message: RangeRequest | RangeStop): void;
  on(event: 'message', listener: (message: RangeMessage) => void): void;
  end(): void;
}

/** node:worker_threads is loaded by the validations that start a worker, not by every start. */
function rangeWorker(
  data: RangeWorkerData,
  transferList: MessagePort[] = [],
  heapMb?: number,
): Worker {
  const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
  return new WorkerThread(workerUrl(), {
    workerData: data,
    transferList,
    execArgv: [],
    resourceLimits: {
      maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      ...(heapMb ? { maxOldGenerationSizeMb: heapMb } : {}),
    },
  });
}

/** A range worker of this thread's own. */
function ownWorker(failed: (reason: string) => void): RangeChannel {
  const worker = rangeWorker({ kind: 'range' });
  worker.on('error', (error: Error) => failed(error.message));
  worker.on('exit', () => failed('the range worker stopped'));
  return {
    post: (message) => worker.postMessage(message),
    on: (event, listener) => worker.on(event, listener),
    end: () => void worker.terminate(),
  };
}

/**
 * Starts a range worker for a validation about to run in another worker, which reaches it
 * through the port returned (to pass in ValidateOptions.rangeWorker). The caller ends the
 * worker when the validation is over; a table that splits may end it before.
 */
export function startRangeWorker(heapMb?: number): { worker: Worker; port: MessagePort } {
  const { MessageChannel } = process.getBuiltinModule('node:worker_threads');
  const { port1, port2 } = new MessageChannel();
  const worker = rangeWorker({ kind: 'range', port: port2 }, [port2], heapMb);
  // A worker that is never given a range must not keep the process alive.
  worker.unref();
  return { worker, port: port1 };
}

/**
 * The first range's share when this thread reads it: it starts on its rows while the range
 * worker, started with the validation, still boots (some 50 to 60 ms), so it takes more than
 * half. On the benchmark table, a share of 0.5 left this thread waiting on the second range.
 */
export const THREAD_FIRST_SHARE = 0.55;

/**
 * For a validation in the calling thread of an input with a table that may split: a range
 * worker started now, which boots while this thread reads the descriptor and the first rows,
 * and the options that hand it to `validate`. `end` ends the worker once the validation is
 * over (a table that splits ends it before).
 */
export function threadRangeWorker(): {
  options: { rangeWorker: MessagePort; split: SplitOptions };
  end: () => void;
} {
  const { worker, port } = startRangeWorker();
  return {
    options: { rangeWorker: port, split: { firstShare: THREAD_FIRST_SHARE } },
    end: () => void worker.terminate(),
  };
}

/** A range worker the caller of the validation started, reached through a port. */
function portWorker(port: MessagePort, failed: (reason: string) => void): RangeChannel {
  port.on('close', () => failed('the range worker stopped'));
  return {
    post: (message) => port.postMessage(message),
    on: (event, listener) => port.on(event, listener),
    end: () => {
      port.postMessage({ type: 'stop' } satisfies RangeStop);
      port.close();
    },
  };
}

export class RangeSplit {
  private readonly channel: RangeChannel;
  private request: RangeRequest | undefined;
  private readonly result: Promise<RangeResult>;
  private ended = false;
  private beginCalled = false;
  /** Bytes the second range has read. */
  read = 0;

  /**
   * Takes the range worker the caller started, or starts one at once: it loads its code
   * while the first range reads.
   */
  constructor(
    readonly plan: RangePlan,
    private readonly validator: TableValidator,
    private readonly setup: RangeSetup,
    port?: MessagePort,
  ) {
    let settle: (result: RangeResult) => void = () => undefined;
    this.result = new Promise((resolve) => (settle = resolve));
    const failed = (reason: string): void => settle({ ok: false, reason });
    const channel = port ? portWorker(port, failed) : ownWorker(failed);
    channel.on('message', (message) => {
      if (message.type === 'bytes') this.read = message.read;
      else settle(message.result);
    });
    this.channel = channel;
  }

  /**
   * `onBytes` for the first range's reader, which tells it the bytes of both ranges: once
   * the first rows are read, it also tells the validator how many rows the first range holds.
   */
  expectingRows(onBytes: ((read: number) => void) | undefined): (read: number) => void {
    let told = false;
    return (read) => {
      const own = read - this.read;
      if (!told && this.validator.rowNumber > 0 && own > 0) {
        told = true;
        this.validator.expectRows(rowsLeft(this.validator.rowNumber, own, this.plan.at));
      }
      onBytes?.(read);
    };
  }

  /** True from the request sent to the second range until it is joined or abandoned. */
  get running(): boolean {
    return this.request !== undefined;
  }

  /** True once `begin` was called: later calls do nothing. */
  get begun(): boolean {
    return this.beginCalled;
  }

  /** True once the first range's header is read: the second range can begin. */
  get headerRead(): boolean {
    return this.validator.header !== undefined;
  }

  /**
   * Once the first range has read its header, or its sample without finding it: starts the
   * second, if the table allows it. Called again, it does nothing.
   */
  begin(encoding: string, dialect: ResolvedDialect): void {
    if (this.beginCalled) return;
    this.beginCalled = true;
    const map = this.validator.header;
    // Comment rows given by number need the row numbers of the second range, which only
    // the first range's end tells.
    const reason = !map
      ? 'the header did not end in the first 64 KB'
      : !splittableEncoding(encoding)
        ? `line feeds cannot be found by byte in ${encoding}`
        : dialect.layout.commentRows.size > 0
          ? 'the dialect gives comment rows by number'
          : undefined;
    if (reason !== undefined || !map) {
      this.abandon(reason ?? '');
      return;
    }
    const { schema, version, keys, fieldsMatch, limits, keyMemory, rowLimits } = this.setup;
    const request: RangeRequest = {
      location: this.plan.location,
      start: this.plan.at,
      end: this.plan.size,
      encoding,
      csv: dialect.csv,
      commentChar: dialect.layout.commentChar,
      schema,
      version,
      primaryKey: keys.primaryKey,
      uniqueKeys: keys.uniqueKeys,
      fieldsMatch,
      map,
      limits,
      keyMemory,
      ...(rowLimits ? { rowLimits } : {}),
    };
    this.request = request;
    this.channel.post(request);
    // The two ranges share the key memory: each holds its half, and the merge the two.
    this.validator.shareKeyMemory(keyMemory, () =>
      this.abandon('the keys of the first range outgrew its half of the key memory'),
    );
  }

  /**
   * At the end of the first range: merges the second range's findings and returns true,
   * or returns false when the first range must read on alone.
   */
  async join(betweenRecords: boolean): Promise<boolean> {
    const request = this.request;
    if (!request) return false;
    if (!betweenRecords) return this.abandon('the split fell inside a quoted field');
    const result = await this.result;
    this.stop();
    if (!result.ok) return this.abandon(result.reason);
    if (this.validator.trackers.some((tracker) => tracker.isSpilled))
      return this.abandon('the keys of the first range outgrew their memory');
    this.secondKeyBytes = result.keyBytes;
    await mergeRange(this.validator, result, request, this.setup.limits);
    this.setup.onOutcome?.({ joined: true });
    return true;
  }

  /** Bytes the second range's keys held in memory, once joined. */
  secondKeyBytes: number | undefined;

  /** Stops the second range, if it runs; the first reads on alone. */
  abandon(reason: string): false {
    this.validator.endShare();
    this.stop();
    this.request = undefined;
    this.setup.onOutcome?.({ joined: false, reason });
    return false;
  }

  stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.channel.end();
  }
}

/** What decides whether a table is read as two ranges. */
export interface SplitCandidate {
  locations: readonly string[];
  format: string | undefined;
  inline: boolean;
  /** Copies of every row written in the same pass need one pass in order. */
  onePass: boolean;
  /** The limits on one row, which the second range keeps too. */
  rowLimits?: RowLimits | undefined;
  options: SplitOptions | false | undefined;
  /** A range worker the caller started, taken by the first table that splits. */
  takeWorker?: (() => MessagePort | undefined) | undefined;
}

/**
 * The split of a table into two ranges, when it is one local CSV file large enough to
 * gain from a second worker, with no foreign keys (their lookups would be read twice).
 */
export async function rangeSplitFor(
  candidate: SplitCandidate,
  validator: TableValidator,
  setup: RangeSetup,
): Promise<RangeSplit | undefined> {
  const { locations, format, options } = candidate;
  const [location, ...more] = locations;
  if (options === false || candidate.inline || candidate.onePass || location === undefined)
    return undefined;
  if (more.length > 0 || isRemote(location) || isSpreadsheet(format) || isParquet(format))
    return undefined;
  if (setup.keys.foreignKeys.length > 0 || availableParallelism() < 2) return undefined;
  const plan = await planRanges(location, options ?? {});
  return plan
    ? new RangeSplit(
        plan,
        validator,
        { ...setup, rowLimits: candidate.rowLimits },
        candidate.takeWorker?.(),
      )
    : undefined;
}

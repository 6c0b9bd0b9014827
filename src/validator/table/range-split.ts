/** Starts, joins and stops the second range's worker for the first range's reader: see ranges.ts. */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { isRemote } from '../descriptor/paths.js';
import { isSpreadsheet } from '../sheets/formats.js';
import type { SchemaDescriptor, StandardVersion } from '../descriptor/types.js';
import type { TaskLimits } from '../report/task.js';
import { workerUrl, YOUNG_GENERATION_MB } from '../worker-url.js';
import type { ResolvedDialect } from './dialect.js';
import type { FieldsMatch } from './header.js';
import { mergeRange } from './range-merge.js';
import {
  planRanges,
  RANGE_WORKER,
  splittableEncoding,
  type SplitOptions,
  type RangeMessage,
  type RangePlan,
  type RangeRequest,
  type RangeResult,
} from './ranges.js';
import type { TableKeys, TableValidator } from './table-validator.js';

export interface RangeSetup {
  schema: SchemaDescriptor;
  version: StandardVersion;
  keys: TableKeys;
  fieldsMatch: FieldsMatch;
  limits: TaskLimits;
  /** The second range's share of the key memory. */
  keyMemory: number;
  /** Told whether the table was read as two ranges, and if not, why. */
  onOutcome?: (outcome: RangeOutcome) => void;
}

export type RangeOutcome = { joined: true } | { joined: false; reason: string };

export class RangeSplit {
  private readonly worker: Worker;
  private request: RangeRequest | undefined;
  private readonly result: Promise<RangeResult>;
  /** Bytes the second range has read. */
  read = 0;

  /** Starts the second range's worker at once: it loads its code while the first reads. */
  constructor(
    readonly plan: RangePlan,
    private readonly validator: TableValidator,
    private readonly setup: RangeSetup,
  ) {
    const worker = new Worker(workerUrl(), {
      workerData: RANGE_WORKER,
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    this.worker = worker;
    this.result = new Promise((resolve) => {
      const failed = (reason: string): void => resolve({ ok: false, reason });
      worker.on('message', (message: RangeMessage) => {
        if (message.type === 'bytes') this.read = message.read;
        else if (message.type === 'range') resolve(message.result);
      });
      worker.on('error', (error: Error) => failed(error.message));
      worker.on('exit', () => failed('the range worker stopped'));
    });
  }

  /** True from the request sent to the second range until it is joined or abandoned. */
  get running(): boolean {
    return this.request !== undefined;
  }

  /** Once the first range has read its sample: starts the second, if the table allows it. */
  begin(encoding: string, dialect: ResolvedDialect): void {
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
    const { schema, version, keys, fieldsMatch, limits, keyMemory } = this.setup;
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
      labels: this.validator.labels,
      limits,
      keyMemory,
    };
    this.request = request;
    this.worker.postMessage(request);
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
    await mergeRange(this.validator, result, request, this.setup.limits);
    this.setup.onOutcome?.({ joined: true });
    return true;
  }

  /** Stops the second range, if it runs; the first reads on alone. */
  abandon(reason: string): false {
    this.stop();
    this.request = undefined;
    this.setup.onOutcome?.({ joined: false, reason });
    return false;
  }

  stop(): void {
    void this.worker.terminate();
  }
}

/** What decides whether a table is read as two ranges. */
export interface SplitCandidate {
  locations: string[];
  format: string | undefined;
  inline: boolean;
  /** Copies written in the same pass, and row limits, need one pass in order. */
  onePass: boolean;
  options: SplitOptions | false | undefined;
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
  if (more.length > 0 || isRemote(location) || isSpreadsheet(format)) return undefined;
  if (setup.keys.foreignKeys.length > 0 || availableParallelism() < 2) return undefined;
  const plan = await planRanges(location, options ?? {});
  return plan ? new RangeSplit(plan, validator, setup) : undefined;
}

/** Starts, joins and stops the second range's worker for the first range's reader: see ranges.ts. */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { isRemote } from '../descriptor/paths.js';
import { isSpreadsheet } from '../sheets/read.js';
import type { SchemaDescriptor, StandardVersion } from '../descriptor/types.js';
import type { TaskLimits } from '../report/task.js';
import { workerUrl, YOUNG_GENERATION_MB } from '../worker-url.js';
import type { ResolvedDialect } from './dialect.js';
import type { FieldsMatch } from './header.js';
import { mergeRange } from './range-merge.js';
import {
  planRanges,
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
  /** Told when the second range starts. */
  onStart?: () => void;
}

export class RangeSplit {
  private worker: Worker | undefined;
  private request: RangeRequest | undefined;
  private result: Promise<RangeResult> | undefined;
  /** Bytes the second range has read. */
  read = 0;

  constructor(
    readonly plan: RangePlan,
    private readonly validator: TableValidator,
    private readonly setup: RangeSetup,
  ) {}

  get started(): boolean {
    return this.result !== undefined;
  }

  /** Once the first range has read its sample: starts the second, if the table allows it. */
  begin(encoding: string, dialect: ResolvedDialect): void {
    const map = this.validator.header;
    // Comment rows given by number need the row numbers of the second range, which only
    // the first range's end tells.
    if (!map || !splittableEncoding(encoding) || dialect.layout.commentRows.size > 0) return;
    const { schema, version, keys, fieldsMatch, limits, keyMemory } = this.setup;
    const request: RangeRequest = {
      kind: 'range',
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
    const worker = new Worker(workerUrl(), {
      workerData: request,
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    this.request = request;
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
    this.setup.onStart?.();
  }

  /**
   * At the end of the first range, between two records: merges the second range's findings
   * and returns true, or returns false when the first range must read on alone.
   */
  async join(): Promise<boolean> {
    const request = this.request;
    if (!this.result || !request) return false;
    const result = await this.result;
    this.stop();
    if (!result.ok || this.validator.trackers.some((tracker) => tracker.isSpilled)) return false;
    await mergeRange(this.validator, result, request, this.setup.limits);
    return true;
  }

  /** Stops the second range, if it runs. */
  stop(): void {
    void this.worker?.terminate();
    this.worker = undefined;
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

import { closeSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { asList } from '../validator/descriptor/rules.js';
import type { FieldDescriptor, ResourceDescriptor } from '../validator/descriptor/types.js';
import { isRemote } from '../model/paths.js';
import { formatOf } from '../model/format.js';
import { openSpillParts } from '../validator/table/spill.js';
import { workerUrl, YOUNG_GENERATION_MB } from '../validator/worker-url.js';
import { encodeSide, type EncodedSide, type EncodeSpec } from './encode.js';
import type {
  EncodeWorkerData,
  EncodeWorkerMessage,
  EncodeWorkerProgress,
  JoinRequest,
} from './encode-worker.js';
import { joinPart, JoinTotals, type JoinFound, type JoinPlan } from './join.js';
import { measuring, TableProgress, type DiffEvent } from './progress.js';
import type { RowCounts, RowSamples } from './row-types.js';
import type { DiffSide } from './side.js';
import { canonical, castingOf, schemaOf } from './schema.js';

export type { CellChange, RowCounts, RowSamples } from './row-types.js';

export interface RowsDiff {
  rows: RowCounts;
  samples: RowSamples;
  /** Keys found more than once on a side: the later rows are left out of the diff. */
  duplicates: { a: number; b: number };
}

/** What the rows are compared on: fields both sides have, by their name in each. */
export interface RowPlan {
  /**
   * Pairs of field names, a's and b's, in b's order; undefined when neither table has a
   * schema: their cells are then compared as written, by the header's labels.
   */
  columns: [string, string][] | undefined;
  /** The key's fields by their name in b, or undefined to match whole rows. */
  key: string[] | undefined;
  limit: number;
  /** Memory for matching rows, in bytes: DEFAULT_MATCH_MEMORY when not given. */
  memory?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Hears the rows read and the parts matched, as they go. */
  onProgress?: ((event: DiffEvent) => void) | undefined;
}

/**
 * Memory for matching rows: a part of each side held at once, about two and a half times
 * its bytes in memory with its index, and as much in the worker thread matching beside.
 */
export const DEFAULT_MATCH_MEMORY = 192 * 1024 * 1024;
/** Of the memory for matching, what one part of one side's table may hold. */
const PART_SHARE = 8;
const MOST_PARTS = 256;
/** Parts when a side's size is not known beforehand (a hub's table without `bytes`). */
const UNKNOWN_SIZE_PARTS = 64;
/** A local table past this size is read in a worker thread while the other side is read here. */
export const WORKER_BYTES = 8 * 1024 * 1024;

type Side = { side: DiffSide; resource: ResourceDescriptor };

/** A local table's size on disk, a hub table's declared size, or undefined when not known. */
async function sizeOf({ side, resource }: Side): Promise<number | undefined> {
  if (resource.data !== undefined) return 0;
  const dir = side.base.dir;
  if (dir === undefined) return typeof resource.bytes === 'number' ? resource.bytes : undefined;
  let total = 0;
  for (const path of asList(resource.path)) {
    if (isRemote(path)) return undefined;
    total += (await stat(join(dir, path)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

function partsFor(sizes: (number | undefined)[], memory: number): number {
  if (sizes.some((size) => size === undefined)) return UNKNOWN_SIZE_PARTS;
  const largest = Math.max(...(sizes as number[]));
  const partBytes = Math.max(1, memory / PART_SHARE);
  return Math.min(MOST_PARTS, 2 ** Math.ceil(Math.log2(Math.max(1, largest / partBytes))));
}

/** What decides how a field's cells are cast, as text to compare. */
function typing(field: FieldDescriptor | undefined): string {
  return field ? canonical(castingOf(field)) : '';
}

/**
 * Whether rows may be compared as their cells are written, cast only when their texts
 * differ: both tables are delimited text and each compared field casts its cells alike.
 */
function comparableAsWritten(a: Side, b: Side, columns: [string, string][]): boolean {
  const text = (resource: ResourceDescriptor) =>
    ['csv', 'tsv'].includes(formatOf(resource) ?? 'csv');
  const schemaA = schemaOf(a.resource);
  const schemaB = schemaOf(b.resource);
  if (!schemaA || !schemaB || !text(a.resource) || !text(b.resource)) return false;
  if (canonical(schemaA.missingValues ?? ['']) !== canonical(schemaB.missingValues ?? ['']))
    return false;
  const fieldA = new Map(schemaA.fields.map((field) => [field.name, field]));
  const fieldB = new Map(schemaB.fields.map((field) => [field.name, field]));
  return columns.every(
    ([inA, inB]) =>
      typing(fieldA.get(inA)) !== '' && typing(fieldA.get(inA)) === typing(fieldB.get(inB)),
  );
}

/** A side encoded in a worker thread, which then helps match the parts. */
interface WorkerSide {
  encoded: EncodedSide;
  /** Matches these parts there; undefined when that failed (they are then matched here). */
  join(plan: JoinPlan, parts: [number, number][]): Promise<JoinFound | undefined>;
  end(): void;
}

type OnWorkerProgress = (progress: EncodeWorkerProgress) => void;

function isProgress(message: EncodeWorkerMessage): message is EncodeWorkerProgress {
  return message.type === 'read' || message.type === 'matched';
}

/**
 * The worker's next answer, its progress told on the way: undefined when it failed or
 * ended, rejected when the diff was stopped.
 */
function answer(
  worker: Worker,
  signal: AbortSignal | undefined,
  onProgress: OnWorkerProgress | undefined,
): Promise<Exclude<EncodeWorkerMessage, EncodeWorkerProgress> | undefined> {
  return new Promise((resolve, reject) => {
    const settle = (message: Exclude<EncodeWorkerMessage, EncodeWorkerProgress> | undefined) => {
      signal?.removeEventListener('abort', fail);
      worker.off('message', heard);
      worker.off('error', fail);
      worker.off('exit', fail);
      if (signal?.aborted) reject(signal.reason as Error);
      else resolve(message);
    };
    const heard = (message: EncodeWorkerMessage) => {
      if (!isProgress(message)) settle(message);
      else if (!signal?.aborted) onProgress?.(message);
    };
    // Failed, ended or stopped: settle tells which.
    const fail = () => settle(undefined);
    signal?.addEventListener('abort', fail, { once: true });
    worker.on('message', heard);
    worker.on('error', fail);
    worker.on('exit', fail);
  });
}

/**
 * Encodes a large local side in a worker thread, into files opened here. Undefined when it
 * failed: the side is then read here, which tells what went wrong as it is.
 */
export async function encodeInWorker(
  spec: EncodeSpec,
  dir: string,
  signal: AbortSignal | undefined,
  onProgress?: OnWorkerProgress,
): Promise<WorkerSide | undefined> {
  const { Worker: WorkerThread } = process.getBuiltinModule('node:worker_threads');
  const fds = openSpillParts(spec.parts);
  const data: EncodeWorkerData = { kind: 'diff-encode', spec, dir, fds };
  const worker: Worker = new WorkerThread(workerUrl(), {
    workerData: data,
    execArgv: [],
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  const end = () => void worker.terminate();
  try {
    const message = await answer(worker, signal, onProgress);
    if (message?.type !== 'encoded')
      throw new Error(message?.type === 'failed' ? message.message : 'the worker ended');
    return {
      encoded: { fds, rows: message.rows, labels: message.labels },
      async join(plan, parts) {
        const request: JoinRequest = { type: 'join', plan, parts };
        worker.postMessage(request);
        const joined = await answer(worker, signal, onProgress);
        return joined?.type === 'joined' ? joined.found : undefined;
      },
      end,
    };
  } catch (error) {
    end();
    for (const fd of fds) closeSync(fd);
    if (signal?.aborted) throw error;
    return undefined;
  }
}

type Encoded = { encoded: EncodedSide; worker?: WorkerSide | undefined };

/** Encodes side a (0) or b (1), telling `progress` its rows read and, from a worker, its parts matched. */
async function encode(
  side: Side,
  spec: EncodeSpec,
  at: { index: 0 | 1; size: number | undefined; progress: TableProgress },
  signal: AbortSignal | undefined,
): Promise<Encoded> {
  const { index, size, progress } = at;
  const dir = side.side.base.dir;
  if (dir !== undefined && size !== undefined && size > WORKER_BYTES) {
    const format = formatOf(side.resource);
    const worker = await encodeInWorker(
      { ...spec, resource: format ? { ...spec.resource, format } : spec.resource },
      dir,
      signal,
      (message) => {
        if (message.type === 'read') progress.reading(index, message.rows, message.read);
        else progress.partMatched();
      },
    );
    if (worker) {
      progress.readWhole(index, worker.encoded.rows);
      return { encoded: worker.encoded, worker };
    }
  }
  // A table of one file whose size was not known: its server may say, as it answers.
  const source =
    size === undefined && asList(side.resource.path).length === 1
      ? {
          base: side.side.base,
          fetch: measuring(side.side.fetch, (bytes) => progress.sized(index, bytes)),
        }
      : side.side;
  const encoded = await encodeSide(spec, source, {
    signal,
    onRead: (rows, read) => progress.reading(index, rows, read),
  });
  progress.readWhole(index, encoded.rows);
  return { encoded };
}

function release(sides: PromiseSettledResult<Encoded>[]): void {
  for (const side of sides)
    if (side.status === 'fulfilled') {
      side.value.worker?.end();
      for (const fd of side.value.encoded.fds) closeSync(fd);
    }
}

/** Matches parts in this thread, hearing Ctrl-C (and the worker's progress) between them. */
async function matchHere(
  parts: [number, number][],
  totals: JoinTotals,
  progress: TableProgress,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const [fdA, fdB] of parts) {
    await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    joinPart(fdA, fdB, totals);
    progress.partMatched();
  }
}

/**
 * Matches the parts, some in the worker thread that encoded a side when there is one (it
 * tells `progress` of its own parts).
 */
async function joinAll(
  totals: JoinTotals,
  parts: [number, number][],
  helper: WorkerSide | undefined,
  progress: TableProgress,
  signal: AbortSignal | undefined,
): Promise<void> {
  const theirs = helper ? parts.filter((_, index) => index % 2 === 1) : [];
  const ours = helper ? parts.filter((_, index) => index % 2 === 0) : parts;
  const helped = helper?.join(totals.plan, theirs);
  // Ctrl-C rejects the worker's answer at once, while this thread may be inside a part: the
  // rejection is handled from now on (an unhandled one ended data with exit 1 and a trace).
  void helped?.catch(() => undefined);
  await matchHere(ours, totals, progress, signal);
  const found = await helped;
  if (found) totals.merge(found);
  else if (helped) await matchHere(theirs, totals, progress, signal);
  // A Ctrl-C typed during the last part waits in the event loop behind the worker's answer,
  // whose handling would otherwise run the command to its end first: heard here, it stops
  // the diff all the same.
  await new Promise((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}

/**
 * The rows of two versions of a table, matched by their key (or whole), as counts and the
 * first `limit` rows of each kind. Each side is written to disk in parts by the hash of its
 * keys, both at once (a large local one in a worker thread), then the parts are matched one
 * at a time: memory holds one part of each side, whatever the tables' size.
 */
export async function diffRows(a: Side, b: Side, plan: RowPlan): Promise<RowsDiff> {
  const columnsA = plan.columns?.map(([inA]) => inA);
  let columnsB = plan.columns?.map(([, inB]) => inB);
  const keyB = plan.key;
  const keyA = keyB?.map((name) => plan.columns?.find(([, inB]) => inB === name)?.[0] ?? name);
  const asWritten =
    keyB !== undefined && plan.columns !== undefined && comparableAsWritten(a, b, plan.columns);
  const sizes = await Promise.all([sizeOf(a), sizeOf(b)]);
  const parts = partsFor(sizes, plan.memory ?? DEFAULT_MATCH_MEMORY);
  const spec = (side: Side, columns: string[] | undefined, key: string[] | undefined) =>
    ({ resource: side.resource, columns, key, asWritten, parts }) satisfies EncodeSpec;
  const progress = new TableProgress(b.resource.name, sizes, parts, plan.onProgress);
  const sides = await Promise.allSettled([
    encode(a, spec(a, columnsA, keyA), { index: 0, size: sizes[0], progress }, plan.signal),
    encode(b, spec(b, columnsB, keyB), { index: 1, size: sizes[1], progress }, plan.signal),
  ]);
  const [encodedA, encodedB] = sides;
  if (encodedA?.status !== 'fulfilled' || encodedB?.status !== 'fulfilled') {
    release(sides);
    throw ((encodedA?.status === 'rejected' ? encodedA : encodedB) as PromiseRejectedResult).reason;
  }
  columnsB ??= encodedB.value.encoded.labels;
  const totals = new JoinTotals({
    keyed: keyB !== undefined,
    columns: columnsB,
    keyAt: keyB?.map((name) => columnsB.indexOf(name)) ?? [],
    asWritten,
    a: { resource: a.resource, columns: columnsA ?? encodedA.value.encoded.labels },
    b: { resource: b.resource, columns: columnsB },
    limit: plan.limit,
  });
  const fdsA = encodedA.value.encoded.fds;
  const fdsB = encodedB.value.encoded.fds;
  try {
    await joinAll(
      totals,
      fdsA.map((fd, part) => [fd, fdsB[part] as number]),
      encodedA.value.worker ?? encodedB.value.worker,
      progress,
      plan.signal,
    );
  } finally {
    release(sides);
  }
  return {
    rows: totals.rows(keyB ?? null),
    samples: totals.samples(),
    duplicates: totals.duplicates,
  };
}

/**
 * Validation in a worker thread whose young generation is capped. Validation allocates
 * many short-lived strings, and left alone V8 grows the young generation until the
 * process passes 256 MB on large files; a capped worker stays near 170 MB on 1 GB
 * at the same speed (npm run bench:memory).
 */
import type { MessagePort } from 'node:worker_threads';
import { AuthError } from '../errors.js';
import { startRangeWorker } from './table/range-split.js';
import { maySplit } from './small.js';
import { PARQUET_YOUNG_GENERATION_MB, workerUrl, YOUNG_GENERATION_MB } from './worker-url.js';
import {
  RemoteUnreachable,
  SourceNotFound,
  type Report,
  type ValidateEvent,
  type ValidateOptions,
} from './index.js';
import type { CopyKind, DerivedTable } from './derive.js';
import type { SchemaDescriptor } from './descriptor/types.js';
import type { ProxySettings } from '../http/proxy.js';
import type { HubOrigins } from '../http/credential.js';

/** A hub's token and the hub it belongs to: requests to that hub carry it, no others. */
export interface HubCredential {
  token: string;
  hub: HubOrigins;
}

export interface IsolatedRequest {
  /** A path or URL as the CLI takes it, or a descriptor in memory with its files' folder. */
  input: string | { descriptor: unknown; dir: string };
  options: Pick<
    ValidateOptions,
    | 'limitErrors'
    | 'pickErrors'
    | 'skipErrors'
    | 'rowLimits'
    | 'strict'
    | 'sheet'
    | 'keyMemory'
    | 'split'
  >;
  /** How long a server of remote resources may stay silent. */
  silenceMs: number;
  /** When set, only these hosts may be fetched from (the hub's rule: none by default). */
  allowHosts?: string[] | undefined;
  /** The proxies remote resources are fetched through, when the environment names any. */
  proxy?: ProxySettings | undefined;
  /** The CLI's token for a URL of its hub (see client/credential.ts); the hub's own never. */
  credential?: HubCredential | undefined;
  /** When set and the package is valid, its tables' copies of these kinds are written here. */
  derive?:
    | { to: string; kinds: CopyKind[]; remoteToo?: boolean; csvSchema?: SchemaDescriptor }
    | undefined;
  /** A range worker started beside this one, for a large table split in two. */
  rangePort?: MessagePort | undefined;
}

export type WorkerMessage =
  | { type: 'progress'; event: ValidateEvent }
  | { type: 'report'; report: Report; derived?: DerivedTable[] }
  | { type: 'written'; kind: CopyKind; bytes: number }
  /** A request to another origin than the hub's went without the credential. */
  | { type: 'withheld'; origin: string }
  | { type: 'failure'; kind: FailureKind; message: string; stack: string | undefined };

/** What a failure in the worker was, so that it is thrown again as the same kind here. */
export type FailureKind = 'not-found' | 'unreachable' | 'refused' | 'other';

export class WorkerFailure extends Error {
  override readonly name = 'WorkerFailure';
}

/** The worker reached its heap limit: the input needs more memory than it may have. */
export class OutOfMemory extends Error {
  override readonly name = 'OutOfMemory';
}

/** How validateIsolated validates: the validation's options, and the worker's settings. */
export type IsolatedOptions = IsolatedRequest['options'] & {
  silenceMs: number;
  allowHosts?: string[];
  proxy?: ProxySettings | undefined;
  credential?: HubCredential | undefined;
  /** Told the origin of each request the credential was held back from. */
  onWithheld?: (origin: string) => void;
  /** Caps the worker's heap; past it the validation fails with OutOfMemory. */
  heapMb?: number;
  signal?: AbortSignal;
  onProgress?: (event: ValidateEvent) => void;
  /** Told as each copy's file grows, with the bytes written to it so far. */
  onWritten?: (kind: CopyKind, bytes: number) => void;
};

export async function validateIsolated(
  input: IsolatedRequest['input'],
  options: IsolatedOptions,
): Promise<Report> {
  return (await runIsolated(input, options, undefined)).report;
}

/**
 * Validates, and writes copies of the kinds asked of the tables of a valid package into a
 * folder (the hub's previews as it publishes, and its CSV and JSON copies when asked for).
 */
export function validateAndDeriveIsolated(
  input: IsolatedRequest['input'],
  options: IsolatedOptions,
  derive: NonNullable<IsolatedRequest['derive']>,
): Promise<{ report: Report; derived: DerivedTable[] }> {
  return runIsolated(input, options, derive);
}

async function runIsolated(
  input: IsolatedRequest['input'],
  options: IsolatedOptions,
  derive: IsolatedRequest['derive'],
): Promise<{ report: Report; derived: DerivedTable[] }> {
  const {
    signal,
    onProgress,
    onWritten,
    onWithheld,
    silenceMs,
    allowHosts,
    proxy,
    credential,
    heapMb,
    ...serializable
  } = options;
  const request: IsolatedRequest = {
    input,
    options: serializable,
    silenceMs,
    allowHosts,
    proxy,
    credential,
    derive,
  };
  // Started at once beside the validation's worker, a second one is ready by the time a large
  // local table is split. Copies of every row are written in one pass, never split; previews
  // come from the first rows, which a split leaves in the first range.
  const onePass = derive !== undefined && derive.kinds.some((kind) => kind !== 'preview');
  const splits = !onePass && (await maySplit(input, serializable.split));
  const range = splits ? startRangeWorker(heapMb) : undefined;
  if (range) request.rangePort = range.port;
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  const worker = new Worker(workerUrl(), {
    workerData: request,
    transferList: range ? [range.port] : [],
    execArgv: [],
    resourceLimits: {
      maxYoungGenerationSizeMb: derive?.kinds.includes('parquet')
        ? PARQUET_YOUNG_GENERATION_MB
        : YOUNG_GENERATION_MB,
      ...(heapMb ? { maxOldGenerationSizeMb: heapMb } : {}),
    },
  });
  return new Promise((resolve, reject) => {
    const abort = (): void => {
      void worker.terminate();
      void range?.worker.terminate();
      reject(new DOMException('validation interrupted', 'AbortError'));
    };
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    let report: Report | undefined;
    let derived: DerivedTable[] = [];
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') onProgress?.(message.event);
      else if (message.type === 'written') onWritten?.(message.kind, message.bytes);
      else if (message.type === 'withheld') onWithheld?.(message.origin);
      else if (message.type === 'report') {
        // Answered once the worker is gone: a process that ends while a worker thread is
        // still winding down (the output closed, process.exit) can hang in that teardown.
        report = message.report;
        derived = message.derived ?? [];
        void worker.terminate();
      } else {
        const error =
          message.kind === 'not-found'
            ? new SourceNotFound(message.message)
            : message.kind === 'unreachable'
              ? new RemoteUnreachable(message.message)
              : message.kind === 'refused'
                ? new AuthError(message.message)
                : new WorkerFailure(message.message);
        if (message.stack) error.stack = message.stack;
        reject(error);
      }
    });
    worker.on('error', (error: Error & { code?: string }) =>
      reject(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new OutOfMemory(`validation needed more than ${String(heapMb ?? 0)} MB of memory`)
          : error,
      ),
    );
    worker.on('exit', () => {
      void range?.worker.terminate();
      signal?.removeEventListener('abort', abort);
      if (report) resolve({ report, derived });
      else reject(new WorkerFailure('the validation worker stopped without a report'));
    });
  });
}

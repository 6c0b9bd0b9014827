/**
 * Validation in a worker thread whose young generation is capped. Validation allocates
 * many short-lived strings, and left alone V8 grows the young generation until the
 * process passes 256 MB on large files; a capped worker stays near 170 MB on 1 GB
 * at the same speed (npm run bench:memory).
 */
import { Worker } from 'node:worker_threads';
import { SourceNotFound, type Report, type ValidateEvent, type ValidateOptions } from './index.js';

export interface IsolatedRequest {
  input: string;
  options: Pick<ValidateOptions, 'limitErrors' | 'pickErrors' | 'skipErrors'>;
  /** How long a server of remote resources may stay silent. */
  silenceMs: number;
}

export type WorkerMessage =
  | { type: 'progress'; event: ValidateEvent }
  | { type: 'report'; report: Report }
  | { type: 'failure'; notFound: boolean; message: string; stack: string | undefined };

const YOUNG_GENERATION_MB = 32;

export class WorkerFailure extends Error {
  override readonly name = 'WorkerFailure';
}

export function validateIsolated(
  input: string,
  options: IsolatedRequest['options'] & {
    silenceMs: number;
    signal?: AbortSignal;
    onProgress?: (event: ValidateEvent) => void;
  },
): Promise<Report> {
  const { signal, onProgress, silenceMs, ...serializable } = options;
  const request: IsolatedRequest = { input, options: serializable, silenceMs };
  const worker = new Worker(new URL('./worker.js', import.meta.url), {
    workerData: request,
    execArgv: [],
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
  return new Promise<Report>((resolve, reject) => {
    const abort = (): void => {
      void worker.terminate();
      reject(new DOMException('validation interrupted', 'AbortError'));
    };
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'progress') onProgress?.(message.event);
      else if (message.type === 'report') resolve(message.report);
      else {
        const error = message.notFound
          ? new SourceNotFound(message.message)
          : new WorkerFailure(message.message);
        if (message.stack) error.stack = message.stack;
        reject(error);
      }
    });
    worker.on('error', reject);
    worker.on('exit', () => {
      signal?.removeEventListener('abort', abort);
      reject(new WorkerFailure('the validation worker stopped without a report'));
    });
  });
}

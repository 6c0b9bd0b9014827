/** Runs one validation in a worker thread; see isolated.ts. */
import { parentPort, workerData } from 'node:worker_threads';
import { fetch as transportFetch } from '../client/transport.js';
import { clientFetch } from '../client/http.js';
import { RemoteUnreachable, SourceNotFound, validate, validateDescriptor } from './index.js';
import { allowedHostsOnly } from './allowed-hosts.js';
import type { IsolatedRequest, WorkerMessage } from './isolated.js';
import type { ValidateEvent } from './index.js';
import { deriveTables } from './derive.js';
import type { ResourceDescriptor } from './descriptor/types.js';

function resourcesOf(descriptor: unknown): ResourceDescriptor[] {
  const list = (descriptor as { resources?: unknown } | null)?.resources;
  return Array.isArray(list) ? (list as ResourceDescriptor[]) : [];
}

const port = parentPort;
const request = workerData as IsolatedRequest;
const fetch = clientFetch(
  request.allowHosts ? allowedHostsOnly(transportFetch, request.allowHosts) : transportFetch,
  request.silenceMs,
);
const post = (message: WorkerMessage): void => port?.postMessage(message);

try {
  const options = {
    ...request.options,
    fetch,
    onProgress: (event: ValidateEvent) => post({ type: 'progress', event }),
  };
  const input = request.input;
  const report =
    typeof input === 'string'
      ? await validate(input, options)
      : await validateDescriptor(input.descriptor, input.dir, options);
  const derived =
    request.deriveTo !== undefined && report.valid && typeof input !== 'string'
      ? await deriveTables(resourcesOf(input.descriptor), input.dir, request.deriveTo, fetch)
      : undefined;
  post({ type: 'report', report, ...(derived ? { derived } : {}) });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  post({
    type: 'failure',
    kind:
      error instanceof SourceNotFound
        ? 'not-found'
        : error instanceof RemoteUnreachable
          ? 'unreachable'
          : 'other',
    message,
    stack: error instanceof Error ? error.stack : undefined,
  });
}

/** Runs one validation in a worker thread; see isolated.ts. */
import { parentPort, workerData } from 'node:worker_threads';
import { fetch as transportFetch } from '../client/transport.js';
import { clientFetch } from '../client/http.js';
import { SourceNotFound, validate } from './index.js';
import type { IsolatedRequest, WorkerMessage } from './isolated.js';

const port = parentPort;
const request = workerData as IsolatedRequest;
const fetch = clientFetch(transportFetch, request.silenceMs);
const post = (message: WorkerMessage): void => port?.postMessage(message);

try {
  const report = await validate(request.input, {
    ...request.options,
    fetch,
    onProgress: (event) => post({ type: 'progress', event }),
  });
  post({ type: 'report', report });
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  post({
    type: 'failure',
    notFound: error instanceof SourceNotFound,
    message,
    stack: error instanceof Error ? error.stack : undefined,
  });
}

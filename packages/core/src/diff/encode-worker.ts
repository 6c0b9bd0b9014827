/**
 * A worker thread that writes one local side of a table diff (encode.ts) while the other
 * side is read, then matches some of the parts (join.ts) while the other thread matches
 * the rest. The parts' files are opened by the thread that starts it: a worker's own files
 * are closed when it ends.
 */
import { parentPort } from 'node:worker_threads';
import type { EncodeSpec } from './encode.js';
import type { JoinFound, JoinPlan } from './join.js';

export interface EncodeWorkerData {
  kind: 'diff-encode';
  spec: EncodeSpec;
  dir: string;
  fds: number[];
}

/** How far the worker is, as it goes: rows and bytes read, then each part matched. */
export type EncodeWorkerProgress =
  { type: 'read'; rows: number; read: number } | { type: 'matched' };

export type EncodeWorkerMessage =
  | EncodeWorkerProgress
  | { type: 'encoded'; rows: number; labels: string[] }
  | { type: 'joined'; found: JoinFound }
  | { type: 'failed'; message: string };

export interface JoinRequest {
  type: 'join';
  plan: JoinPlan;
  /** Each part's files, a's and b's. */
  parts: [number, number][];
}

export function isEncodeWorker(data: unknown): data is EncodeWorkerData {
  return (
    typeof data === 'object' && data !== null && (data as { kind?: unknown }).kind === 'diff-encode'
  );
}

function failed(error: unknown): EncodeWorkerMessage {
  return { type: 'failed', message: error instanceof Error ? error.message : String(error) };
}

async function join(
  request: JoinRequest,
  post: (message: EncodeWorkerMessage) => void,
): Promise<EncodeWorkerMessage> {
  try {
    const { joinPart, JoinTotals } = await import('./join.js');
    const totals = new JoinTotals(request.plan);
    for (const [fdA, fdB] of request.parts) {
      joinPart(fdA, fdB, totals);
      post({ type: 'matched' });
    }
    return { type: 'joined', found: totals.found() };
  } catch (error) {
    return failed(error);
  }
}

export async function runEncodeWorker(data: EncodeWorkerData): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const post = (message: EncodeWorkerMessage) => port.postMessage(message);
  let message: EncodeWorkerMessage;
  try {
    const { encodeSide } = await import('./encode.js');
    const side = await encodeSide(
      data.spec,
      {
        base: { dir: data.dir },
        fetch: () => Promise.reject(new Error('a local package is read from its folder')),
      },
      { fds: data.fds, onRead: (rows, read) => post({ type: 'read', rows, read }) },
    );
    message = { type: 'encoded', rows: side.rows, labels: side.labels };
  } catch (error) {
    port.postMessage(failed(error));
    return;
  }
  port.once('message', (request: JoinRequest) => {
    void join(request, post).then(post);
  });
  port.postMessage(message);
}

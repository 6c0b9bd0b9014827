/**
 * For load balancers and orchestrators: `/healthz` says the process is alive (no database
 * call), `/readyz` that it can serve now: its database and its store each answered within a
 * second, and it is not shutting down.
 */
import type { ServerResponse } from 'node:http';
import type { Hub } from '../context.js';
import { HttpError } from '../http-error.js';
import { sendJson, type Request } from './request.js';
import { sameSecret } from '../services/tokens.js';

/** How long the database and the store each have to answer a readiness check. */
const READY_MS = 1000;

/** Resolves true when the check answered in time, false when it failed or was late. */
async function answers(check: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_MS);
  });
  try {
    return await Promise.race([
      check().then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthz(_hub: Hub, _request: Request, response: ServerResponse): void {
  sendJson(response, 200, { alive: true });
}

export async function readyz(hub: Hub, _request: Request, response: ServerResponse): Promise<void> {
  if (hub.lifecycle.stopping) {
    sendJson(response, 503, { ready: false, failed: ['shutting down'] });
    return;
  }
  const [database, storage] = await Promise.all([
    answers(() => hub.store.ping()),
    // A key no one writes: found missing is an answer.
    answers(() => hub.storage.stat('readyz-probe')),
  ]);
  const failed = [...(database ? [] : ['database']), ...(storage ? [] : ['storage'])];
  sendJson(response, failed.length === 0 ? 200 : 503, { ready: failed.length === 0, failed });
}

/** The Prometheus metrics, when the operator lets them be read, and to whom. */
export async function metrics(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const access = hub.metricsAccess;
  if (!access.enabled) throw new HttpError(404, 'not found');
  if (access.token !== undefined) {
    const given = request.raw.headers.authorization ?? '';
    if (!sameSecret(given, `Bearer ${access.token}`)) {
      response.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      throw new HttpError(401, 'the metrics need the bearer token the operator set');
    }
  }
  const text = await hub.metrics.registry.metrics();
  response.writeHead(200, {
    'Content-Type': hub.metrics.registry.contentType,
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(request.method === 'HEAD' ? undefined : text);
}

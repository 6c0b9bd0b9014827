/** Validates a package in a worker thread and posts its report: see isolated.ts. */
import { parentPort } from 'node:worker_threads';
import { clientFetch, type HttpFetch } from '../http/http.js';
import { carryingToken } from '../http/credential.js';
import { AuthError } from '../errors.js';
import { RemoteUnreachable, SourceNotFound, validate, validateDescriptor } from './index.js';
import { allowedHostsOnly } from './allowed-hosts.js';
import type { IsolatedRequest, WorkerMessage } from './isolated.js';
import type { ValidateEvent } from './index.js';
import type { ProxySettings } from '../http/proxy.js';
import { saveCodeCache } from '../runtime.js';

const port = parentPort;

/**
 * The HTTP transport, loaded at the first remote request: undici takes a worker some 50 ms
 * to load, which a package of local files never needs.
 */
function lazyTransport(proxy: ProxySettings | undefined): HttpFetch {
  let loaded: Promise<HttpFetch> | undefined;
  return async (url, init) => {
    loaded ??= import('../http/transport.js').then((transport) =>
      proxy ? transport.proxiedFetch(proxy) : transport.fetch,
    );
    return (await loaded)(url, init);
  };
}

export async function runPackage(request: IsolatedRequest): Promise<void> {
  const post = (message: WorkerMessage): void => port?.postMessage(message);
  const transport = lazyTransport(request.proxy);
  const client = clientFetch(
    request.allowHosts ? allowedHostsOnly(transport, request.allowHosts) : transport,
    request.silenceMs,
  );
  const credential = request.credential;
  const fetch = credential
    ? carryingToken(
        client,
        credential.hub,
        credential.token,
        (origin) => post({ type: 'withheld', origin }),
        // A 401 to a request with the token: the hub refused it, which the caller names.
        () => new AuthError('the hub refused the token'),
      )
    : client;
  try {
    const derive = request.derive;
    const copies =
      derive === undefined
        ? undefined
        : new (await import('./derive.js')).TableCopies(derive.to, {
            kinds: derive.kinds,
            remoteToo: derive.remoteToo ?? false,
            csvSchema: derive.csvSchema,
            onWritten: (kind, bytes) => post({ type: 'written', kind, bytes }),
          });
    const options = {
      ...request.options,
      fetch,
      ...(copies ? { tableSinks: copies.sinks } : {}),
      ...(request.rangePort ? { rangeWorker: request.rangePort } : {}),
      onProgress: (event: ValidateEvent) => post({ type: 'progress', event }),
    };
    const input = request.input;
    const report =
      typeof input === 'string'
        ? await validate(input, options)
        : await validateDescriptor(input.descriptor, input.dir, options);
    const derived = copies?.finish(report.valid);
    saveCodeCache();
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
            : error instanceof AuthError
              ? 'refused'
              : 'other',
      message,
      stack: error instanceof Error ? error.stack : undefined,
    });
  }
}

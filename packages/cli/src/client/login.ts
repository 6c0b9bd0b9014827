import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { AuthError, InterruptedError, ServerError, UsageError } from '@data/core';
import type { HubApi } from './api.js';

export interface LoginOptions {
  api: HubApi;
  provider?: string | undefined;
  /** Opens the sign-in page; with no browser, the command prints it. */
  show: (url: string) => Promise<void> | void;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Signed in</title><body style="font:16px system-ui;margin:4em auto;max-width:30em"><h1>Signed in</h1><p>You may close this page and go back to the terminal.</p></body>';

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

/**
 * The sign-in page a hub names, if it is a web address: the system opener given a `file:`,
 * `smb:` or `javascript:` address would open a file, mount a share or run a program. Any
 * other is refused (exit 3: the hub answered something unusable), quoted in the message
 * and opened by no one.
 */
function signInAddress(named: unknown): string {
  const text = typeof named === 'string' ? named : JSON.stringify(named);
  const url = URL.parse(text);
  // As the URL parser reads it: no white space or control character left to misread.
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return url.href;
  throw new ServerError(
    `the hub named a sign-in address that is not http or https, and data did not open it: ${text}`,
    {
      hint: "data opens only http and https addresses; tell the hub's operator",
      reason: 'sign-in-address',
    },
  );
}

/** What came back to the listener: a one-time code to exchange, or (old hubs) the token. */
type Returned = { code: string } | { jwt: string };

/**
 * Single sign-on through the browser: a one-shot listener on 127.0.0.1 and a random port
 * receives a one-time code, after a check of the `state` it sent along, and trades it with
 * the PKCE verifier for the token, so that the token never travels in a URL. A hub that
 * predates codes sends the token itself, as the old protocol did.
 */
export async function signInWithBrowser(options: LoginOptions): Promise<string> {
  const state = randomBytes(16).toString('hex');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  let deliver: (returned: Returned) => void = () => undefined;
  const received = new Promise<Returned>((resolve) => (deliver = resolve));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const jwt = url.searchParams.get('jwt');
    const code = url.searchParams.get('code');
    if (url.pathname !== '/callback' || url.searchParams.get('state') !== state || !(jwt || code)) {
      response
        .writeHead(400, { 'Content-Type': 'text/plain' })
        .end('This sign-in link is not the one data is waiting for.');
      return;
    }
    response
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', Connection: 'close' })
      .end(DONE_PAGE);
    deliver(code ? { code } : { jwt: jwt ?? '' });
  });
  try {
    const port = await listen(server);
    const check = await options.api.check(
      undefined,
      `http://127.0.0.1:${String(port)}/callback?state=${state}`,
      challenge,
    );
    const providers = Object.entries(check.providers ?? {});
    const chosen = options.provider
      ? providers.find(([name]) => name === options.provider)
      : providers.length === 1
        ? providers[0]
        : undefined;
    if (!chosen) {
      // The hub calls its development sign-in `local`: said so, as its pages name it.
      const names =
        providers
          .map(([name]) => (name === 'local' ? 'local (the development sign-in)' : name))
          .join(', ') || 'none';
      throw new UsageError(
        options.provider
          ? `the hub has no sign-in provider "${options.provider}"`
          : 'choose a sign-in provider with --provider',
        `providers: ${names}`,
      );
    }
    await options.show(signInAddress(chosen[1].url));
    const returned = await new Promise<Returned>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new AuthError(
              `no sign-in arrived within ${String(Math.round(options.timeoutMs / 1000))} s`,
              { hint: 'sign in again', reason: 'sign-in-timeout' },
            ),
          ),
        options.timeoutMs,
      );
      // The timer would keep the process alive for the rest of the time-out. A Ctrl-C while
      // the browser was opening has fired its event already.
      const interrupted = () => {
        clearTimeout(timer);
        reject(new InterruptedError(options.signal?.reason));
      };
      if (options.signal?.aborted) interrupted();
      options.signal?.addEventListener('abort', interrupted, { once: true });
      void received.then((value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
    return 'code' in returned
      ? await options.api.exchangeCode(returned.code, verifier)
      : returned.jwt;
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

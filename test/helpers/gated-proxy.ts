import { createServer, request, type ClientRequest, type Server } from 'node:http';

export interface GatedProxy {
  /** For HTTP_PROXY: plain http, forwarded as it is asked for. */
  url: string;
  /** Bytes of the bodies of requests made since the last reset, forwarded. */
  forwarded(): number;
  /** Forwards no body bytes past `bytes` more (Infinity: all), holding the rest. */
  limit(bytes: number): void;
  /** Each request since the last reset: its method, path and the body bytes forwarded. */
  requests(): string[];
  /** Counts from 0 again. */
  reset(): void;
  stop(): Promise<void>;
}

/**
 * An HTTP forward proxy on a loopback port that counts the body bytes clients send through
 * it and can hold them past a budget: an upload stops at a point the test chose, and waits
 * there, until its client goes (then the request upstream is cut off too).
 */
export async function startGatedProxy(): Promise<GatedProxy> {
  let forwarded = 0;
  let budget = Infinity;
  let opened: (() => void)[] = [];
  const open = () => {
    for (const wake of opened) wake();
    opened = [];
  };
  const upstreams = new Set<ClientRequest>();
  let requests: { line: string; bytes: number }[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const target = new URL(incoming.url ?? '/');
    const seen = { line: `${incoming.method ?? ''} ${target.pathname}`, bytes: 0 };
    requests.push(seen);
    const upstream = request(
      target,
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    upstream.on('error', () => outgoing.destroy());
    let cut = false;
    incoming.on('close', () => {
      if (incoming.complete) return;
      cut = true;
      upstream.destroy();
    });
    void (async () => {
      try {
        for await (const chunk of incoming as AsyncIterable<Buffer>) {
          let rest = chunk;
          while (rest.length > 0) {
            while (forwarded >= budget) await new Promise<void>((wake) => opened.push(wake));
            // A client gone while its bytes were held: they go nowhere, and do not count.
            if (cut) return;
            const room = Math.min(rest.length, budget - forwarded);
            forwarded += room;
            seen.bytes += room;
            if (!upstream.write(rest.subarray(0, room)))
              await new Promise((drained) => upstream.once('drain', drained));
            rest = rest.subarray(room);
          }
        }
        upstream.end();
      } catch {
        upstream.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${String(port)}`,
    // Of the requests made since the reset only: one cut off before it may still be woken.
    forwarded: () => requests.reduce((sum, { bytes }) => sum + bytes, 0),
    limit: (bytes) => {
      budget = forwarded + bytes;
      open();
    },
    requests: () => requests.map(({ line, bytes }) => `${line} ${String(bytes)}`),
    reset: () => {
      requests = [];
      budget = budget === Infinity ? Infinity : budget - forwarded;
      forwarded = 0;
      open();
    },
    stop: async () => {
      budget = Infinity;
      open();
      for (const upstream of upstreams) upstream.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The chunks of a stream, until the signal aborts: then the read stops with the signal's
 * reason, even while it waits on a stream that sends nothing and never ends (standard input
 * left open), and the stream is closed. Ctrl-C must stop `data cat -` and `login --with-token`.
 */
export async function* untilAborted<T>(
  chunks: AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T, void, undefined> {
  if (!signal) {
    yield* chunks;
    return;
  }
  signal.throwIfAborted();
  const iterator = chunks[Symbol.asyncIterator]();
  let stop = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason as Error);
  });
  // Rejected before a read waits on it: not an unhandled rejection.
  aborted.catch(() => undefined);
  signal.addEventListener('abort', stop, { once: true });
  let done = false;
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    signal.removeEventListener('abort', stop);
    // A read still waiting is not waited for: closing the stream ends it.
    if (!done) void iterator.return?.()?.catch(() => undefined);
  }
}

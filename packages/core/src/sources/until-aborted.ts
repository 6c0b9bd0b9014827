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
    if (!done) close(chunks, iterator);
  }
}

/**
 * Closes what was read before its end, without waiting on the read still pending. A Node
 * stream is destroyed: its iterator, an async generator, would take return() only after that
 * read, and a stream left open (standard input) keeps the process from ending.
 */
function close<T>(chunks: AsyncIterable<T>, iterator: AsyncIterator<T>): void {
  const stream = chunks as { destroy?: unknown };
  if (typeof stream.destroy === 'function') (stream as { destroy: () => void }).destroy();
  else void iterator.return?.()?.catch(() => undefined);
}

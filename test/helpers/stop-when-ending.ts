/**
 * Servers a test run starts for all its files (PostgreSQL, Swift) run as processes of their
 * own, which outlive the run when it is ended by a signal: vitest calls a global setup's
 * teardown only when the run ends by itself. `stop` must be synchronous, as the last moments
 * of a process allow nothing else.
 */
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Calls `stop` once, whether this process ends by itself or by a signal; returns that call. */
export function stopWhenEnding(stop: () => void): () => void {
  let stopped = false;
  const stopOnce = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stopOnce);
    for (const signal of SIGNALS) process.off(signal, onSignal);
    stop();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    stopOnce();
    // Ended as the signal would have ended it, unless another part of the process (vitest)
    // listens for it and ends it its own way.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.once('exit', stopOnce);
  for (const signal of SIGNALS) process.once(signal, onSignal);
  return stopOnce;
}

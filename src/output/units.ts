import { humanBytes } from '../text/bytes.js';

export { humanBytes };

/** A time left: 45 s, 3 min 20 s, 1 h 05 min. */
export function humanDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${String(whole)} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${String(minutes)} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${String(Math.floor(minutes / 60))} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/**
 * The rate of a transfer or a read, and the time left, from the bytes done so far; the
 * first half second gives no figures, too early to mean anything.
 */
export class Meter {
  private readonly started = performance.now();

  /** "41% · 45.2 MB of 110 MB · 120 MB/s · 1 s left", with what is known. */
  describe(done: number, total: number | undefined): string {
    const parts: string[] = [];
    if (total !== undefined && total > 0) {
      parts.push(`${String(Math.min(100, Math.floor((done / total) * 100)))}%`);
      parts.push(`${humanBytes(done)} of ${humanBytes(total)}`);
    } else parts.push(humanBytes(done));
    const seconds = (performance.now() - this.started) / 1000;
    if (seconds >= 0.5 && done > 0) {
      const rate = done / seconds;
      parts.push(`${humanBytes(rate)}/s`);
      if (total !== undefined && total > done)
        parts.push(`${humanDuration((total - done) / rate)} left`);
    }
    return parts.join(' · ');
  }
}

import { humanBytes } from '@data/core';

export { humanBytes };

/** A time left: 45 s, 3 min 20 s, 1 h 05 min. */
export function humanDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${String(whole)} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${String(minutes)} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${String(Math.floor(minutes / 60))} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** A share as a whole percentage, never past 100%: "41%". */
export function percent(done: number, total: number): string {
  return `${String(Math.min(100, Math.floor((done / total) * 100)))}%`;
}

/**
 * The rate of a transfer or a read, and the time left, from what is done so far; the
 * first half second gives no figures, too early to mean anything.
 */
export class Meter {
  private readonly started = performance.now();

  /** Done per second since the meter started, or undefined in its first half second. */
  rate(done: number): number | undefined {
    const seconds = (performance.now() - this.started) / 1000;
    return seconds >= 0.5 && done > 0 ? done / seconds : undefined;
  }

  /** "45 s left" at the rate so far, or undefined when too early or done. */
  left(done: number, total: number): string | undefined {
    const rate = this.rate(done);
    return rate !== undefined && total > done
      ? `${humanDuration((total - done) / rate)} left`
      : undefined;
  }

  /** "41% · 45.2 MB of 110 MB · 120 MB/s · 1 s left", with what is known. */
  describe(done: number, total: number | undefined): string {
    const parts: string[] = [];
    if (total !== undefined && total > 0) {
      parts.push(percent(done, total));
      parts.push(`${humanBytes(done)} of ${humanBytes(total)}`);
    } else parts.push(humanBytes(done));
    const rate = this.rate(done);
    if (rate !== undefined) parts.push(`${humanBytes(rate)}/s`);
    const left = total === undefined ? undefined : this.left(done, total);
    if (left !== undefined) parts.push(left);
    return parts.join(' · ');
  }
}

import { humanBytes, Meter } from './units.js';

function percent(done: number, of: number): string {
  return `${String(Math.min(100, Math.floor((done / of) * 100)))}%`;
}

/** A transfer reports every chunk; a line every tenth of a second is enough to watch. */
const SHOW_EVERY_MS = 100;

/**
 * Overall and per-file progress of several transfers, as one line for a spinner: bytes
 * done of the total, percentage, rate and time left, then each file in flight.
 */
export class TransferLine {
  private readonly inFlight = new Map<string, { done: number }>();
  private readonly sizes = new Map<string, number>();
  private readonly meter = new Meter();
  /** Files whose size is not known yet: while any is, there is no overall total. */
  private unsized = 0;
  private finished = 0;
  private shownAt = -Infinity;

  constructor(
    private readonly verb: string,
    private readonly show: (line: string) => void,
  ) {}

  /** The files to come, with their sizes where known: the overall total. */
  plan(files: readonly { path: string; bytes: number | undefined }[]): void {
    for (const file of files) {
      if (file.bytes === undefined) this.unsized++;
      else this.sizes.set(file.path, file.bytes);
    }
  }

  /** A file's size, learnt when its transfer starts. */
  size(path: string, bytes: number): void {
    if (this.sizes.has(path)) return;
    this.sizes.set(path, bytes);
    this.unsized = Math.max(0, this.unsized - 1);
  }

  /** A planned file that needs no transfer (already stored). */
  skip(path: string): void {
    this.sizes.delete(path);
  }

  /** Records a file's progress, and shows the line when it is due again. */
  progress(path: string, done: number): void {
    const file = this.inFlight.get(path);
    if (file) file.done = done;
    else this.inFlight.set(path, { done });
    const now = performance.now();
    if (now - this.shownAt < SHOW_EVERY_MS) return;
    this.shownAt = now;
    this.show(this.line());
  }

  finish(path: string): void {
    this.finished += this.inFlight.get(path)?.done ?? 0;
    this.inFlight.delete(path);
  }

  private line(): string {
    const files = [...this.inFlight.entries()];
    const done = this.finished + files.reduce((sum, [, file]) => sum + file.done, 0);
    const total =
      this.unsized === 0
        ? [...this.sizes.values()].reduce((sum, bytes) => sum + bytes, 0)
        : undefined;
    const each = files.map(([path, file]) => {
      const bytes = this.sizes.get(path);
      const name = path.split('/').pop() ?? path;
      return `${name} ${bytes ? percent(file.done, bytes) : humanBytes(file.done)}`;
    });
    return [`${this.verb} ${this.meter.describe(done, total)}`, ...each].join(' · ');
  }
}

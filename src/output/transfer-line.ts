export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 1)} MB`;
}

function percent(done: number, of: number): string {
  return `${String(Math.min(100, Math.floor((done / of) * 100)))}%`;
}

/** A transfer reports every chunk; a line every tenth of a second is enough to watch. */
const SHOW_EVERY_MS = 100;

/** Overall and per-file progress of several transfers, as one line for a spinner. */
export class TransferLine {
  private readonly inFlight = new Map<string, { done: number; bytes: number | undefined }>();
  private total = 0;
  private finished = 0;
  private shownAt = -Infinity;

  constructor(
    private readonly verb: string,
    private readonly show: (line: string) => void,
  ) {}

  /** Adds a file's size to the overall total, once it is known. */
  expect(bytes: number): void {
    this.total += bytes;
  }

  /** Records a file's progress, and shows the line when it is due again. */
  progress(path: string, done: number, bytes: number | undefined): void {
    const file = this.inFlight.get(path);
    if (file) file.done = done;
    else this.inFlight.set(path, { done, bytes });
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
    const overall =
      this.total > 0
        ? `${percent(done, this.total)} · ${megabytes(done)} of ${megabytes(this.total)}`
        : megabytes(done);
    const each = files.map(
      ([path, file]) =>
        `${path.split('/').pop() ?? path} ${file.bytes ? percent(file.done, file.bytes) : megabytes(file.done)}`,
    );
    return [`${this.verb} ${overall}`, ...each].join(' · ');
  }
}

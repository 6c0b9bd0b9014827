import type { ErrorFilter } from './filter.js';
import { errorPasses } from './filter.js';
import type { ReportError, Task, TaskStats } from './types.js';
import { roundSeconds } from '../../text/numbers.js';

export interface TaskLimits extends ErrorFilter {
  /** 0 means unlimited. */
  limitErrors: number;
}

/** Collects one resource's errors, applying the error filter and the error limit. */
export class TaskCollector {
  readonly errors: ReportError[] = [];
  readonly warnings: string[] = [];
  labels: string[] = [];
  private limitReached = false;
  private readonly started = performance.now();

  constructor(
    readonly name: string,
    readonly type: string,
    readonly place: string,
    private readonly limits: TaskLimits,
  ) {}

  /** False once the error limit is reached: the caller stops reading. */
  get open(): boolean {
    return !this.limitReached;
  }

  add(error: ReportError): void {
    if (this.limitReached || !errorPasses(error, this.limits)) return;
    this.errors.push(error);
    const limit = this.limits.limitErrors;
    if (limit > 0 && this.errors.length >= limit) {
      this.limitReached = true;
      this.warnings.push(`reached error limit: ${String(limit)}`);
    }
  }

  finish(stats: Partial<TaskStats>): Task {
    return {
      valid: this.errors.length === 0,
      name: this.name,
      type: this.type,
      place: this.place,
      labels: this.labels,
      stats: {
        ...stats,
        warnings: this.warnings.length,
        errors: this.errors.length,
        seconds: roundSeconds(performance.now() - this.started),
      },
      warnings: this.warnings,
      errors: this.errors,
    };
  }
}

import type { ReportError } from './types.js';

export interface ErrorFilter {
  pick?: readonly string[];
  skip?: readonly string[];
}

/** Data errors carry tags; descriptor and loading errors have none and always pass. */
export function errorPasses(error: ReportError, filter: ErrorFilter): boolean {
  if (error.tags.length === 0) return true;
  const matches = (names: readonly string[]): boolean =>
    names.some((name) => name === error.type || error.tags.includes(name));
  if (filter.pick && filter.pick.length > 0 && !matches(filter.pick)) return false;
  if (filter.skip && filter.skip.length > 0 && matches(filter.skip)) return false;
  return true;
}

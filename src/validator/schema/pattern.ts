/**
 * Regular expressions that come from a descriptor (the `pattern` constraint, strptime
 * formats) run in time linear in the text, whatever the pattern: a backtracking engine
 * takes exponential time on `(a+)+$` and a cell of 40 `a`s, which would let a 40-byte
 * package stop a hub's processing or a CI job.
 *
 * Two linear engines, chosen by measurement (npm run bench:patterns):
 * - a pattern V8's own linear engine can run keeps V8's backtracking engine, 10 to 20 ns a
 *   cell, with V8 told to rerun a match on the linear engine once it has backtracked
 *   BACKTRACKS times (regexp-flags.ts), which bounds a cell to a few microseconds;
 * - any other pattern RE2 can run (counted repetitions such as `\d{1,50}`, which V8's
 *   linear engine refuses) runs on re2js, RE2's JavaScript port, 80 to 500 ns a cell.
 * RE2 semantics: backreferences and lookaround cannot be matched in linear time, and such a
 * pattern is refused as a field error before any row is read.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { setRegExpFlags } from '../../regexp-flags.js';

let loaded: typeof RE2JS | undefined;

/**
 * re2js, loaded by the first pattern: every schema's checks import this module, and loading
 * the package cost each validation's start about 2 ms where no field has a pattern.
 */
function re2js(): typeof RE2JS {
  loaded ??= (createRequire(import.meta.url)('re2js') as { RE2JS: typeof RE2JS }).RE2JS;
  return loaded;
}

export interface LinearPattern {
  /** Whether the whole text matches. */
  readonly test: (text: string) => boolean;
}

/** What is wrong with a pattern, as the end of a sentence about it, or undefined. */
export function patternProblem(source: string): string | undefined {
  try {
    new RegExp(source);
  } catch {
    return 'is not a valid regular expression';
  }
  try {
    re2js().compile(source);
    return undefined;
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(
      /^error parsing regexp: /,
      '',
    );
    return `cannot be matched in linear time (backreferences and lookaround are not run): ${reason}`;
  }
}

/** V8's backtracking engine when its linear engine can take over, else re2js. */
function fastestLinear(anchored: string): LinearPattern {
  try {
    // eslint-disable-next-line no-invalid-regexp -- V8's linear engine, enabled by setRegExpFlags
    new RegExp(anchored, 'l');
  } catch {
    const re2 = re2js().compile(anchored);
    return { test: (text) => re2.matches(text) };
  }
  const regex = new RegExp(anchored);
  return { test: (text) => regex.test(text) };
}

/** A whole-text matcher for a pattern from a descriptor; throws on one patternProblem names. */
export function linearPattern(source: string): LinearPattern {
  const problem = patternProblem(source);
  if (problem !== undefined) throw new SyntaxError(problem);
  // Process-wide, read when an expression is compiled: set before the first of ours is, and
  // only then, as they cost every thread started later (regexp-flags.ts).
  setRegExpFlags();
  return fastestLinear(`^(?:${source})$`);
}

/**
 * An expression the code builds from a descriptor (strptime formats) with V8's backtracking
 * engine, and its linear one past BACKTRACKS backtracks: the builder keeps to what the latter runs.
 */
export function boundedRegExp(source: string): RegExp {
  setRegExpFlags();
  // eslint-disable-next-line no-invalid-regexp -- V8's linear engine, enabled by setRegExpFlags
  new RegExp(source, 'l');
  return new RegExp(source);
}

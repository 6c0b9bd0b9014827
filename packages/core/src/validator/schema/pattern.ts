/**
 * Regular expressions that come from a descriptor (the `pattern` constraint, strptime
 * formats) run in time linear in the text, whatever the pattern: a backtracking engine
 * takes exponential time on `(a+)+$` and a cell of 40 `a`s, which would let a 40-byte
 * package stop a hub's processing or a CI job.
 *
 * A plain pattern (isPlainPattern: `[A-Z]{2}`, `\d{4}-\d{2}`, `[a-z0-9_-]+`) runs on V8's
 * backtracking engine alone, which it cannot make backtrack more than once a character; it
 * loads nothing and changes no setting, which cost a small validation about 4 ms. Any other,
 * on one of two linear engines, chosen by measurement (npm run bench:patterns):
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

/** A character a plain pattern may hold as it is: in the Basic Multilingual Plane, no surrogate. */
const PLAIN_CHAR = String.raw`[^\\^$.|?*+()[\]{}\uD800-\uDFFF]`;
/** An escape that is the punctuation it escapes, in both engines. */
const PUNCTUATION = String.raw`\\[\\^$.|?*+()[\]{}/-]`;
/** ASCII digits or word characters, in both engines (not beside a - in a class: RE2 refuses it). */
const DIGIT_OR_WORD = String.raw`\\[dw]`;
/**
 * A bracket class of plain characters, ranges and escapes, not negated, and no bare [ in it:
 * RE2 reads [:alpha:] inside a class as a POSIX class where V8 reads its letters.
 */
const PLAIN_CLASS = String.raw`\[(?!\^)(?:[^\\\][\uD800-\uDFFF]|${PUNCTUATION}|(?<!-)${DIGIT_OR_WORD}(?!-[^\]]))+\]`;
const PLAIN_ATOM = `(?:${PLAIN_CHAR}|${PUNCTUATION}|${DIGIT_OR_WORD}|${PLAIN_CLASS})`;
/**
 * A plain pattern: atoms of one character each (a character, an escape, a class), each once
 * or a fixed number of times, the last of them maybe any number of times, between an optional
 * ^ and $. Anchored at both ends, such a pattern has one way to match up
 * to its last atom, and the last tries each count of its repetitions once, its end checked
 * in one step each: V8's backtracking engine runs it in time linear in the text, with no
 * setting changed and no re2js loaded. Its atoms match one code unit that is one code point,
 * so RE2 would say the same of every text.
 */
const PLAIN = new RegExp(
  `^\\^?(?:${PLAIN_ATOM}(?:\\{\\d{1,3}\\})?)*` +
    `(?:${PLAIN_ATOM}(?:[*+?]|\\{\\d{1,3}(?:,\\d{0,3})?\\}))?\\$?$`,
);

/** Whether V8's own engine matches this pattern in linear time without help (see PLAIN). */
export function isPlainPattern(source: string): boolean {
  if (!PLAIN.test(source)) return false;
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** What is wrong with a pattern, as the end of a sentence about it, or undefined. */
export function patternProblem(source: string): string | undefined {
  if (isPlainPattern(source)) return undefined;
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

function plainPattern(anchored: string): LinearPattern {
  const regex = new RegExp(anchored);
  return { test: (text) => regex.test(text) };
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
  return plainPattern(anchored);
}

/** A whole-text matcher for a pattern from a descriptor; throws on one patternProblem names. */
export function linearPattern(source: string): LinearPattern {
  if (isPlainPattern(source)) return plainPattern(`^(?:${source})$`);
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

/**
 * V8's settings for expressions from descriptors (validator/schema/pattern.ts): its linear
 * engine, and a match rerun on it past BACKTRACKS backtracks. Process-wide, so set once for
 * every thread, and only when a descriptor's expression is first compiled.
 *
 * Only then, because any V8 setting changed at run time costs every later start of a thread:
 * V8 rejects Node.js's own code cache of its built-in modules once the settings differ from
 * those it was made under, so each worker compiles its bootstrap, and each thread every
 * built-in module it loads after, from source (a worker started 56 million instructions
 * dearer, a few built-in modules 20 to 60 million; 7% of validating the 1,000,000-row
 * benchmark table, which has no pattern, when they were set at every start).
 *
 * A code cache (code-cache.ts) is checked against the settings when it is read and when it is
 * made: the main thread puts them back (resetRegExpFlags) before it writes one at its exit,
 * and a worker that finds them set writes none.
 */

/** node:v8 is loaded by the runs that set or reset them, not by every start. */
const setFlagsFromString = (flag: string): void => {
  process.getBuiltinModule('node:v8').setFlagsFromString(flag);
};
export const BACKTRACKS = 100;

/** Whether the settings are on in this process (set by this thread or another). */
export function regExpFlagsSet(): boolean {
  try {
    // eslint-disable-next-line no-invalid-regexp -- only V8's linear engine knows 'l'
    new RegExp('', 'l');
    return true;
  } catch {
    return false;
  }
}

export function setRegExpFlags(): void {
  if (regExpFlagsSet()) return;
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  setFlagsFromString(`--regexp-backtracks-before-fallback=${String(BACKTRACKS)}`);
  // Last: regExpFlagsSet tells by it that the others are set.
  setFlagsFromString('--enable-experimental-regexp-engine');
}

/**
 * V8's defaults again, which a code cache made next is checked against: only where no
 * expression of a descriptor may be compiled or matched any more in the process.
 */
export function resetRegExpFlags(): void {
  setFlagsFromString('--no-enable-experimental-regexp-engine');
  setFlagsFromString('--no-enable-experimental-regexp-engine-on-excessive-backtracks');
  setFlagsFromString('--regexp-backtracks-before-fallback=50000');
}

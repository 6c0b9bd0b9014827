/**
 * V8's settings for expressions from descriptors (validator/schema/pattern.ts): its linear
 * engine, and a match rerun on it past BACKTRACKS backtracks. Set where a process or worker
 * starts, before its code cache is checked: V8 rejects a cache made under other settings,
 * and one set later would make every cache written at the exit mismatch the next start.
 */
import { setFlagsFromString } from 'node:v8';

export const BACKTRACKS = 100;

export function setRegExpFlags(): void {
  setFlagsFromString('--enable-experimental-regexp-engine');
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  setFlagsFromString(`--regexp-backtracks-before-fallback=${String(BACKTRACKS)}`);
}

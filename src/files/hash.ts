import type { Hash } from 'node:crypto';

/**
 * A hash of the named algorithm. node:crypto is some twenty built-in modules: it is loaded
 * by the first validation that hashes, not by every start.
 */
export function newHash(algorithm: string): Hash {
  return process.getBuiltinModule('node:crypto').createHash(algorithm);
}

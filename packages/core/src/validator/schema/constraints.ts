import type { Constraints } from '../descriptor/types.js';
import { pythonRepr } from '../report/errors.js';
import { keyOf } from './keys.js';
import { fewKeys } from './few-keys.js';
import { linearPattern } from './pattern.js';
import { INVALID, type Caster } from './types/index.js';

/** Returns the note of a failed constraint, or undefined. */
export type ConstraintCheck = (value: unknown) => string | undefined;

const ORDER = {
  minimum: true,
  maximum: true,
  exclusiveMinimum: true,
  exclusiveMaximum: true,
} as const;

type Comparable = number | bigint;

function note(name: string, bound: unknown): string {
  return `constraint "${name}" is "${pythonRepr(bound)}"`;
}

function lengthOf(value: unknown): number | undefined {
  if (typeof value === 'string') {
    return /[\uD800-\uDFFF]/.test(value) ? Array.from(value).length : value.length;
  }
  if (Array.isArray(value)) return value.length;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  return undefined;
}

/** One closure per bound, so that the hot path compares without an indirect call. */
function orderCheck(name: keyof typeof ORDER, bound: Comparable, failure: string): ConstraintCheck {
  const comparable = (value: unknown): value is Comparable =>
    typeof value === 'number' || typeof value === 'bigint';
  switch (name) {
    case 'minimum':
      return (value) => (comparable(value) && value < bound ? failure : undefined);
    case 'maximum':
      return (value) => (comparable(value) && value > bound ? failure : undefined);
    case 'exclusiveMinimum':
      return (value) => (comparable(value) && value <= bound ? failure : undefined);
    case 'exclusiveMaximum':
      return (value) => (comparable(value) && value >= bound ? failure : undefined);
  }
}

export function compileConstraints(constraints: Constraints, cast: Caster): ConstraintCheck[] {
  const checks: ConstraintCheck[] = [];
  const { minLength, maxLength, pattern } = constraints;
  if (minLength !== undefined) {
    checks.push((value) =>
      (lengthOf(value) ?? minLength) < minLength ? note('minLength', minLength) : undefined,
    );
  }
  if (maxLength !== undefined) {
    checks.push((value) =>
      (lengthOf(value) ?? 0) > maxLength ? note('maxLength', maxLength) : undefined,
    );
  }
  for (const name of Object.keys(ORDER) as (keyof typeof ORDER)[]) {
    const declared = constraints[name];
    if (declared === undefined) continue;
    const bound = cast(declared);
    if (typeof bound === 'number' || typeof bound === 'bigint')
      checks.push(orderCheck(name, bound, note(name, declared)));
  }
  if (pattern !== undefined) {
    const matcher = linearPattern(pattern);
    checks.push((value) =>
      typeof value === 'string' && !matcher.test(value) ? note('pattern', pattern) : undefined,
    );
  }
  if (constraints.enum !== undefined) {
    const declared = constraints.enum;
    const allowed = new Set(
      declared
        .map((item) => cast(item))
        .filter((item) => item !== INVALID)
        .map(keyOf),
    );
    const isAllowed = fewKeys([...allowed].map((key) => [key, true] as const));
    checks.push((value) => (isAllowed(keyOf(value)) ? undefined : note('enum', declared)));
  }
  return checks;
}

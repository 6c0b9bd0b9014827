/** Returned by a caster when a value does not belong to its type. */
export const INVALID: unique symbol = Symbol('invalid');
export type Invalid = typeof INVALID;

/** Turns a raw cell (a string from a file, or any JSON value inline) into a logical value. */
export type Caster = (raw: unknown) => unknown;

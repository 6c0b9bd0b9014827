/** Returned by a caster when a value does not belong to its type. */
export const INVALID: unique symbol = Symbol('invalid');
export type Invalid = typeof INVALID;

/** Turns a raw cell (a string from a file, or any JSON value inline) into a logical value. */
export type Caster = (raw: unknown) => unknown;

/**
 * Casts the cell text[start..end) where it lies, sparing the string, or returns undefined
 * when it cannot tell: the caller then casts the cell's string with the field's `Caster`.
 * Whatever it returns for a cell, the `Caster` returns for that cell's string.
 */
export type SpanCaster = (text: string, start: number, end: number) => unknown;

/**
 * Tells whether the cell text[start..end) casts, where it lies, without making its value:
 * for a cell whose value nothing reads. False when it cannot tell: the caller then casts it.
 */
export type SpanCheck = (text: string, start: number, end: number) => boolean;

/**
 * How the metadata's rules (rules.ts, organisations.ts) run above either engine: each rule
 * is a generator that yields the answer of each statement it runs (`yield* answer(…)`) and
 * is given it back resolved. SQLite runs one at once inside its transaction (`runNow`),
 * PostgreSQL awaits each answer inside its own (`runAwaiting`); the engines' statements only
 * run SQL and decide nothing. Locks and transactions stay with each engine: SQLite's `begin
 * immediate` serializes every write, PostgreSQL takes the owner's lock (or a table's) first.
 * This module imports nothing, so that the rules' modules and the metadata's types, which
 * name each other's types, need not import one another in a circle.
 */
export type Rule<T> = Generator<unknown, T, unknown>;

/** An answer of the database: at once from SQLite, a promise from PostgreSQL. */
export type Answer<T> = T | Promise<T>;

/** A statement's answer, as a rule takes it: `yield* answer(tables.…)`. */
export function* answer<T>(value: Answer<T>): Generator<unknown, T, unknown> {
  return (yield value) as T;
}

/** Runs a rule whose answers come at once (SQLite's), inside the caller's transaction. */
export function runNow<T>(rule: Rule<T>): T {
  let step = rule.next();
  while (!step.done) {
    if (step.value instanceof Promise) throw new Error('a rule run at once was given a promise');
    step = rule.next(step.value);
  }
  return step.value;
}

/** Runs a rule whose answers are promises (PostgreSQL's), awaiting each in turn. */
export async function runAwaiting<T>(rule: Rule<T>): Promise<T> {
  let step = rule.next();
  while (!step.done) step = rule.next(await step.value);
  return step.value;
}

/**
 * Numbers as the CLI and the hub's pages write them: a count with its noun in the right
 * number, thousands grouped, and a duration in seconds to the millisecond.
 */

// English has two plural categories: "one" (exactly 1) and "other" (0, 2, 1.5…).
const english = new Intl.PluralRules('en');

/**
 * 1234567 as "1,234,567". Grouped by hand: toLocaleString loads ICU's number data, a tenth
 * of a small validation's time; the plural rules alone cost nothing like it.
 */
export function grouped(value: number): string {
  const [whole = '', fraction] = String(value).split('.');
  const digits = /e/i.test(whole) ? whole : whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? digits : `${digits}.${fraction}`;
}

/** The noun alone, in the number the count asks for: "row" for 1, "rows" for 0 and 2. */
export function noun(count: number, one: string, other = `${one}s`): string {
  return english.select(count) === 'one' ? one : other;
}

/** A count and its noun: "0 rows", "1 row", "1,204 rows", "6 properties". */
export function counted(count: number, one: string, other = `${one}s`): string {
  return `${grouped(count)} ${noun(count, one, other)}`;
}

/** A time measured in milliseconds as seconds to the millisecond: 1.2345678 s is 1.235. */
export function roundSeconds(ms: number): number {
  return Math.round(ms) / 1000;
}

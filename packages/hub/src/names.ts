import { firstLiteralSegment, ROUTES } from './routes.js';

/** Reserved besides the routes' own: addresses crawlers, tools and a future API expect. */
const OTHER_RESERVED = ['search', 'api', 'robots.txt'];

/**
 * First path segments no user may be named after: every one a route of the hub uses (read
 * from the route table, so that a new route cannot be forgotten; a user called `healthz`
 * would own pages no one could reach), and a few more.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...ROUTES.map(firstLiteralSegment).filter((segment) => segment !== undefined),
  ...OTHER_RESERVED,
]);

/** Whether a name may not be a user's: reserved in any case, as names are told apart in none. */
export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.has(name.toLowerCase());
}

/** The shape of a user name: the `<owner>` of read URLs. */
export const USERNAME = /^[a-z0-9][a-z0-9_-]{0,38}$/;

/** A user name from what a provider calls the user: lower case, safe characters, not reserved. */
export function usernameFrom(wanted: string): string {
  const cleaned = wanted
    .toLowerCase()
    .replace(/@.*$/, '')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 39);
  const name = USERNAME.test(cleaned) ? cleaned : 'user';
  return isReservedName(name) ? `${name}-user` : name;
}

/** First path segments the hub's own services use: no user may be named after one. */
export const RESERVED_NAMES = new Set([
  'auth',
  'rawstore',
  'source',
  'metastore',
  'static',
  'search',
  'api',
  'favicon.ico',
  'robots.txt',
]);

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
  return RESERVED_NAMES.has(name) ? `${name}-user` : name;
}

/**
 * Named tokens (ours, `/api/tokens`): what the client and the hub say of them, and how a
 * named token is told from a hub's JWT at a glance.
 */

/** How much a token allows, each including the one before it. */
export const TOKEN_SCOPES = ['read', 'publish', 'admin'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A named token: `dt_` and 32 random bytes in base64url, which secret scanners can match. */
export const NAMED_TOKEN = /^dt_[A-Za-z0-9_-]{43}$/;

/** The longest name of a token, in characters. */
export const TOKEN_NAME_MAX = 100;

export function isTokenScope(value: unknown): value is TokenScope {
  return TOKEN_SCOPES.includes(value as TokenScope);
}

/**
 * Why a token name is refused, or undefined when it is a name: any text of 1 to 100
 * characters but control and format characters, "/" and "\\" (shown escaped wherever it is
 * shown), and no space at either end (" ci " and "ci" look the same in a list).
 */
export function tokenNameProblem(name: string): string | undefined {
  // Characters as code points: a name's length is not its UTF-16 units.
  const length = Array.from(name).length;
  if (length === 0 || name.trim() === '') return 'a token name cannot be empty';
  if (name.trim() !== name) return 'a token name cannot begin or end with a space';
  if (length > TOKEN_NAME_MAX)
    return `a token name is at most ${String(TOKEN_NAME_MAX)} characters long`;
  if (/\p{C}/u.test(name)) return 'a token name cannot hold control or format characters';
  // A name is a segment of its address (`DELETE /api/tokens/:name`).
  if (/[/\\]/.test(name) || name === '.' || name === '..')
    return 'a token name cannot hold "/" or "\\", nor be "." or ".."';
  return undefined;
}

/**
 * Whether two token names are one name: a user's names are unique in any case, and in
 * Unicode's compatibility form ("Rd", "rd" and "ｒｄ" are one name).
 */
export function sameTokenName(a: string, b: string): boolean {
  const folded = (name: string) => name.normalize('NFKC').toUpperCase().toLowerCase();
  return folded(a) === folded(b);
}

/** A named token as `GET /api/tokens` lists it: never the token, nor its hash. */
export interface TokenRecord {
  name: string;
  scope: TokenScope;
  /** `owner/dataset` (owner names) it may publish to; empty when not limited. */
  datasets: string[];
  /** ISO 8601. */
  created: string;
  /** ISO 8601, to the minute; null until first used. */
  last_used: string | null;
  /** ISO 8601. */
  expires: string;
}

/** `POST /api/tokens`'s body. */
export interface TokenRequest {
  name: string;
  scope: TokenScope;
  datasets?: string[];
  /** Days it lives, 1 to the hub's maximum; the hub's default when left out. */
  expires_days?: number;
}

/** `POST /api/tokens`'s answer: the token, this once, and its record. */
export interface TokenCreated {
  token: string;
  record: TokenRecord;
}

const isText = (value: unknown): value is string => typeof value === 'string';

export function isTokenRecord(value: unknown): value is TokenRecord {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    isText(record.name) &&
    isTokenScope(record.scope) &&
    Array.isArray(record.datasets) &&
    record.datasets.every(isText) &&
    isText(record.created) &&
    (record.last_used === null || isText(record.last_used)) &&
    isText(record.expires)
  );
}

export function isTokenCreated(value: unknown): value is TokenCreated {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const answer = value as Record<string, unknown>;
  return isText(answer.token) && NAMED_TOKEN.test(answer.token) && isTokenRecord(answer.record);
}

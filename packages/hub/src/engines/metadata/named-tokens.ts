import { sameTokenName } from '@data/core';
import { numbered } from './numbered.js';
import type { OrgEngine, OrgRunner } from './organisations.js';
import type { Scope } from '../../caller.js';
import { answer, type Rule } from './run.js';

/**
 * Named tokens (`data token create`): what the hub keeps of each. Never the token itself,
 * only its SHA-256 (`hash`), so that a copy of the database opens nothing.
 */
export interface NamedToken {
  /** Random, never shown as a secret: the `parent` of the service tokens issued from it. */
  id: string;
  userid: string;
  name: string;
  scope: Scope;
  /** `ownerid/dataset` pairs it may publish to; empty when not limited. */
  datasets: string[];
  /** ISO 8601. */
  created: string;
  /** ISO 8601; null until first used. */
  last_used: string | null;
  /** Seconds since the epoch: from then on the token is refused. */
  expires: number;
}

/**
 * What keeping a new token did: kept, or not for a name its user holds (in any case), or
 * for the cap.
 */
export type TokenAdded = 'added' | 'taken' | 'full';

export interface NamedTokens {
  /**
   * Keeps a token's record and hash, unless its user has one of that name (`taken`) or holds
   * `most` live tokens already (`full`): counted and kept in one transaction holding the user
   * against other writers, so that racing makers never pass the cap. Expired tokens do not
   * count; those expired more than EXPIRED_KEPT_DAYS before the new one's `created` are
   * dropped in the same transaction (until then they are listed, so that their user sees
   * why a job using one is refused, and their names stay taken).
   */
  add(token: NamedToken, hash: string, most?: number): Promise<TokenAdded>;
  /** The record of the token with this hash, expired or not. */
  byHash(hash: string): Promise<NamedToken | undefined>;
  /** A user's tokens, by name. */
  list(userid: string): Promise<NamedToken[]>;
  /** Removes a user's token of this name; its record, or undefined when there was none. */
  remove(userid: string, name: string): Promise<NamedToken | undefined>;
  /**
   * Records that a token was used at `now` (ISO), unless it was recorded since `since`
   * (ISO): a token used many times a second is written at most once a minute.
   */
  used(id: string, now: string, since: string): Promise<void>;
}

/** Days an expired token stays listed, before making another token drops it. */
export const EXPIRED_KEPT_DAYS = 30;

/**
 * The table, as each engine's migration makes it (`expires`'s type is the engine's); `if not
 * exists`: a test that takes a hub back to an earlier version may run it again.
 */
export function tokensTable(bigint: string): string {
  return `create table if not exists tokens (
    id text primary key, userid text not null, name text not null, hash text not null unique,
    scope text not null, datasets text not null, created text not null, last_used text,
    expires ${bigint} not null, unique (userid, name));`;
}

/** The statements, with `?` placeholders (PostgreSQL's engine numbers them). */
export const TOKEN_SQL = {
  add: 'insert into tokens (id, userid, name, hash, scope, datasets, created, last_used, expires) values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing',
  count: 'select count(*) as n from tokens where userid = ? and expires > ?',
  names: 'select name from tokens where userid = ?',
  dropExpired: 'delete from tokens where userid = ? and expires <= ?',
  byHash:
    'select id, userid, name, scope, datasets, created, last_used, expires from tokens where hash = ?',
  list: 'select id, userid, name, scope, datasets, created, last_used, expires from tokens where userid = ? order by name',
  remove:
    'delete from tokens where userid = ? and name = ? returning id, userid, name, scope, datasets, created, last_used, expires',
  used: 'update tokens set last_used = ? where id = ? and (last_used is null or last_used < ?)',
} as const;

/** The same statements with PostgreSQL's placeholders, `$1…$n`. */
export const POSTGRES_TOKEN_SQL = numbered(TOKEN_SQL);

/** How an engine runs a statement of TOKEN_SQL. */
export type TokenRunner = OrgRunner;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function record(row: Record<string, unknown>): NamedToken {
  return {
    id: text(row.id),
    userid: text(row.userid),
    name: text(row.name),
    scope: text(row.scope) as Scope,
    datasets: JSON.parse(text(row.datasets)) as string[],
    created: text(row.created),
    last_used: typeof row.last_used === 'string' ? row.last_used : null,
    expires: Number(row.expires),
  };
}

/** Counts the user's tokens and keeps the new one under the cap, in the caller's transaction. */
function* addRule(
  runner: TokenRunner,
  sql: Readonly<Record<keyof typeof TOKEN_SQL, string>>,
  token: NamedToken,
  hash: string,
  most: number,
): Rule<TokenAdded> {
  const now = Math.floor(Date.parse(token.created) / 1000);
  yield* answer(runner.run(sql.dropExpired, [token.userid, now - EXPIRED_KEPT_DAYS * 86_400]));
  const [count] = yield* answer(runner.all(sql.count, [token.userid, now]));
  if (Number(count?.n ?? 0) >= most) return 'full';
  // A name the user holds in another case ("Rd" beside "rd") is taken too: read in the
  // transaction that holds the user, so that two makers cannot race past it.
  const names = yield* answer(runner.all(sql.names, [token.userid]));
  if (names.some((row) => sameTokenName(text(row.name), token.name))) return 'taken';
  const changed = yield* answer(
    runner.run(sql.add, [
      token.id,
      token.userid,
      token.name,
      hash,
      token.scope,
      JSON.stringify(token.datasets),
      token.created,
      token.last_used,
      token.expires,
    ]),
  );
  return changed === 1 ? 'added' : 'taken';
}

/**
 * The tokens table over an engine (its reads, and its writes in a transaction holding the
 * user: SQLite's `begin immediate`, PostgreSQL's owner lock) and its dialect of the statements.
 */
export function namedTokens(
  engine: OrgEngine,
  sql: Readonly<Record<keyof typeof TOKEN_SQL, string>>,
): NamedTokens {
  const runner = engine.reads;
  const first = async (statement: string, params: unknown[]) => {
    const [row] = await runner.all(statement, params);
    return row ? record(row) : undefined;
  };
  return {
    add: (token, hash, most = Number.POSITIVE_INFINITY) =>
      engine.write(token.userid, (writer) => addRule(writer, sql, token, hash, most)),
    byHash: (hash) => first(sql.byHash, [hash]),
    list: async (userid) => (await runner.all(sql.list, [userid])).map(record),
    remove: (userid, name) => first(sql.remove, [userid, name]),
    used: async (id, now, since) => {
      await runner.run(sql.used, [now, id, since]);
    },
  };
}

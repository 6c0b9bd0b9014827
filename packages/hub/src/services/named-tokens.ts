/**
 * Named tokens (`data token create`): made for a user with a scope, maybe limited to some
 * datasets, living a number of days. The hub keeps a SHA-256 of each, never the token, so
 * that the database opens nothing; a token is found by its hash on every request, so a
 * revoked (deleted) or expired one is refused at once by every hub process.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { NAMED_TOKEN, type TokenRecord } from '@data/core';
import type { NamedToken } from '../engines/metadata/named-tokens.js';
import type { Metadata } from '../engines/metadata/types.js';
import type { Caller, Scope } from '../caller.js';
import { credentialRefusal } from './access.js';

/** Days a token lives when its maker names none (capped by the hub's maximum). */
export const DEFAULT_TOKEN_DAYS = 30;

/** Days a token may live at most, when the operator sets no `maxTokenDays`. */
export const DEFAULT_MAX_TOKEN_DAYS = 365;

/**
 * The most `maxTokenDays` may be: ten years. A token that outlives its hub's keys and its
 * maker's memory is a secret nobody will rotate; and past about 273,000 years an expiry is
 * no date at all.
 */
export const TOKEN_DAYS_LIMIT = 3650;

/** `last_used` is written at most once a minute per token, on any number of processes. */
const USED_EVERY_MS = 60_000;

const DAY_SECONDS = 86_400;

/** A fresh token: `dt_` and 32 random bytes, base64url. */
export function newNamedToken(): string {
  return `dt_${randomBytes(32).toString('base64url')}`;
}

/** What the hub keeps of a token: its SHA-256, hex. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A named token's credential, as a request carries it: the caller, the record it comes from. */
export interface NamedCredential {
  caller: Caller;
  record: NamedToken;
}

/**
 * The credential of a named token that is live (known and unexpired), recording its use;
 * undefined for anything else. What is not shaped like a named token is not looked up.
 */
export async function namedCredential(
  store: Pick<Metadata, 'namedTokens'>,
  token: string,
  now = Date.now(),
): Promise<NamedCredential | undefined> {
  if (!NAMED_TOKEN.test(token)) return undefined;
  const record = await store.namedTokens.byHash(tokenHash(token));
  if (!record || record.expires * 1000 <= now) return undefined;
  // Recorded within the minute already (as the record read says): no statement at all, so
  // that SQLite takes no write lock on every request a token makes.
  const since = new Date(now - USED_EVERY_MS).toISOString();
  if (record.last_used === null || record.last_used < since)
    await store.namedTokens.used(record.id, new Date(now).toISOString(), since);
  return {
    caller: { userid: record.userid, scope: record.scope, datasets: record.datasets, via: 'token' },
    record,
  };
}

/** A token about to be made: its owner's choices, checked already. */
export interface TokenChoice {
  userid: string;
  name: string;
  scope: Scope;
  /** `ownerid/dataset` pairs. */
  datasets: string[];
  days: number;
  /**
   * Seconds since the epoch the token may not outlive: the expiry of the named token it is
   * made with, so that a stolen admin token cannot mint longer-lived ones.
   */
  notAfter?: number | undefined;
  /** Tokens the user may hold (the hub's maxTokensPerUser); no cap when not given. */
  most?: number | undefined;
}

/** The user holds as many tokens as the hub allows: counted as the token would be kept. */
export class TokenCapReached extends Error {
  override readonly name = 'TokenCapReached';
}

/** A token made and not kept yet: the token, shown once, and its record. */
export interface NewNamedToken {
  token: string;
  record: NamedToken;
}

/**
 * Makes a token and its record, keeping nothing: whatever its answer needs is computed
 * from this before it is kept (keepNamedToken), so that a token is never kept and then
 * refused. An expiry that is no date is refused here (a RangeError).
 */
export function prepareNamedToken(choice: TokenChoice, now = Date.now()): NewNamedToken {
  const days = Math.min(choice.days, TOKEN_DAYS_LIMIT);
  const record: NamedToken = {
    id: randomUUID(),
    userid: choice.userid,
    name: choice.name,
    scope: choice.scope,
    datasets: choice.datasets,
    created: new Date(now).toISOString(),
    last_used: null,
    expires: Math.min(
      Math.floor(now / 1000) + days * DAY_SECONDS,
      choice.notAfter ?? Number.POSITIVE_INFINITY,
    ),
  };
  if (!Number.isSafeInteger(record.expires) || !(days >= 1))
    throw new RangeError(`a token cannot live ${String(choice.days)} days`);
  return { token: newNamedToken(), record };
}

/**
 * Keeps a token made by prepareNamedToken: it, or undefined when the name is taken. Past the
 * cap (`most` live tokens), TokenCapReached.
 */
export async function keepNamedToken(
  store: Pick<Metadata, 'namedTokens'>,
  made: NewNamedToken,
  most?: number,
): Promise<NewNamedToken | undefined> {
  const added = await store.namedTokens.add(made.record, tokenHash(made.token), most);
  if (added === 'full') throw new TokenCapReached(`the user holds ${String(most)} tokens`);
  return added === 'added' ? made : undefined;
}

/**
 * Makes and keeps a token: the token, shown once, and its record; undefined when the name is
 * taken. Past the cap (`most`), TokenCapReached.
 */
export async function makeNamedToken(
  store: Pick<Metadata, 'namedTokens'>,
  choice: TokenChoice,
  now = Date.now(),
): Promise<NewNamedToken | undefined> {
  return keepNamedToken(store, prepareNamedToken(choice, now), choice.most);
}

/**
 * Revokes a user's token: its record goes, and its id is recorded as revoked until it would
 * have expired, so that the service tokens issued from it (their `parent`) die with it.
 */
export async function revokeNamedToken(
  store: Pick<Metadata, 'namedTokens' | 'remember'>,
  userid: string,
  name: string,
): Promise<boolean> {
  const removed = await store.namedTokens.remove(userid, name);
  if (!removed) return false;
  await store.remember(removed.id, removed.expires);
  return true;
}

/** A record as the protocol shows it: datasets by their owners' names. */
export async function shownRecord(
  store: Pick<Metadata, 'userById'>,
  record: NamedToken,
): Promise<TokenRecord> {
  const names = new Map<string, string>();
  const datasets: string[] = [];
  for (const pair of record.datasets) {
    const [ownerid = '', dataset = ''] = pair.split('/');
    if (!names.has(ownerid))
      names.set(ownerid, (await store.userById(ownerid))?.username ?? ownerid);
    datasets.push(`${names.get(ownerid) ?? ownerid}/${dataset}`);
  }
  return {
    name: record.name,
    scope: record.scope,
    datasets,
    created: record.created,
    last_used: record.last_used,
    expires: new Date(record.expires * 1000).toISOString(),
  };
}

/**
 * Whether a credential may make, list and revoke its user's tokens, and say who else may
 * publish (trusted publishers): a sign-in, or a token of the `admin` scope limited to no
 * dataset (as managing anything needs).
 */
export function managesTokens(caller: Caller | undefined): caller is Caller {
  return caller?.scope === 'admin' && caller.datasets.length === 0 && caller.via !== 'trusted';
}

/**
 * Why a credential may not manage `what` (its tokens, trusted publishers), in the words of
 * the one access rule; undefined when it may.
 */
export function managingRefusal(caller: Caller, what: string): string | undefined {
  // Named apart: the guard leaves nothing of its argument's type where it says no.
  const refused = caller;
  if (managesTokens(caller)) return undefined;
  return (
    credentialRefusal(refused, 'manage', refused.userid, undefined, what, `managing ${what}`) ??
    `managing ${what} takes a sign-in or an admin token for no one dataset`
  );
}

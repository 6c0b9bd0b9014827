import type { Findability } from './types.js';
import type { Tables } from './rules.js';
import type { Answer } from './run.js';

/**
 * The statements whose SQL both engines share, those of the rules' `Tables` and those of the
 * engines' own methods, written once with `?` placeholders (SQLite's); PostgreSQL runs them
 * as `numbered` turns them, `$1…$n`. What differs between the engines (search, locks, casts
 * of counts and sums, booleans, the columns of a row read whole) stays with each engine.
 */
export const SQL = {
  insertUser:
    'insert into users (userid, username, email, name, provider, subject, join_date) values (?, ?, ?, ?, ?, ?, ?)',
  makeHoldingPublic: 'update holdings set private = 0 where ownerid = ? and key = ?',
  insertObject:
    'insert into objects (key, ownerid, bytes, private, created) values (?, ?, ?, ?, ?) on conflict do nothing',
  unmarkCollecting: 'update objects set collecting = null where key = ?',
  insertHolding:
    'insert into holdings (ownerid, key, bytes, private, created, head_md5) values (?, ?, ?, ?, ?, ?)',
  insertDataset: 'insert into datasets (ownerid, name, findability, modified) values (?, ?, ?, ?)',
  insertRevision:
    'insert into revisions (ownerid, dataset, revision, state, spec, spec_bytes, findability, pipelines, error_log, created, modified, request_id) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  revisionFindability:
    'select findability from revisions where ownerid = ? and dataset = ? and revision = ?',
  setRevisionFindability:
    'update revisions set findability = ? where ownerid = ? and dataset = ? and revision = ?',
  setPublished:
    'update datasets set published_revision = ?, findability = ?, title = ?, description = ?, bytes = ?, row_count = ?, license = ?, modified = ? where ownerid = ? and name = ?',
  rememberName:
    'insert into deleted_names (ownerid, name, last_revision) values (?, ?, ?) on conflict (ownerid, name) do update set last_revision = excluded.last_revision',
  deleteRevisions: 'delete from revisions where ownerid = ? and dataset = ?',
  deleteDataset: 'delete from datasets where ownerid = ? and name = ?',
  cachedCopies: 'select key, bytes, used, ready from cached_copies',
  // Those of the engines' own methods, which both run alike.
  holds: 'select 1 from holdings where ownerid = ? and key = ?',
  holdingOfLength: 'select 1 from holdings where ownerid = ? and bytes = ? limit 1',
  holdingOfLengthAndHead:
    'select 1 from holdings where ownerid = ? and bytes = ? and (head_md5 is null or head_md5 = ?) limit 1',
  hasObject: 'select 1 from objects where key = ?',
  recordUpload:
    'insert into uploads (ownerid, path, key) values (?, ?, ?) on conflict (ownerid, path) do update set key = excluded.key',
  lastUpload: 'select key from uploads where ownerid = ? and path = ?',
  dataset: 'select * from datasets where ownerid = ? and name = ?',
  addRevisionBytes:
    'update revisions set spec_bytes = spec_bytes + ? where ownerid = ? and dataset = ? and revision = ?',
  saveChanges:
    'update revisions set changes = ? where ownerid = ? and dataset = ? and revision = ?',
  saveStats: 'update revisions set stats = ? where ownerid = ? and dataset = ? and revision = ?',
  renewLease:
    "update revisions set lease_until = ? where ownerid = ? and dataset = ? and revision = ? and lease_owner = ? and state = 'INPROGRESS'",
  ping: 'select 1',
  revoke: 'insert into revoked_tokens (jti, expires) values (?, ?) on conflict do nothing',
  dropExpiredRevocations: 'delete from revoked_tokens where expires < ?',
  isRevoked: 'select 1 from revoked_tokens where jti = ?',
  sharedValue: 'select value from shared_values where name = ?',
  offerSharedValue:
    'insert into shared_values (name, value) values (?, ?) on conflict (name) do nothing',
  dropExpiredLoginCodes: 'delete from login_codes where expires < ?',
  insertLoginCode:
    'insert into login_codes (code, challenge, next, userid, expires) values (?, ?, ?, ?, ?)',
  dropExpiredLoginStates: 'delete from login_states where expires < ?',
  insertLoginState:
    'insert into login_states (state, provider, verifier, nonce, request, expires) values (?, ?, ?, ?, ?, ?)',
  touchHolding: 'update holdings set created = ? where ownerid = ? and key = ?',
  markCollecting:
    'update objects set collecting = ? where key = ? and not exists (select 1 from holdings h where h.key = objects.key)',
  dropCollected: 'delete from objects where key = ? and collecting is not null',
} as const;

export type Statements = { readonly [name in keyof typeof SQL]: string };

/** How an engine runs one statement: its answer at once (SQLite) or as a promise (PostgreSQL). */
export interface Runner {
  /** Runs a write; answers how many rows it changed. */
  run(sql: string, params: unknown[]): Answer<number>;
  /** The first row a query answers, if any. */
  get(sql: string, params: unknown[]): Answer<unknown>;
}

function then<T, U>(value: Answer<T>, next: (value: T) => U): Answer<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

function done(value: Answer<number>): Answer<void> {
  return then(value, () => undefined);
}

/** The part of `Tables` both engines run alike: the shared SQL, its arguments in order. */
export type SharedTables = Pick<
  Tables,
  | 'insertUser'
  | 'makeHoldingPublic'
  | 'keepObject'
  | 'insertHolding'
  | 'insertDataset'
  | 'insertRevision'
  | 'revisionFindability'
  | 'setRevisionFindability'
  | 'setPublished'
  | 'rememberName'
  | 'deleteRevisions'
  | 'deleteDataset'
>;

/** The shared statements of `Tables`, run by `db` in its dialect's `sql`. */
export function sharedTables(db: Runner, sql: Statements): SharedTables {
  return {
    insertUser: (user, subject) =>
      done(
        db.run(sql.insertUser, [
          user.userid,
          user.username,
          user.email,
          user.name,
          user.provider,
          subject,
          user.join_date,
        ]),
      ),
    makeHoldingPublic: (ownerid, key) => done(db.run(sql.makeHoldingPublic, [ownerid, key])),
    keepObject: (holding) =>
      then(
        db.run(sql.insertObject, [
          holding.key,
          holding.ownerid,
          holding.bytes,
          holding.isPrivate ? 1 : 0,
          holding.created,
        ]),
        () => done(db.run(sql.unmarkCollecting, [holding.key])),
      ) as Answer<void>,
    insertHolding: (holding) =>
      done(
        db.run(sql.insertHolding, [
          holding.ownerid,
          holding.key,
          holding.bytes,
          holding.isPrivate ? 1 : 0,
          holding.created,
          holding.headMd5,
        ]),
      ),
    insertDataset: (ownerid, name, findability, modified) =>
      done(db.run(sql.insertDataset, [ownerid, name, findability, modified])),
    insertRevision: (row) =>
      done(
        db.run(sql.insertRevision, [
          row.ownerid,
          row.dataset,
          row.revision,
          row.state,
          row.spec,
          row.specBytes,
          row.findability,
          row.pipelines,
          row.errorLog,
          row.created,
          row.created,
          row.requestId,
        ]),
      ),
    revisionFindability: (revision) =>
      then(
        db.get(sql.revisionFindability, [revision.ownerid, revision.dataset, revision.revision]),
        (row) => (row as { findability: Findability | null } | undefined)?.findability,
      ),
    setRevisionFindability: (revision, findability) =>
      done(
        db.run(sql.setRevisionFindability, [
          findability,
          revision.ownerid,
          revision.dataset,
          revision.revision,
        ]),
      ),
    setPublished: (ownerid, dataset, fields) =>
      done(
        db.run(sql.setPublished, [
          fields.revision,
          fields.findability,
          fields.title,
          fields.description,
          fields.bytes,
          fields.rows,
          fields.license,
          fields.modified,
          ownerid,
          dataset,
        ]),
      ),
    rememberName: (ownerid, nameKey, last) =>
      done(db.run(sql.rememberName, [ownerid, nameKey, last])),
    deleteRevisions: (ownerid, dataset) => done(db.run(sql.deleteRevisions, [ownerid, dataset])),
    deleteDataset: (ownerid, dataset) =>
      then(db.run(sql.deleteDataset, [ownerid, dataset]), (changed) => changed > 0),
  };
}

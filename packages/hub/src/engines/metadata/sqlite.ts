/* eslint-disable @typescript-eslint/require-await --
   The interface is asynchronous for the engines that are; node:sqlite answers at once. */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { openSqliteFile } from './sqlite-file.js';
import {
  freshness,
  listingOrder,
  portableRow,
  waitingRevision,
  findableBy,
  holdingInUse,
  lastRevisionUsed,
  revisionAsked,
  revisionNameKey,
  unexpired,
  type Tables,
} from './rules.js';
import * as rules from './rules.js';
import { runNow } from './run.js';
import { SQL, sharedTables } from './statements.js';
import { namedTokens, tokensTable, TOKEN_SQL, type NamedTokens } from './named-tokens.js';
import { PUBLISHER_SQL, PUBLISHERS_TABLE, publishers, type Publishers } from './publishers.js';
import {
  FILL_MAKERS,
  KIND_COLUMN,
  MAKER_COLUMN,
  ORG_SQL,
  ORGANISATIONS_TABLES,
  organisations,
  type Organisations,
  type OrgEngine,
  type OrgRunner,
} from './organisations.js';
import { MOVED_TABLES, type MovedTable, type Row } from './tables.js';
import {
  queryWords,
  SEARCH_FIELDS,
  SEARCH_SOURCE,
  searchFields,
  type SearchField,
  type SearchSource,
} from './search.js';
import type {
  CreatedRevision,
  Dataset,
  DatasetSort,
  DatasetSummary,
  Identity,
  LoginCode,
  LoginState,
  Metadata,
  NewRevision,
  Revision,
  SearchPage,
  User,
} from './types.js';

/** Each field's weight in bm25: a word of the title counts most, one of the description least. */
const SEARCH_WEIGHTS: Record<SearchField, number> = {
  title: 10,
  name: 8,
  keywords: 5,
  resources: 3,
  owner: 2,
  description: 1,
};
/** bm25 of the index, its arguments the weights in the order of its columns. */
const BM25 = `bm25(search_index, ${SEARCH_FIELDS.map((field) => String(SEARCH_WEIGHTS[field])).join(', ')})`;

/**
 * Each entry moves the schema one version up; `pragma user_version` says how many have run.
 * Entries are never edited once released: a hub of any earlier version migrates in order.
 */
const MIGRATIONS: (string | ((store: SqliteMetadata) => void))[] = [
  `create table if not exists users (
    userid text primary key, username text unique not null, email text not null, name text not null,
    provider text not null, join_date text not null);
  create table if not exists objects (
    key text primary key, ownerid text not null, bytes integer not null, private integer not null, created text not null);
  create table if not exists uploads (
    ownerid text not null, path text not null, key text not null, primary key (ownerid, path));
  create table if not exists datasets (
    ownerid text not null, name text not null, findability text not null, title text, description text,
    published_revision integer, modified text not null, primary key (ownerid, name));
  create table if not exists revisions (
    ownerid text not null, dataset text not null, revision integer not null, state text not null,
    spec text not null, pipelines text not null, error_log text not null, descriptor text, report text,
    created text not null, modified text not null, primary key (ownerid, dataset, revision));`,
  // Objects are shared bytes; what a user may use is what that user stored (a holding).
  `create table holdings (
    ownerid text not null, key text not null, bytes integer not null, private integer not null,
    created text not null, primary key (ownerid, key));
  insert into holdings (ownerid, key, bytes, private, created)
    select ownerid, key, bytes, private, created from objects;
  alter table users add column subject text;
  update users set subject = username where provider = 'local';
  create unique index users_identity on users (provider, subject);
  alter table revisions add column findability text;
  alter table revisions add column files text;
  alter table revisions add column spec_bytes integer not null default 0;
  update revisions set spec_bytes = length(spec);
  update revisions set findability = (select findability from datasets d
    where d.ownerid = revisions.ownerid and d.name = revisions.dataset);
  create table revoked_tokens (jti text primary key, expires integer not null);
  create table login_codes (
    code text primary key, challenge text not null, next text not null, userid text not null,
    expires integer not null);
  create table login_states (
    state text primary key, provider text not null, verifier text not null, nonce text not null,
    request text not null, expires integer not null);`,
  // The pipeline queue: a worker holds a revision in progress under a lease.
  `alter table revisions add column lease_owner text;
  alter table revisions add column lease_until integer;`,
  // Values every hub process shares, set once: the signing keys.
  `create table shared_values (name text primary key, value text not null);`,
  // The home page lists the newest datasets first: read in this order, not sorted whole;
  // workers look for waiting revisions every second: found by state, not by a scan.
  `create index datasets_modified on datasets (modified);
  create index revisions_state on revisions (state);`,
  // Listings show and sort by each dataset's size, rows and licence.
  `alter table datasets add column bytes integer;
  alter table datasets add column row_count integer;
  alter table datasets add column license text;
  create index datasets_name on datasets (name);
  create index datasets_bytes on datasets (bytes);
  create index datasets_row_count on datasets (row_count);`,
  // A client may skip hashing a file that no object of its owner's can be: none of the same
  // length and head. Holdings made before this have no head, and may be any file.
  `alter table holdings add column head_md5 text;
  create index holdings_length on holdings (ownerid, bytes);`,
  // Derived copies made when asked for, kept within the operator's byte budget.
  `create table cached_copies (
    key text primary key, bytes integer not null, used integer not null, ready integer not null);`,
  // Each published revision's changes since the one before, summed up once it is published;
  // the request that queued it, whose id its pipeline's log lines carry.
  `alter table revisions add column changes text;
  alter table revisions add column request_id text;`,
  // Garbage collection marks an object it is about to remove (the time it began); taking
  // the object in again unmarks it, and the collector then leaves its bytes.
  `alter table objects add column collecting integer;`,
  // Search: every word of a query, in any order and case, accents folded, ranked (FTS5's
  // bm25), in the index of each published dataset's fields; the index takes the ids of
  // `search_ids`, whose own stay what they are through a VACUUM. Filled from the hub's rows.
  (store) => {
    store.db.exec(`create table search_ids (
      id integer primary key, ownerid text not null, name text not null, unique (ownerid, name));
    create virtual table search_index using fts5 (${SEARCH_FIELDS.join(', ')},
      tokenize = 'unicode61 remove_diacritics 2', content = '', contentless_delete = 1);`);
    store.indexAll();
  },
  // The last revision number of each dataset name (lower-cased) of an owner that was
  // deleted: the name published again goes on after it, never giving /v/<N>/ other bytes.
  // `if not exists`: a test that takes a hub back to an earlier version may run it again.
  `create table if not exists deleted_names (
    ownerid text not null, name text not null, last_revision integer not null,
    primary key (ownerid, name));`,
  // Named tokens (`data token create`): a SHA-256 of each, never the token, with its
  // scope, the datasets it may publish to (JSON), when it was last used and when it expires.
  tokensTable('integer'),
  // Organisations (`data org`): rows of users that never sign in, and their members' roles.
  (store) => {
    const columns = store.db.prepare('pragma table_info(users)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'kind'))
      store.db.exec(`alter table users add column ${KIND_COLUMN}`);
    store.db.exec(ORGANISATIONS_TABLES);
  },
  // Trusted publishers (`data publisher add`): the issuer and claims of the CI workflows
  // that may publish a dataset, which may not exist yet.
  PUBLISHERS_TABLE,
  // Each published revision's column statistics (the table viewer's, a TableStats per table,
  // JSON), computed once after publication or on the first ask of a revision published before.
  // Looked for first: a test that takes a hub back to an earlier version may run it again.
  (store) => {
    const columns = store.db.prepare('pragma table_info(revisions)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'stats'))
      store.db.exec('alter table revisions add column stats text');
  },
  // Who made each organisation: the cap on making organisations counts what a user made,
  // not what a user was made an admin of. Those made before: see FILL_MAKERS.
  (store) => {
    const columns = store.db.prepare('pragma table_info(users)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'maker'))
      store.db.exec(`alter table users add column ${MAKER_COLUMN}`);
    store.db.exec(FILL_MAKERS);
  },
];

/** The last revision number a dataset name used: ?1 the owner, ?2 the dataset, ?3 its key. */
const LAST_REVISION_USED = lastRevisionUsed('?1', '?2', '?3');

const WAITING = waitingRevision('?');

/** The hub's metadata in SQLite, the embedded default: one file next to the data. */
export class SqliteMetadata implements Metadata {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private writes = 0;

  get version(): string {
    return freshness(this.writes);
  }

  constructor(file: string) {
    this.db = openSqliteFile(file);
    this.migrate();
  }

  /** Runs the migrations this database has not seen, each in its own transaction. */
  private migrate(): void {
    for (const [index, sql] of MIGRATIONS.entries()) {
      this.db.exec('begin immediate');
      try {
        // Read under the write lock: another process starting at once may have run it.
        const { user_version: done } = this.db.prepare('pragma user_version').get() as {
          user_version: number;
        };
        if (index >= done) {
          if (typeof sql === 'string') this.db.exec(sql);
          else sql(this);
          this.db.exec(`pragma user_version = ${String(index + 1)}`);
        }
        this.db.exec('commit');
      } catch (error) {
        this.db.exec('rollback');
        throw error;
      }
    }
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }

  /** The statements the rules run (rules.ts), in SQLite's SQL: each answered at once. */
  private readonly tables: Tables = {
    ...sharedTables(
      {
        run: (sql, params) => Number(this.prepare(sql).run(...(params as SQLInputValue[])).changes),
        get: (sql, params) => this.prepare(sql).get(...(params as SQLInputValue[])),
      },
      SQL,
    ),
    userOfSubject: (provider, subject) =>
      this.prepare('select * from users where provider = ? and subject = ?').get(
        provider,
        subject,
      ) as User | undefined,
    usernameTaken: (username) => this.findUserByName(username) !== undefined,
    holds: (ownerid, key) => this.holdsNow(ownerid, key),
    usedBytes: (ownerid) => this.usedBytes(ownerid),
    dataset: (ownerid, name) => this.findDataset(ownerid, name),
    datasetsInAnyCase: (ownerid, name) => this.alikeDatasets(ownerid, name),
    datasetCount: (ownerid) => this.datasetCount(ownerid),
    lastRevisionUsed: (ownerid, dataset) => this.lastRevisionUsed(ownerid, dataset),
    index: (ownerid, dataset) => this.index(ownerid, dataset),
    unindex: (ownerid, dataset) => this.unindex(ownerid, dataset),
    cachedCopies: () =>
      (
        this.prepare(SQL.cachedCopies).all() as {
          key: string;
          bytes: number;
          used: number;
          ready: number;
        }[]
      ).map((row) => ({ ...row, ready: row.ready === 1 })),
    deleteCopies: (keys) => {
      const remove = this.prepare('delete from cached_copies where key = ?');
      for (const key of keys) remove.run(key);
    },
    insertCopy: (key, bytes, used) => {
      this.prepare('insert into cached_copies (key, bytes, used, ready) values (?, ?, ?, 0)').run(
        key,
        bytes,
        used,
      );
    },
  };

  /** Prepared once: the read endpoints run a few of these per request. */
  private prepare(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `work` in one write transaction: what it reads, nothing else changes meanwhile. */
  transaction<T>(work: () => T): T {
    this.writes++;
    this.db.exec('begin immediate');
    try {
      const result = work();
      this.db.exec('commit');
      return result;
    } catch (error) {
      this.db.exec('rollback');
      throw error;
    }
  }

  /** The user of an identity, created on first sign-in with a user name nobody holds. */
  async userForIdentity(identity: Identity): Promise<User> {
    return this.transaction(() => runNow(rules.userForIdentity(this.tables, identity)));
  }

  async userById(userid: string): Promise<User | undefined> {
    return this.prepare('select * from users where userid = ?').get(userid) as User | undefined;
  }

  private findUserByName(username: string): User | undefined {
    return this.prepare('select * from users where username = ?').get(username) as User | undefined;
  }

  /** Whether this user holds the object: stored it, or stored the same bytes. */
  private holdsNow(ownerid: string, key: string): boolean {
    return this.prepare(SQL.holds).get(ownerid, key) !== undefined;
  }

  async holds(ownerid: string, key: string): Promise<boolean> {
    return this.holdsNow(ownerid, key);
  }

  async mayHold(ownerid: string, bytes: number, headMd5: string | undefined): Promise<boolean> {
    const row =
      headMd5 === undefined
        ? this.prepare(SQL.holdingOfLength).get(ownerid, bytes)
        : this.prepare(SQL.holdingOfLengthAndHead).get(ownerid, bytes, headMd5);
    return row !== undefined;
  }

  async storageUsed(ownerid: string): Promise<number> {
    return this.usedBytes(ownerid);
  }

  async dataset(ownerid: string, name: string): Promise<Dataset | undefined> {
    return this.findDataset(ownerid, name);
  }

  async datasetsInAnyCase(ownerid: string, name: string): Promise<Dataset[]> {
    return this.alikeDatasets(ownerid, name);
  }

  private alikeDatasets(ownerid: string, name: string): Dataset[] {
    // Dataset names are ASCII, which SQLite's lower() folds.
    return this.prepare(
      'select * from datasets where ownerid = ? and lower(name) = lower(?) order by name',
    ).all(ownerid, name) as unknown as Dataset[];
  }

  async userByName(username: string): Promise<User | undefined> {
    return this.findUserByName(username);
  }

  /** Whether the bytes are stored at all, by anyone: only storage itself may ask this. */
  async hasObject(key: string): Promise<boolean> {
    return this.prepare(SQL.hasObject).get(key) !== undefined;
  }

  /**
   * Records that a user stored bytes, if the user's quota allows them; atomic, so that
   * uploads racing each other cannot pass the quota together. False when over quota.
   */
  async addHolding(
    key: string,
    ownerid: string,
    bytes: number,
    isPrivate: boolean,
    quota: number,
    headMd5?: string,
  ): Promise<boolean> {
    return this.transaction(() => {
      const holding = { key, ownerid, bytes, isPrivate, headMd5: headMd5 ?? null };
      return runNow(rules.addHolding(this.tables, holding, quota));
    });
  }

  /** Remembers the object last authorized for a path, for flow specs that omit it. */
  async recordUpload(ownerid: string, path: string, key: string): Promise<void> {
    this.prepare(SQL.recordUpload).run(ownerid, path, key);
  }

  async lastUpload(ownerid: string, path: string): Promise<string | undefined> {
    const row = this.prepare(SQL.lastUpload).get(ownerid, path) as { key: string } | undefined;
    return row?.key;
  }

  /** Bytes a user's quota counts: the objects the user holds and every revision spec kept. */
  private usedBytes(ownerid: string): number {
    const row = this.prepare(
      `select (select coalesce(sum(bytes), 0) from holdings where ownerid = ?)
        + (select coalesce(sum(spec_bytes), 0) from revisions where ownerid = ?) as used`,
    ).get(ownerid, ownerid) as { used: number };
    return row.used;
  }

  private datasetCount(ownerid: string): number {
    return (
      this.prepare('select count(*) as n from datasets where ownerid = ?').get(ownerid) as {
        n: number;
      }
    ).n;
  }

  private findDataset(ownerid: string, name: string): Dataset | undefined {
    return this.prepare(SQL.dataset).get(ownerid, name) as Dataset | undefined;
  }

  /**
   * Creates the next revision of a dataset and returns its number, or why it may not
   * (rules.ts): the dataset count and the storage quota are checked in the same transaction.
   */
  async createRevision(asked: NewRevision): Promise<CreatedRevision> {
    return this.transaction(() => runNow(rules.createRevision(this.tables, asked)));
  }

  private lastRevisionUsed(ownerid: string, dataset: string): number {
    const row = this.prepare(LAST_REVISION_USED).get(
      ownerid,
      dataset,
      revisionNameKey(dataset),
    ) as { last: number };
    return row.last;
  }

  async revision(ownerid: string, dataset: string, which: string): Promise<Revision | undefined> {
    const base = 'select * from revisions where ownerid = ? and dataset = ?';
    const asked = revisionAsked(which);
    if (asked === undefined) return undefined;
    if (asked === 'latest')
      return this.prepare(`${base} order by revision desc limit 1`).get(ownerid, dataset) as
        Revision | undefined;
    if (asked === 'successful') {
      return this.prepare(`${base} and state = 'SUCCEEDED' order by revision desc limit 1`).get(
        ownerid,
        dataset,
      ) as Revision | undefined;
    }
    return this.prepare(`${base} and revision = ?`).get(ownerid, dataset, asked) as
      Revision | undefined;
  }

  async updateRevision(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    changes: Partial<
      Pick<Revision, 'state' | 'pipelines' | 'error_log' | 'descriptor' | 'report' | 'files'>
    >,
  ): Promise<void> {
    this.writes++;
    const entries = Object.entries(changes);
    const sets = entries.map(([column]) => `${column} = ?`).join(', ');
    this.prepare(
      `update revisions set ${sets}, modified = ? where ownerid = ? and dataset = ? and revision = ?`,
    ).run(
      ...entries.map(([, value]) => value ?? null),
      new Date().toISOString(),
      revision.ownerid,
      revision.dataset,
      revision.revision,
    );
  }

  async addRevisionBytes(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    bytes: number,
  ): Promise<void> {
    this.writes++;
    this.prepare(SQL.addRevisionBytes).run(
      bytes,
      revision.ownerid,
      revision.dataset,
      revision.revision,
    );
  }

  async saveStats(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    stats: string,
  ): Promise<void> {
    this.writes++;
    this.prepare(SQL.saveStats).run(stats, revision.ownerid, revision.dataset, revision.revision);
  }

  async saveChanges(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    changes: string,
  ): Promise<void> {
    this.writes++;
    this.prepare(SQL.saveChanges).run(
      changes,
      revision.ownerid,
      revision.dataset,
      revision.revision,
    );
  }

  async claimRevision(worker: string, leaseUntil: number): Promise<Revision | undefined> {
    return this.transaction(() => {
      const row = this.prepare(
        `select * from revisions r where ${WAITING} order by created limit 1`,
      ).get(Date.now()) as Revision | undefined;
      if (!row) return undefined;
      this.prepare(
        "update revisions set state = 'INPROGRESS', lease_owner = ?, lease_until = ? where ownerid = ? and dataset = ? and revision = ?",
      ).run(worker, leaseUntil, row.ownerid, row.dataset, row.revision);
      return { ...row, state: 'INPROGRESS' as const };
    });
  }

  async renewLease(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    worker: string,
    leaseUntil: number,
  ): Promise<boolean> {
    const changed = this.prepare(SQL.renewLease).run(
      leaseUntil,
      revision.ownerid,
      revision.dataset,
      revision.revision,
      worker,
    );
    return changed.changes > 0;
  }

  async ping(): Promise<void> {
    this.prepare(SQL.ping).get();
  }

  async hasWaiting(): Promise<boolean> {
    return (
      this.prepare(`select 1 from revisions r where ${WAITING} limit 1`).get(Date.now()) !==
      undefined
    );
  }

  /**
   * Makes a succeeded revision the published one, and only then applies its findability: a
   * revision that says none keeps what the dataset had (private for a new dataset).
   */
  async publish(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    summary: DatasetSummary,
  ): Promise<void> {
    this.transaction(() => {
      runNow(rules.publish(this.tables, revision, summary));
    });
  }

  /** Puts a dataset's published fields in the search index, in place of what was there. */
  private index(ownerid: string, name: string): void {
    this.unindex(ownerid, name);
    const source = this.prepare(`${SEARCH_SOURCE} and d.ownerid = ? and d.name = ?`).get(
      ownerid,
      name,
    ) as SearchSource | undefined;
    if (source) this.indexSource(source);
  }

  private indexSource(source: SearchSource): void {
    const { lastInsertRowid: id } = this.prepare(
      'insert into search_ids (ownerid, name) values (?, ?)',
    ).run(source.ownerid, source.name);
    const fields = searchFields(source);
    this.prepare(
      `insert into search_index (rowid, ${SEARCH_FIELDS.join(', ')}) values (?, ${SEARCH_FIELDS.map(() => '?').join(', ')})`,
    ).run(id, ...SEARCH_FIELDS.map((field) => fields[field]));
  }

  private unindex(ownerid: string, name: string): void {
    const row = this.prepare('select id from search_ids where ownerid = ? and name = ?').get(
      ownerid,
      name,
    ) as { id: number } | undefined;
    if (!row) return;
    this.prepare('delete from search_index where rowid = ?').run(row.id);
    this.prepare('delete from search_ids where id = ?').run(row.id);
  }

  /** Fills the search index from every published dataset (a migration's: a hub's rows made before it). */
  indexAll(): void {
    this.db.exec('delete from search_index; delete from search_ids;');
    for (const row of this.db.prepare(SEARCH_SOURCE).iterate())
      this.indexSource(row as unknown as SearchSource);
  }

  async remember(id: string, expires: number): Promise<boolean> {
    // The expired first: an id recorded again once its time is over is kept anew.
    this.prepare(SQL.dropExpiredRevocations).run(Math.floor(Date.now() / 1000));
    const { changes } = this.prepare(SQL.revoke).run(id, expires);
    return Number(changes) > 0;
  }

  async *exportRows(table: MovedTable): AsyncIterable<Row> {
    const columns = MOVED_TABLES[table].join(', ');
    for (const row of this.db.prepare(`select ${columns} from ${table}`).iterate())
      yield portableRow(table, row);
  }

  async importRows(table: MovedTable, rows: Row[]): Promise<void> {
    const columns = MOVED_TABLES[table];
    const insert = this.prepare(
      `insert or ignore into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    );
    this.transaction(() => {
      for (const row of rows)
        insert.run(...columns.map((column) => (row[column] ?? null) as SQLInputValue));
      // A dataset is found by its row's fields and by its published revision's descriptor.
      // Each dataset once, however many of its revisions the rows hold.
      if (table === 'datasets' || table === 'revisions') {
        const datasets = new Map<string, [string, string]>();
        for (const row of rows) {
          const dataset: [string, string] = [
            String(row.ownerid),
            String(table === 'datasets' ? row.name : row.dataset),
          ];
          datasets.set(JSON.stringify(dataset), dataset);
        }
        for (const [owner, name] of datasets.values()) this.index(owner, name);
      }
    });
  }

  async sharedValue(name: string, offer: () => string): Promise<string> {
    const read = () =>
      (this.prepare(SQL.sharedValue).get(name) as { value: string } | undefined)?.value;
    const found = read();
    if (found !== undefined) return found;
    this.prepare(SQL.offerSharedValue).run(name, offer());
    return read() ?? '';
  }

  async remembers(id: string): Promise<boolean> {
    return this.prepare(SQL.isRevoked).get(id) !== undefined;
  }

  /**
   * The one runner of the tables of named tokens, publishers and organisations: at once. A
   * write counts only when a row changed: a token's use recorded by another process first
   * changes nothing, and must not empty the hub's caches of lookups.
   */
  private readonly runner: OrgRunner = {
    run: (sql, params) => {
      const changes = Number(this.prepare(sql).run(...(params as SQLInputValue[])).changes);
      if (changes > 0) this.writes++;
      return changes;
    },
    all: (sql, params) => this.prepare(sql).all(...(params as SQLInputValue[])),
  };

  /**
   * Tokens', publishers' and organisations' writes, each in a transaction: SQLite's `begin
   * immediate` holds every other writer, so what a rule counts holds until it commits.
   */
  private readonly owned: OrgEngine = {
    reads: this.runner,
    write: async (_ownerid, rule) => this.transaction(() => runNow(rule(this.runner))),
  };

  readonly namedTokens: NamedTokens = namedTokens(this.owned, TOKEN_SQL);

  readonly publishers: Publishers = publishers(this.owned, PUBLISHER_SQL);

  readonly organisations: Organisations = organisations(this.owned, ORG_SQL);

  async saveLoginCode(code: LoginCode): Promise<void> {
    this.prepare(SQL.dropExpiredLoginCodes).run(Date.now());
    this.prepare(SQL.insertLoginCode).run(
      code.code,
      code.challenge,
      code.next,
      code.userid,
      code.expires,
    );
  }

  /** The code's record, removed in the same step: a code is good once. */
  async takeLoginCode(code: string): Promise<LoginCode | undefined> {
    return this.takeOnce('login_codes', 'code', code) as LoginCode | undefined;
  }

  async saveLoginState(state: LoginState): Promise<void> {
    this.prepare(SQL.dropExpiredLoginStates).run(Date.now());
    this.prepare(SQL.insertLoginState).run(
      state.state,
      state.provider,
      state.verifier,
      state.nonce,
      state.request,
      state.expires,
    );
  }

  /** The sign-in attempt of a `state`, removed in the same step: a callback is good once. */
  async takeLoginState(state: string): Promise<LoginState | undefined> {
    return this.takeOnce('login_states', 'state', state) as LoginState | undefined;
  }

  /** Reads and deletes one unexpired row in one transaction. */
  private takeOnce(
    table: 'login_codes' | 'login_states',
    column: 'code' | 'state',
    key: string,
  ): { expires: number } | undefined {
    return this.transaction(() => {
      const row = this.prepare(`select * from ${table} where ${column} = ?`).get(key) as
        { expires: number } | undefined;
      this.prepare(`delete from ${table} where ${column} = ?`).run(key);
      return unexpired(row);
    });
  }

  /** Every revision of a dataset, newest first: what `data history` lists. */
  async revisions(ownerid: string, dataset: string): Promise<Revision[]> {
    return this.prepare(
      'select * from revisions where ownerid = ? and dataset = ? order by revision desc',
    ).all(ownerid, dataset) as unknown as Revision[];
  }

  async cachedCopy(key: string): Promise<number | undefined> {
    const row = this.prepare(
      'update cached_copies set used = ? where key = ? and ready = 1 returning bytes',
    ).get(Date.now(), key) as { bytes: number } | undefined;
    return row?.bytes;
  }

  async reserveCopy(key: string, bytes: number, budget: number): Promise<string[] | undefined> {
    return this.transaction(() => runNow(rules.reserveCopy(this.tables, key, bytes, budget)));
  }

  async keptCopy(key: string): Promise<void> {
    this.prepare('update cached_copies set ready = 1, used = ? where key = ?').run(Date.now(), key);
  }

  async dropCopies(prefix: string): Promise<string[]> {
    const rows = this.prepare(
      'delete from cached_copies where substr(key, 1, length(?)) = ? returning key',
    ).all(prefix, prefix) as { key: string }[];
    return rows.map((row) => row.key);
  }

  async touchHolding(ownerid: string, key: string): Promise<void> {
    this.writes++;
    this.prepare(SQL.touchHolding).run(new Date().toISOString(), ownerid, key);
  }

  async unusedHoldings(before: string): Promise<{ ownerid: string; key: string; bytes: number }[]> {
    return this.prepare(
      `select ownerid, key, bytes from holdings h where h.created < ? and not ${holdingInUse('instr')}`,
    ).all(before) as { ownerid: string; key: string; bytes: number }[];
  }

  async dropUnusedHolding(ownerid: string, key: string, before: string): Promise<boolean> {
    this.writes++;
    return (
      this.prepare(
        `delete from holdings as h where h.ownerid = ? and h.key = ? and h.created < ? and not ${holdingInUse('instr')}`,
      ).run(ownerid, key, before).changes > 0
    );
  }

  async holdingCount(key: string): Promise<number> {
    return (
      this.prepare('select count(*) as holders from holdings where key = ?').get(key) as {
        holders: number;
      }
    ).holders;
  }

  async unheldObjects(before: string): Promise<{ key: string; bytes: number }[]> {
    return this.prepare(
      'select key, bytes from objects o where o.created < ? and not exists (select 1 from holdings h where h.key = o.key)',
    ).all(before) as { key: string; bytes: number }[];
  }

  async markCollecting(key: string): Promise<boolean> {
    this.writes++;
    return this.prepare(SQL.markCollecting).run(Date.now(), key).changes > 0;
  }

  async dropCollected(key: string): Promise<boolean> {
    this.writes++;
    return this.prepare(SQL.dropCollected).run(key).changes > 0;
  }

  async queue(): Promise<{ depth: number; oldest: number | undefined }> {
    const row = this.prepare(
      "select count(*) as depth, min(created) as oldest from revisions where state in ('QUEUED', 'INPROGRESS')",
    ).get() as { depth: number; oldest: string | null };
    return { depth: row.depth, oldest: row.oldest ? Date.parse(row.oldest) : undefined };
  }

  async objectUsage(): Promise<{ bytes: number; objects: number }> {
    return this.prepare(
      'select coalesce(sum(bytes), 0) as bytes, count(*) as objects from objects',
    ).get() as { bytes: number; objects: number };
  }

  async cacheUsage(): Promise<{ bytes: number; copies: number }> {
    return this.prepare(
      'select coalesce(sum(bytes), 0) as bytes, count(*) as copies from cached_copies',
    ).get() as { bytes: number; copies: number };
  }

  /**
   * Removes a dataset and its revisions (the files stay in their owner's storage), keeping
   * the last revision number its name used.
   */
  async deleteDataset(ownerid: string, dataset: string): Promise<boolean> {
    return this.transaction(() => runNow(rules.deleteDataset(this.tables, ownerid, dataset)));
  }

  /**
   * Published datasets a viewer may find (listed ones, and all of the viewer's own). With
   * words, those in whose search fields every word begins a word (`citi` finds "cities"),
   * the best matches first (bm25) unless an order is asked for.
   */
  async search(
    text: string,
    viewer: string | undefined,
    size: number,
    from: number,
    ownerid = '',
    sort?: DatasetSort,
  ): Promise<SearchPage> {
    const words = queryWords(text);
    if (text.trim() !== '' && words.length === 0) return { rows: [], total: 0 };
    const visible = findableBy('?', '?', '?', '?');
    const params = [viewer ?? '', viewer ?? '', ownerid, ownerid];
    // Each word quoted: whatever it holds is text to find, never FTS5's syntax.
    const match = words.map((word) => `"${word}"*`).join(' ');
    const [source, where, order] =
      words.length === 0
        ? ['datasets d', visible, listingOrder(sort ?? 'updated')]
        : [
            `search_index s join search_ids i on i.id = s.rowid
              join datasets d on d.ownerid = i.ownerid and d.name = i.name`,
            `search_index match ? and ${visible}`,
            sort === undefined ? `${BM25}, ${listingOrder('updated')}` : listingOrder(sort),
          ];
    const all = words.length === 0 ? params : [match, ...params];
    const total = (
      this.prepare(`select count(*) as n from ${source} where ${where}`).get(...all) as {
        n: number;
      }
    ).n;
    const rows = this.prepare(
      `select d.*, u.username from ${source} join users u on u.userid = d.ownerid
        where ${where} order by ${order} limit ? offset ?`,
    ).all(...all, size, from) as unknown as (Dataset & { username: string })[];
    return { rows, total };
  }
}

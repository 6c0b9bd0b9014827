import pg from 'pg';
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
import { runAwaiting } from './run.js';
import { numbered } from './numbered.js';
import { SQL, sharedTables } from './statements.js';
import { namedTokens, POSTGRES_TOKEN_SQL, tokensTable, type NamedTokens } from './named-tokens.js';
import {
  POSTGRES_PUBLISHER_SQL,
  PUBLISHERS_TABLE,
  publishers,
  type Publishers,
} from './publishers.js';
import {
  FILL_MAKERS,
  KIND_COLUMN,
  MAKER_COLUMN,
  ORGANISATIONS_TABLES,
  organisations,
  POSTGRES_ORG_SQL,
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
  CachedCopy,
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

/** Each field's weight in ts_rank: a word of the title counts most, one of the description least. */
const SEARCH_WEIGHTS: Record<SearchField, 'A' | 'B' | 'C' | 'D'> = {
  title: 'A',
  name: 'A',
  keywords: 'B',
  resources: 'B',
  owner: 'C',
  description: 'D',
};

/**
 * SQL of a dataset's search vector, of the SQL of each field's words (`field`). The words
 * come lower-cased (search.ts): the `simple` dictionary's own lower-casing is ASCII-only on
 * a database of the C locale.
 */
function searchVector(field: (index: number) => string): string {
  return SEARCH_FIELDS.map(
    (name, index) =>
      `setweight(to_tsvector('data_search', ${field(index)}), '${SEARCH_WEIGHTS[name]}')`,
  ).join(' || ');
}

/**
 * Each entry moves the schema one version up; `schema_version` says how many have run.
 * Entries are never edited once released. The same tables as the SQLite engine, so that a
 * hub moves from one to the other row for row.
 */
const MIGRATIONS: (string | ((client: pg.PoolClient) => Promise<void>))[] = [
  `create table users (
    userid text primary key, username text unique not null, email text not null, name text not null,
    provider text not null, subject text not null, join_date text not null, unique (provider, subject));
  create table objects (
    key text primary key, ownerid text not null, bytes bigint not null, private integer not null,
    created text not null);
  create table holdings (
    ownerid text not null, key text not null, bytes bigint not null, private integer not null,
    created text not null, primary key (ownerid, key));
  create table uploads (
    ownerid text not null, path text not null, key text not null, primary key (ownerid, path));
  create table datasets (
    ownerid text not null, name text not null, findability text not null, title text, description text,
    published_revision integer, modified text not null, primary key (ownerid, name));
  create table revisions (
    ownerid text not null, dataset text not null, revision integer not null, state text not null,
    spec text not null, spec_bytes bigint not null, pipelines text not null, error_log text not null,
    descriptor text, report text, created text not null, modified text not null, findability text,
    files text, primary key (ownerid, dataset, revision));
  create index revisions_unfinished on revisions (state) where state in ('QUEUED', 'INPROGRESS');
  create table revoked_tokens (jti text primary key, expires bigint not null);
  create table login_codes (
    code text primary key, challenge text not null, next text not null, userid text not null,
    expires bigint not null);
  create table login_states (
    state text primary key, provider text not null, verifier text not null, nonce text not null,
    request text not null, expires bigint not null);`,
  // The pipeline queue: a worker holds a revision in progress under a lease.
  `alter table revisions add column lease_owner text;
  alter table revisions add column lease_until bigint;`,
  // Search by PostgreSQL's own full-text index over name, title and description.
  `alter table datasets add column search tsvector generated always as (
    to_tsvector('simple', name || ' ' || coalesce(title, '') || ' ' || coalesce(description, ''))) stored;
  create index datasets_search on datasets using gin (search);`,
  // Values every hub process shares, set once: the signing keys.
  `create table shared_values (name text primary key, value text not null);`,
  // The home page lists the newest datasets first: read in this order, not sorted whole.
  `create index datasets_modified on datasets (modified);`,
  // Listings show and sort by each dataset's size, rows and licence.
  `alter table datasets add column bytes bigint;
  alter table datasets add column row_count bigint;
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
    key text primary key, bytes bigint not null, used bigint not null, ready boolean not null);`,
  // Each published revision's changes since the one before, summed up once it is published;
  // the request that queued it, whose id its pipeline's log lines carry.
  `alter table revisions add column changes text;
  alter table revisions add column request_id text;`,
  // Garbage collection marks an object it is about to remove (the time it began); taking
  // the object in again unmarks it, and the collector then leaves its bytes.
  `alter table objects add column collecting bigint;`,
  // Search: every word of a query, in any order and case, accents folded by the unaccent
  // extension (trusted: a user with CREATE on the database may create it), ranked by ts_rank. The `simple`
  // configuration, which neither stems nor drops words, as names and text of any language
  // need; a vector of each published dataset's fields made by the hub (owner, keywords and
  // resource names are not columns of its row), filled from the hub's rows.
  async (client) => {
    await client.query(`create extension if not exists unaccent;
      create text search configuration data_search (copy = simple);
      alter text search configuration data_search
        alter mapping for word, numword, hword, hword_part, numhword, hword_numpart
        with unaccent, simple;
      alter table datasets drop column search;
      alter table datasets add column search tsvector;
      create index datasets_search on datasets using gin (search);`);
    await writeAllSearchVectors(client);
  },
  // The last revision number of each dataset name (lower-cased) of an owner that was
  // deleted: the name published again goes on after it, never giving /v/<N>/ other bytes.
  // `if not exists`: a test that takes a hub back to an earlier version may run it again.
  `create table if not exists deleted_names (
    ownerid text not null, name text not null, last_revision integer not null,
    primary key (ownerid, name));`,
  // Named tokens (`data token create`): a SHA-256 of each, never the token, with its
  // scope, the datasets it may publish to (JSON), when it was last used and when it expires.
  tokensTable('bigint'),
  // Organisations (`data org`): rows of users that never sign in, and their members' roles.
  `alter table users add column if not exists ${KIND_COLUMN}; ${ORGANISATIONS_TABLES}`,
  // Trusted publishers (`data publisher add`): the issuer and claims of the CI workflows
  // that may publish a dataset, which may not exist yet.
  PUBLISHERS_TABLE,
  // Each published revision's column statistics (the table viewer's, a TableStats per table,
  // JSON), computed once after publication or on the first ask of a revision published before.
  // `if not exists`: a test that takes a hub back to an earlier version may run it again.
  `alter table revisions add column if not exists stats text;`,
  // Who made each organisation: the cap on making organisations counts what a user made,
  // not what a user was made an admin of. Those made before: see FILL_MAKERS.
  `alter table users add column if not exists ${MAKER_COLUMN}; ${FILL_MAKERS}`,
];

/** The last revision number a dataset name used: $1 the owner, $2 the dataset, $3 its key. */
const LAST_REVISION_USED = lastRevisionUsed('$1', '$2', '$3');

/** Writes the search vector of each dataset of `sources` (by owner and name). */
async function writeSearchVectors(client: Client, sources: SearchSource[]): Promise<void> {
  if (sources.length === 0) return;
  const fields = sources.map(searchFields);
  const columns = [
    sources.map((source) => source.ownerid),
    sources.map((source) => source.name),
    ...SEARCH_FIELDS.map((field) => fields.map((each) => each[field])),
  ];
  await client.query(
    `update datasets d set search = ${searchVector((index) => `v.f${String(index)}`)}
      from unnest(${columns.map((_, index) => `$${String(index + 1)}::text[]`).join(', ')})
        as v(ownerid, name, ${SEARCH_FIELDS.map((_, index) => `f${String(index)}`).join(', ')})
      where d.ownerid = v.ownerid and d.name = v.name`,
    columns,
  );
}

/** Writes the search vector of every published dataset, 500 at a time. */
async function writeAllSearchVectors(client: pg.PoolClient): Promise<void> {
  await client.query(`declare indexing no scroll cursor for ${SEARCH_SOURCE}`);
  for (;;) {
    const { rows } = await client.query<SearchSource>('fetch 500 from indexing');
    if (rows.length === 0) break;
    await writeSearchVectors(client, rows);
  }
  await client.query('close indexing');
}

/** One lock for migrations, whichever process starts first: the others wait, then find them done. */
const MIGRATION_LOCK = 7_310_001;

type Client = pg.PoolClient | pg.Pool;

// pg gives 64-bit integers as strings; the sums and sizes here are numbers (below 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, Number);

const WAITING = waitingRevision('$3');

/** The statements both engines share, with PostgreSQL's placeholders: turned once, here. */
const POSTGRES_SQL = numbered(SQL);

/**
 * The hub's metadata in PostgreSQL, for a hub of several processes on several machines:
 * pooled connections, transactions that lock what they count (one owner's quota, the user
 * names), migrations under an advisory lock.
 */
export class PostgresMetadata implements Metadata {
  private writes = 0;

  get version(): string {
    return freshness(this.writes);
  }

  private constructor(private readonly pool: pg.Pool) {}

  static async open(url: string): Promise<PostgresMetadata> {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle connection the server closed (a restart, a failover) is dropped from the pool
    // and replaced on the next query; unhandled, its error would end the process.
    pool.on('error', () => undefined);
    const metadata = new PostgresMetadata(pool);
    try {
      await metadata.migrate();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return metadata;
  }

  private async migrate(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query('create table if not exists schema_version (version integer not null)');
      const { rows } = await client.query<{ version: number }>(
        'select version from schema_version',
      );
      const done = rows[0]?.version ?? 0;
      for (const [index, step] of MIGRATIONS.entries())
        if (index >= done) await (typeof step === 'string' ? client.query(step) : step(client));
      await client.query('delete from schema_version');
      await client.query('insert into schema_version (version) values ($1)', [
        Math.max(done, MIGRATIONS.length),
      ]);
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.writes++;
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The statements the rules run (rules.ts), in PostgreSQL's SQL, in one transaction's client. */
  private tables(client: pg.PoolClient): Tables {
    const run = async (sql: string, params: unknown[]): Promise<void> => {
      await client.query(sql, params);
    };
    return {
      ...sharedTables(
        {
          run: async (sql, params) => (await client.query(sql, params)).rowCount ?? 0,
          get: (sql, params) => this.one(sql, params, client),
        },
        POSTGRES_SQL,
      ),
      userOfSubject: (provider, subject) =>
        this.one<User>(
          `select ${PostgresMetadata.USER_COLUMNS} from users where provider = $1 and subject = $2`,
          [provider, subject],
          client,
        ),
      usernameTaken: async (username) =>
        (await this.one('select 1 from users where username = $1', [username], client)) !==
        undefined,
      holds: (ownerid, key) => this.holds(ownerid, key, client),
      usedBytes: (ownerid) => this.storageUsed(ownerid, client),
      dataset: (ownerid, name) => this.dataset(ownerid, name, client),
      datasetsInAnyCase: (ownerid, name) => this.datasetsInAnyCase(ownerid, name, client),
      datasetCount: async (ownerid) =>
        (
          await this.one<{ n: number }>(
            'select count(*)::integer as n from datasets where ownerid = $1',
            [ownerid],
            client,
          )
        )?.n ?? 0,
      lastRevisionUsed: (ownerid, dataset) => this.lastRevisionUsed(ownerid, dataset, client),
      index: (ownerid, dataset) => this.index([{ ownerid, name: dataset }], client),
      // The search vectors are columns of the dataset's row: they go with it.
      unindex: () => undefined,
      cachedCopies: async () => (await client.query<CachedCopy>(POSTGRES_SQL.cachedCopies)).rows,
      deleteCopies: (keys) => run('delete from cached_copies where key = any($1)', [keys]),
      insertCopy: (key, bytes, used) =>
        run('insert into cached_copies (key, bytes, used, ready) values ($1, $2, $3, false)', [
          key,
          bytes,
          used,
        ]),
    };
  }

  private async one<T extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
    client: Client = this.pool,
  ): Promise<T | undefined> {
    return (await client.query<T>(sql, params)).rows[0];
  }

  private async all<T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<T[]> {
    return (await this.pool.query<T>(sql, params)).rows;
  }

  async userForIdentity(identity: Identity): Promise<User> {
    return this.transaction(async (client) => {
      // User names are handed out one at a time across every process.
      await client.query('lock table users in share row exclusive mode');
      return runAwaiting(rules.userForIdentity(this.tables(client), identity));
    });
  }

  private static readonly USER_COLUMNS = 'userid, username, email, name, provider, join_date, kind';

  userById(userid: string): Promise<User | undefined> {
    return this.one<User>(`select ${PostgresMetadata.USER_COLUMNS} from users where userid = $1`, [
      userid,
    ]);
  }

  userByName(username: string): Promise<User | undefined> {
    return this.one<User>(
      `select ${PostgresMetadata.USER_COLUMNS} from users where username = $1`,
      [username],
    );
  }

  async holds(ownerid: string, key: string, client: Client = this.pool): Promise<boolean> {
    return (await this.one(POSTGRES_SQL.holds, [ownerid, key], client)) !== undefined;
  }

  async mayHold(ownerid: string, bytes: number, headMd5: string | undefined): Promise<boolean> {
    const row =
      headMd5 === undefined
        ? await this.one(POSTGRES_SQL.holdingOfLength, [ownerid, bytes])
        : await this.one(POSTGRES_SQL.holdingOfLengthAndHead, [ownerid, bytes, headMd5]);
    return row !== undefined;
  }

  async hasObject(key: string): Promise<boolean> {
    return (await this.one(POSTGRES_SQL.hasObject, [key])) !== undefined;
  }

  /** Serializes what counts one owner's quota, across every process. */
  private async lockOwner(client: pg.PoolClient, ownerid: string): Promise<void> {
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [`owner:${ownerid}`]);
  }

  async addHolding(
    key: string,
    ownerid: string,
    bytes: number,
    isPrivate: boolean,
    quota: number,
    headMd5?: string,
  ): Promise<boolean> {
    return this.transaction(async (client) => {
      await this.lockOwner(client, ownerid);
      const holding = { key, ownerid, bytes, isPrivate, headMd5: headMd5 ?? null };
      return runAwaiting(rules.addHolding(this.tables(client), holding, quota));
    });
  }

  async recordUpload(ownerid: string, path: string, key: string): Promise<void> {
    await this.pool.query(POSTGRES_SQL.recordUpload, [ownerid, path, key]);
  }

  async lastUpload(ownerid: string, path: string): Promise<string | undefined> {
    return (await this.one<{ key: string }>(POSTGRES_SQL.lastUpload, [ownerid, path]))?.key;
  }

  async storageUsed(ownerid: string, client: Client = this.pool): Promise<number> {
    const row = await this.one<{ used: number }>(
      `select ((select coalesce(sum(bytes), 0) from holdings where ownerid = $1)
        + (select coalesce(sum(spec_bytes), 0) from revisions where ownerid = $1))::bigint as used`,
      [ownerid],
      client,
    );
    return row?.used ?? 0;
  }

  dataset(ownerid: string, name: string, client: Client = this.pool): Promise<Dataset | undefined> {
    return this.one<Dataset>(POSTGRES_SQL.dataset, [ownerid, name], client);
  }

  async datasetsInAnyCase(
    ownerid: string,
    name: string,
    client: Client = this.pool,
  ): Promise<Dataset[]> {
    const found = await client.query<Dataset>(
      'select * from datasets where ownerid = $1 and lower(name) = lower($2) order by name collate "C"',
      [ownerid, name],
    );
    return found.rows;
  }

  async createRevision(asked: NewRevision): Promise<CreatedRevision> {
    return this.transaction(async (client) => {
      // Under the owner's lock: a dataset of the owner is made by one transaction at a time.
      await this.lockOwner(client, asked.ownerid);
      return runAwaiting(rules.createRevision(this.tables(client), asked));
    });
  }

  private async lastRevisionUsed(
    ownerid: string,
    dataset: string,
    client: Client,
  ): Promise<number> {
    const row = await this.one<{ last: number }>(
      LAST_REVISION_USED,
      [ownerid, dataset, revisionNameKey(dataset)],
      client,
    );
    return row?.last ?? 0;
  }

  private static readonly REVISION_COLUMNS =
    'ownerid, dataset, revision, state, spec, pipelines, error_log, descriptor, report, created, modified, findability, files, changes, request_id, stats';

  revision(ownerid: string, dataset: string, which: string): Promise<Revision | undefined> {
    const base = `select ${PostgresMetadata.REVISION_COLUMNS} from revisions where ownerid = $1 and dataset = $2`;
    const asked = revisionAsked(which);
    if (asked === undefined) return Promise.resolve(undefined);
    if (asked === 'latest')
      return this.one<Revision>(`${base} order by revision desc limit 1`, [ownerid, dataset]);
    if (asked === 'successful')
      return this.one<Revision>(`${base} and state = 'SUCCEEDED' order by revision desc limit 1`, [
        ownerid,
        dataset,
      ]);
    return this.one<Revision>(`${base} and revision = $3`, [ownerid, dataset, asked]);
  }

  async updateRevision(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    changes: Partial<
      Pick<Revision, 'state' | 'pipelines' | 'error_log' | 'descriptor' | 'report' | 'files'>
    >,
  ): Promise<void> {
    this.writes++;
    const entries = Object.entries(changes);
    const sets = entries.map(([column], index) => `${column} = $${String(index + 1)}`).join(', ');
    const next = entries.length + 1;
    await this.pool.query(
      `update revisions set ${sets}, modified = $${String(next)} where ownerid = $${String(next + 1)} and dataset = $${String(next + 2)} and revision = $${String(next + 3)}`,
      [
        ...entries.map(([, value]) => value ?? null),
        new Date().toISOString(),
        revision.ownerid,
        revision.dataset,
        revision.revision,
      ],
    );
  }

  async addRevisionBytes(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    bytes: number,
  ): Promise<void> {
    this.writes++;
    await this.pool.query(POSTGRES_SQL.addRevisionBytes, [
      bytes,
      revision.ownerid,
      revision.dataset,
      revision.revision,
    ]);
  }

  async saveStats(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    stats: string,
  ): Promise<void> {
    this.writes++;
    await this.pool.query(POSTGRES_SQL.saveStats, [
      stats,
      revision.ownerid,
      revision.dataset,
      revision.revision,
    ]);
  }

  async saveChanges(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    changes: string,
  ): Promise<void> {
    this.writes++;
    await this.pool.query(POSTGRES_SQL.saveChanges, [
      changes,
      revision.ownerid,
      revision.dataset,
      revision.revision,
    ]);
  }

  /** Row locks skipped, not waited for: workers on other processes take other revisions. */
  claimRevision(worker: string, leaseUntil: number): Promise<Revision | undefined> {
    return this.one<Revision>(
      `update revisions set state = 'INPROGRESS', lease_owner = $1, lease_until = $2
        where (ownerid, dataset, revision) = (
          select ownerid, dataset, revision from revisions r where ${WAITING}
          order by created limit 1 for update skip locked)
        returning ${PostgresMetadata.REVISION_COLUMNS}`,
      [worker, leaseUntil, Date.now()],
    );
  }

  async renewLease(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    worker: string,
    leaseUntil: number,
  ): Promise<boolean> {
    const changed = await this.pool.query(POSTGRES_SQL.renewLease, [
      leaseUntil,
      revision.ownerid,
      revision.dataset,
      revision.revision,
      worker,
    ]);
    return (changed.rowCount ?? 0) > 0;
  }

  async ping(): Promise<void> {
    await this.pool.query(POSTGRES_SQL.ping);
  }

  async hasWaiting(): Promise<boolean> {
    const sql = `select 1 from revisions r where ${waitingRevision('$1')} limit 1`;
    return (await this.one(sql, [Date.now()])) !== undefined;
  }

  async publish(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    summary: DatasetSummary,
  ): Promise<void> {
    await this.transaction(async (client) => {
      await this.lockOwner(client, revision.ownerid);
      await runAwaiting(rules.publish(this.tables(client), revision, summary));
    });
  }

  /** Writes the search vectors of these datasets from their rows as they are now. */
  private async index(keys: { ownerid: string; name: string }[], client: Client): Promise<void> {
    const { rows } = await client.query<SearchSource>(
      `${SEARCH_SOURCE} and (d.ownerid, d.name) in (select * from unnest($1::text[], $2::text[]))`,
      [keys.map((key) => key.ownerid), keys.map((key) => key.name)],
    );
    await writeSearchVectors(client, rows);
  }

  async remember(id: string, expires: number): Promise<boolean> {
    // The expired first: an id recorded again once its time is over is kept anew.
    await this.pool.query(POSTGRES_SQL.dropExpiredRevocations, [Math.floor(Date.now() / 1000)]);
    const { rowCount } = await this.pool.query(POSTGRES_SQL.revoke, [id, expires]);
    return (rowCount ?? 0) > 0;
  }

  async *exportRows(table: MovedTable): AsyncIterable<Row> {
    const columns = MOVED_TABLES[table].join(', ');
    const client = await this.pool.connect();
    try {
      // Pages by cursor: a table of any size, a bounded number of rows in memory.
      await client.query('begin');
      await client.query(`declare moving no scroll cursor for select ${columns} from ${table}`);
      for (;;) {
        const { rows } = await client.query<Row>('fetch 500 from moving');
        if (rows.length === 0) break;
        for (const row of rows) yield portableRow(table, row);
      }
      await client.query('commit');
    } finally {
      client.release();
    }
  }

  async importRows(table: MovedTable, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    const columns = MOVED_TABLES[table];
    const values: unknown[] = [];
    const tuples = rows.map((row) => {
      const places = columns.map((column) => {
        values.push(row[column] ?? null);
        return `$${String(values.length)}`;
      });
      return `(${places.join(', ')})`;
    });
    this.writes++;
    await this.pool.query(
      `insert into ${table} (${columns.join(', ')}) values ${tuples.join(', ')} on conflict do nothing`,
      values,
    );
    // A dataset is found by its row's fields and by its published revision's descriptor.
    if (table === 'datasets' || table === 'revisions')
      await this.index(
        rows.map((row) => ({
          ownerid: String(row.ownerid),
          name: String(table === 'datasets' ? row.name : row.dataset),
        })),
        this.pool,
      );
  }

  async sharedValue(name: string, offer: () => string): Promise<string> {
    const read = async () =>
      (await this.one<{ value: string }>(POSTGRES_SQL.sharedValue, [name]))?.value;
    const found = await read();
    if (found !== undefined) return found;
    await this.pool.query(POSTGRES_SQL.offerSharedValue, [name, offer()]);
    return (await read()) ?? '';
  }

  async remembers(id: string): Promise<boolean> {
    return (await this.one(POSTGRES_SQL.isRevoked, [id])) !== undefined;
  }

  /** The pool's runner, made when asked: the pool is not there yet while the fields are made. */
  private readonly pooled: OrgRunner = {
    run: (sql, params) => this.runner(this.pool).run(sql, params),
    all: (sql, params) => this.runner(this.pool).all(sql, params),
  };

  /**
   * Tokens', publishers' and organisations' writes, each in a transaction holding the owner's
   * lock (lockOwner, a transaction-scoped advisory lock): under READ COMMITTED a count alone
   * would let two racing transactions each see room for one more, so the owner whose rows are
   * counted (the token's user, the publishers' owner, the organisation's maker or the
   * organisation) is held first, and each count is read after the last holder committed.
   */
  private readonly owned: OrgEngine = {
    reads: this.pooled,
    write: (ownerid, rule) =>
      this.transaction(async (client) => {
        await this.lockOwner(client, ownerid);
        return runAwaiting(rule(this.runner(client)));
      }),
  };

  readonly namedTokens: NamedTokens = namedTokens(this.owned, POSTGRES_TOKEN_SQL);

  readonly publishers: Publishers = publishers(this.owned, POSTGRES_PUBLISHER_SQL);

  readonly organisations: Organisations = organisations(this.owned, POSTGRES_ORG_SQL);

  /**
   * The one runner of the tables of named tokens, publishers and organisations, on a client
   * or the pool. A write counts only when a row changed (see SqliteMetadata's).
   */
  private runner(client: Client | pg.Pool): OrgRunner {
    return {
      run: async (sql, params) => {
        const changes = (await client.query(sql, params)).rowCount ?? 0;
        if (changes > 0) this.writes++;
        return changes;
      },
      all: async (sql, params) => (await client.query<Record<string, unknown>>(sql, params)).rows,
    };
  }

  async saveLoginCode(code: LoginCode): Promise<void> {
    await this.pool.query(POSTGRES_SQL.dropExpiredLoginCodes, [Date.now()]);
    await this.pool.query(POSTGRES_SQL.insertLoginCode, [
      code.code,
      code.challenge,
      code.next,
      code.userid,
      code.expires,
    ]);
  }

  /** The code's record, removed in the same statement: a code is good once, on any process. */
  async takeLoginCode(code: string): Promise<LoginCode | undefined> {
    const row = await this.one<LoginCode>('delete from login_codes where code = $1 returning *', [
      code,
    ]);
    return unexpired(row);
  }

  async saveLoginState(state: LoginState): Promise<void> {
    await this.pool.query(POSTGRES_SQL.dropExpiredLoginStates, [Date.now()]);
    await this.pool.query(POSTGRES_SQL.insertLoginState, [
      state.state,
      state.provider,
      state.verifier,
      state.nonce,
      state.request,
      state.expires,
    ]);
  }

  async takeLoginState(state: string): Promise<LoginState | undefined> {
    const row = await this.one<LoginState>(
      'delete from login_states where state = $1 returning *',
      [state],
    );
    return unexpired(row);
  }

  revisions(ownerid: string, dataset: string): Promise<Revision[]> {
    return this.all<Revision>(
      `select ${PostgresMetadata.REVISION_COLUMNS} from revisions where ownerid = $1 and dataset = $2 order by revision desc`,
      [ownerid, dataset],
    );
  }

  async cachedCopy(key: string): Promise<number | undefined> {
    const result = await this.pool.query<{ bytes: number }>(
      'update cached_copies set used = $1 where key = $2 and ready returning bytes',
      [Date.now(), key],
    );
    return result.rows[0]?.bytes;
  }

  /** Serialized by a lock on the table: every process counts the same budget. */
  async reserveCopy(key: string, bytes: number, budget: number): Promise<string[] | undefined> {
    return this.transaction(async (client) => {
      await client.query('lock table cached_copies in exclusive mode');
      return runAwaiting(rules.reserveCopy(this.tables(client), key, bytes, budget));
    });
  }

  async keptCopy(key: string): Promise<void> {
    await this.pool.query('update cached_copies set ready = true, used = $1 where key = $2', [
      Date.now(),
      key,
    ]);
  }

  async dropCopies(prefix: string): Promise<string[]> {
    const result = await this.pool.query<{ key: string }>(
      'delete from cached_copies where left(key, length($1)) = $1 returning key',
      [prefix],
    );
    return result.rows.map((row) => row.key);
  }

  async touchHolding(ownerid: string, key: string): Promise<void> {
    this.writes++;
    await this.pool.query(POSTGRES_SQL.touchHolding, [new Date().toISOString(), ownerid, key]);
  }

  async unusedHoldings(before: string): Promise<{ ownerid: string; key: string; bytes: number }[]> {
    const result = await this.pool.query<{ ownerid: string; key: string; bytes: string }>(
      `select ownerid, key, bytes::text from holdings h where h.created < $1 and not ${holdingInUse('strpos')}`,
      [before],
    );
    return result.rows.map((row) => ({ ...row, bytes: Number(row.bytes) }));
  }

  async dropUnusedHolding(ownerid: string, key: string, before: string): Promise<boolean> {
    this.writes++;
    const result = await this.pool.query(
      `delete from holdings h where h.ownerid = $1 and h.key = $2 and h.created < $3 and not ${holdingInUse('strpos')}`,
      [ownerid, key, before],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async holdingCount(key: string): Promise<number> {
    const row = await this.one<{ holders: number }>(
      'select count(*)::int as holders from holdings where key = $1',
      [key],
    );
    return row?.holders ?? 0;
  }

  async unheldObjects(before: string): Promise<{ key: string; bytes: number }[]> {
    const result = await this.pool.query<{ key: string; bytes: string }>(
      'select key, bytes::text from objects o where o.created < $1 and not exists (select 1 from holdings h where h.key = o.key)',
      [before],
    );
    return result.rows.map((row) => ({ key: row.key, bytes: Number(row.bytes) }));
  }

  async markCollecting(key: string): Promise<boolean> {
    this.writes++;
    const result = await this.pool.query(POSTGRES_SQL.markCollecting, [Date.now(), key]);
    return (result.rowCount ?? 0) > 0;
  }

  async dropCollected(key: string): Promise<boolean> {
    this.writes++;
    const result = await this.pool.query(POSTGRES_SQL.dropCollected, [key]);
    return (result.rowCount ?? 0) > 0;
  }

  async queue(): Promise<{ depth: number; oldest: number | undefined }> {
    const result = await this.pool.query<{ depth: number; oldest: string | null }>(
      "select count(*)::int as depth, min(created) as oldest from revisions where state in ('QUEUED', 'INPROGRESS')",
    );
    const row = result.rows[0];
    return { depth: row?.depth ?? 0, oldest: row?.oldest ? Date.parse(row.oldest) : undefined };
  }

  async objectUsage(): Promise<{ bytes: number; objects: number }> {
    const result = await this.pool.query<{ bytes: string; objects: number }>(
      'select coalesce(sum(bytes), 0)::text as bytes, count(*)::int as objects from objects',
    );
    const row = result.rows[0];
    return { bytes: Number(row?.bytes ?? 0), objects: row?.objects ?? 0 };
  }

  async cacheUsage(): Promise<{ bytes: number; copies: number }> {
    const result = await this.pool.query<{ bytes: number; copies: number }>(
      'select coalesce(sum(bytes), 0)::bigint as bytes, count(*)::int as copies from cached_copies',
    );
    return result.rows[0] ?? { bytes: 0, copies: 0 };
  }

  /**
   * Removes a dataset and its revisions (the files stay in their owner's storage), keeping
   * the last revision number its name used. Under the owner's lock, as a revision is
   * made: none is added to the dataset while it goes.
   */
  async deleteDataset(ownerid: string, dataset: string): Promise<boolean> {
    return this.transaction(async (client) => {
      await this.lockOwner(client, ownerid);
      return runAwaiting(rules.deleteDataset(this.tables(client), ownerid, dataset));
    });
  }

  /**
   * Published datasets a viewer may find (listed ones, and all of the viewer's own). With
   * words, those in whose search fields every word begins a word (`citi` finds "cities"),
   * the best matches first (ts_rank) unless an order is asked for.
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
    // Each word quoted (they hold no quote or backslash): text to find, never tsquery syntax.
    const query = words.map((word) => `'${word}':*`).join(' & ');
    const where = `${findableBy('$1', '$2')}
      and ($3 = '' or d.search @@ to_tsquery('data_search', $3))`;
    const params = [viewer ?? '', ownerid, query];
    const total = await this.one<{ n: number }>(
      `select count(*)::integer as n from datasets d where ${where}`,
      params,
    );
    const rows = await this.all<Dataset & { username: string }>(
      `select d.ownerid, d.name, d.findability, d.title, d.description, d.published_revision, d.modified,
          d.bytes, d.row_count, d.license, u.username
        from datasets d join users u on u.userid = d.ownerid where ${where}
        order by ${
          // Matches by relevance unless an order is asked for.
          sort === undefined && query !== ''
            ? `ts_rank(d.search, to_tsquery('data_search', $3)) desc, ${listingOrder('updated')}`
            : listingOrder(sort ?? 'updated')
        }
        limit $4 offset $5`,
      [...params, size, from],
    );
    return { rows, total: total?.n ?? 0 };
  }
}

import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { join } from 'node:path';

export type RevisionState = 'QUEUED' | 'INPROGRESS' | 'SUCCEEDED' | 'FAILED';
export type Findability = 'published' | 'unlisted' | 'private';

export interface User {
  userid: string;
  username: string;
  email: string;
  name: string;
  provider: string;
  join_date: string;
}

export interface Dataset {
  ownerid: string;
  name: string;
  findability: Findability;
  title: string | null;
  description: string | null;
  published_revision: number | null;
  modified: string;
}

export interface PipelineStatus {
  title: string;
  status: 'QUEUED' | 'INPROGRESS' | 'SUCCEEDED' | 'FAILED' | 'SKIPPED';
  stats: Record<string, unknown>;
  error_log: string[];
}

export interface Revision {
  ownerid: string;
  dataset: string;
  revision: number;
  state: RevisionState;
  spec: string;
  pipelines: string;
  error_log: string;
  descriptor: string | null;
  report: string | null;
  created: string;
  modified: string;
}

const SCHEMA = `
create table if not exists users (
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
  created text not null, modified text not null, primary key (ownerid, dataset, revision));
`;

/** The hub's metadata in SQLite: users, stored objects, datasets and their revisions. */
export class Store {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  /** Grows with every write, so that readers can cache what they looked up. */
  version = 0;

  constructor(dataDir: string) {
    this.db = new DatabaseSync(join(dataDir, 'hub.sqlite'));
    this.db.exec(
      'pragma journal_mode = wal; pragma synchronous = normal; pragma busy_timeout = 5000;',
    );
    this.db.exec(SCHEMA);
  }

  close(): void {
    this.db.close();
  }

  /** Prepared once: the read endpoints run a few of these per request. */
  private prepare(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  upsertUser(user: User): User {
    const existing = this.userById(user.userid);
    if (existing) return existing;
    this.version++;
    this.prepare(
      'insert into users (userid, username, email, name, provider, join_date) values (?, ?, ?, ?, ?, ?)',
    ).run(user.userid, user.username, user.email, user.name, user.provider, user.join_date);
    return user;
  }

  userById(userid: string): User | undefined {
    return this.prepare('select * from users where userid = ?').get(userid) as User | undefined;
  }

  userByName(username: string): User | undefined {
    return this.prepare('select * from users where username = ?').get(username) as User | undefined;
  }

  hasObject(key: string): boolean {
    return this.prepare('select 1 from objects where key = ?').get(key) !== undefined;
  }

  objectPrivate(key: string): boolean | undefined {
    const row = this.prepare('select private from objects where key = ?').get(key) as
      { private: number } | undefined;
    return row ? row.private === 1 : undefined;
  }

  addObject(key: string, ownerid: string, bytes: number, isPrivate: boolean): void {
    this.version++;
    this.prepare(
      'insert or ignore into objects (key, ownerid, bytes, private, created) values (?, ?, ?, ?, ?)',
    ).run(key, ownerid, bytes, isPrivate ? 1 : 0, new Date().toISOString());
  }

  /** Whether a user stored an object, or was authorized to store the same bytes. */
  mayRead(ownerid: string, key: string): boolean {
    return (
      this.prepare(
        'select 1 from objects where key = ? and ownerid = ? union all select 1 from uploads where key = ? and ownerid = ? limit 1',
      ).get(key, ownerid, key, ownerid) !== undefined
    );
  }

  /** Remembers the object last authorized for a path, for flow specs that omit it. */
  recordUpload(ownerid: string, path: string, key: string): void {
    this.prepare(
      'insert into uploads (ownerid, path, key) values (?, ?, ?) on conflict do update set key = excluded.key',
    ).run(ownerid, path, key);
  }

  lastUpload(ownerid: string, path: string): string | undefined {
    const row = this.prepare('select key from uploads where ownerid = ? and path = ?').get(
      ownerid,
      path,
    ) as { key: string } | undefined;
    return row?.key;
  }

  storageUsed(ownerid: string): number {
    const row = this.prepare(
      'select coalesce(sum(bytes), 0) as used from objects where ownerid = ?',
    ).get(ownerid) as { used: number };
    return row.used;
  }

  datasetCount(ownerid: string): number {
    return (
      this.prepare('select count(*) as n from datasets where ownerid = ?').get(ownerid) as {
        n: number;
      }
    ).n;
  }

  dataset(ownerid: string, name: string): Dataset | undefined {
    return this.prepare('select * from datasets where ownerid = ? and name = ?').get(
      ownerid,
      name,
    ) as Dataset | undefined;
  }

  /** Creates the next revision of a dataset atomically and returns its number. */
  createRevision(
    ownerid: string,
    dataset: string,
    findability: Findability,
    spec: string,
    pipelines: string,
  ): number {
    this.version++;
    const now = new Date().toISOString();
    this.db.exec('begin immediate');
    try {
      this.prepare(
        'insert into datasets (ownerid, name, findability, modified) values (?, ?, ?, ?) on conflict do update set findability = excluded.findability, modified = excluded.modified',
      ).run(ownerid, dataset, findability, now);
      const row = this.prepare(
        'select coalesce(max(revision), 0) as last from revisions where ownerid = ? and dataset = ?',
      ).get(ownerid, dataset) as { last: number };
      const revision = row.last + 1;
      this.prepare(
        "insert into revisions (ownerid, dataset, revision, state, spec, pipelines, error_log, created, modified) values (?, ?, ?, 'QUEUED', ?, ?, '[]', ?, ?)",
      ).run(ownerid, dataset, revision, spec, pipelines, now, now);
      this.db.exec('commit');
      return revision;
    } catch (error) {
      this.db.exec('rollback');
      throw error;
    }
  }

  revision(ownerid: string, dataset: string, which: string): Revision | undefined {
    const base = 'select * from revisions where ownerid = ? and dataset = ?';
    if (which === 'latest')
      return this.prepare(`${base} order by revision desc limit 1`).get(ownerid, dataset) as
        Revision | undefined;
    if (which === 'successful') {
      return this.prepare(`${base} and state = 'SUCCEEDED' order by revision desc limit 1`).get(
        ownerid,
        dataset,
      ) as Revision | undefined;
    }
    if (!/^\d+$/.test(which)) return undefined;
    return this.prepare(`${base} and revision = ?`).get(ownerid, dataset, Number(which)) as
      Revision | undefined;
  }

  updateRevision(
    revision: Pick<Revision, 'ownerid' | 'dataset' | 'revision'>,
    changes: Partial<Pick<Revision, 'state' | 'pipelines' | 'error_log' | 'descriptor' | 'report'>>,
  ): void {
    this.version++;
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

  unfinished(): Revision[] {
    return this.prepare(
      "select * from revisions where state in ('QUEUED', 'INPROGRESS') order by created",
    ).all() as unknown as Revision[];
  }

  publish(
    ownerid: string,
    dataset: string,
    revision: number,
    title: string | null,
    description: string | null,
  ): void {
    this.version++;
    this.prepare(
      'update datasets set published_revision = max(coalesce(published_revision, 0), ?), title = ?, description = ?, modified = ? where ownerid = ? and name = ?',
    ).run(revision, title, description, new Date().toISOString(), ownerid, dataset);
  }

  /** Published datasets a viewer may find: listed ones, and all of the viewer's own. */
  search(
    text: string,
    viewer: string | undefined,
    size: number,
    from: number,
  ): { rows: (Dataset & { username: string })[]; total: number } {
    const where = `d.published_revision is not null and (d.findability = 'published' or d.ownerid = ?)
      and (? = '' or d.name like ? or coalesce(d.title, '') like ? or coalesce(d.description, '') like ?)`;
    const like = `%${text}%`;
    const params = [viewer ?? '', text, like, like, like];
    const total = (
      this.prepare(`select count(*) as n from datasets d where ${where}`).get(...params) as {
        n: number;
      }
    ).n;
    const rows = this.prepare(
      `select d.*, u.username from datasets d join users u on u.userid = d.ownerid where ${where} order by d.modified desc limit ? offset ?`,
    ).all(...params, size, from) as unknown as (Dataset & { username: string })[];
    return { rows, total };
  }
}

/**
 * Organisations and their members, alike in both engines. An organisation is a row of
 * `users` of kind `organisation`: it shares the one namespace of owner names, and every
 * table keyed by an owner id (datasets, holdings, quotas) holds its datasets as a user's.
 * It has no identity at any provider, so nobody signs in as one. `members` says who is in
 * it and with which role; an organisation always keeps an admin.
 *
 * The writes are rules over a thin runner (rules.ts's way): SQLite runs them at once in its
 * transaction, PostgreSQL awaits each answer in a transaction that holds the organisation's
 * lock, so that two admins leaving at once cannot leave it with none.
 */
import { numbered } from './numbered.js';
import { randomBytes } from 'node:crypto';
import type { MemberRoles, Role } from '../../caller.js';
import type { Answer, Rule } from './run.js';

/** What `users.kind` says of an owner. */
export type OwnerKind = 'user' | 'organisation';

/** The `provider` of an organisation's row: no sign-in provider's name has a colon (config.ts). */
export const ORGANISATION_PROVIDER = ':organisation';

/** A member as listed: the user's id and name, and the role. */
export interface Member {
  userid: string;
  username: string;
  role: Role;
}

/** An organisation's row as it is made. */
interface NewOrganisation {
  userid: string;
  username: string;
  name: string;
  join_date: string;
}

/** What a change of members did: done, refused for leaving no admin, or no such member. */
export type MemberChange = 'done' | 'last-admin' | 'not-member';

/** What making an organisation did: made (its id), or not, for a name held or for the cap. */
export type OrgMade = { made: string } | { refused: 'taken' | 'full' };

/**
 * What deleting an organisation did: deleted, with the ids of the trusted publishers that
 * went with it (whose traded tokens the caller revokes); or refused while it has datasets or
 * revisions waiting to be published (how many), or because there is no such organisation.
 */
export type OrgDeleted =
  | { deleted: true; publishers: string[] }
  | { refused: 'datasets' | 'pending'; count: number }
  | { refused: 'missing' };

/**
 * The owner id under which the last revision numbers of an owner's deleted dataset names are
 * kept once that owner (an organisation) is deleted: they stay with the NAME, so that whoever
 * holds the name next never gives `/<name>/<dataset>/v/<N>/`, an address caches keep for a
 * year, other bytes (rules.ts's lastRevisionUsed reads them). No user id has a colon.
 */
export const NAME_KEPT = ':name:';

export interface Organisations extends MemberRoles {
  /** Makes an organisation with its first admin: its id, or undefined when an owner holds the name. */
  create(username: string, adminid: string): Promise<string | undefined>;
  /**
   * Makes an organisation with its first admin, its maker, unless an owner holds the name
   * (`taken`) or the maker has made `most` organisations that still exist (`full`): counted
   * and made in one transaction holding the maker against other writers, so that racing
   * makers never pass the cap. Only what a user made counts: being made an admin of others'
   * organisations takes nothing of one's own cap.
   */
  make(username: string, adminid: string, most: number): Promise<OrgMade>;
  /** Its members, by name. */
  members(orgid: string): Promise<Member[]>;
  /** How many organisations the user made that still exist (the cap on making more counts these). */
  madeBy(userid: string): Promise<number>;
  /**
   * Deletes an organisation that has no datasets and no revision waiting: its members, its
   * uploads and holdings (the bytes go at the next collection), its trusted publishers and
   * its row, which frees its name; the last revision numbers of its deleted dataset names
   * stay with the name (NAME_KEPT). In one transaction holding the organisation, as a
   * publication to it holds it: a revision cannot be made for it meanwhile.
   */
  delete(orgid: string): Promise<OrgDeleted>;
  /** Adds a member with a role, or changes a member's role. */
  setRole(orgid: string, userid: string, role: Role): Promise<MemberChange>;
  remove(orgid: string, userid: string): Promise<MemberChange>;
}

/**
 * The migration that makes them, after `users` gains its `kind` (KIND_COLUMN): `if not
 * exists`, as a test that takes a hub back to an earlier version may run it again.
 */
export const ORGANISATIONS_TABLES = `create table if not exists members (
    orgid text not null, userid text not null, role text not null, primary key (orgid, userid));
  create index if not exists members_userid on members (userid);`;

/**
 * Who made an organisation (`users.maker`, the user's id; null on a user's row): the cap on
 * making organisations counts these. The migration fills it for the organisations made
 * before it, which recorded no maker, with their admin who joined the hub first (by
 * `join_date`, then user name): the maker, unless the maker left, in which case an admin
 * remaining, who can now delete it (`data org delete`) if it has no datasets.
 */
export const MAKER_COLUMN = 'maker text';

/** Fills `maker` where it is missing (see MAKER_COLUMN). */
export const FILL_MAKERS = `update users set maker = (
    select m.userid from members m join users a on a.userid = m.userid
    where m.orgid = users.userid and m.role = 'admin' order by a.join_date, a.username limit 1)
  where kind = 'organisation' and maker is null;
  create index if not exists users_maker on users (maker);`;

/**
 * What a user row's `kind` column is: null (rows copied from a hub before it) is a user.
 * Each engine adds it only where it is missing.
 */
export const KIND_COLUMN = `kind text default 'user'`;

/** The statements, with `?` placeholders (PostgreSQL's engine numbers them: POSTGRES_ORG_SQL). */
export const ORG_SQL = {
  nameTaken: 'select 1 as taken from users where username = ?',
  insertOrganisation: `insert into users (userid, username, email, name, provider, subject, join_date, kind, maker)
    values (?, ?, '', ?, '${ORGANISATION_PROVIDER}', ?, ?, 'organisation', ?) on conflict do nothing`,
  roleOf: 'select role from members where orgid = ? and userid = ?',
  members: `select m.userid, u.username, m.role from members m join users u on u.userid = m.userid
    where m.orgid = ? order by u.username`,
  admins: `select count(*) as n from members where orgid = ? and role = 'admin'`,
  madeBy: `select count(*) as n from users where maker = ? and kind = 'organisation'`,
  isOrganisation: `select username from users where userid = ? and kind = 'organisation'`,
  datasets: 'select count(*) as n from datasets where ownerid = ?',
  pending: `select count(*) as n from revisions where ownerid = ? and state in ('QUEUED', 'INPROGRESS')`,
  dropMembers: 'delete from members where orgid = ?',
  dropPublishers: 'delete from publishers where ownerid = ? returning id',
  dropUploads: 'delete from uploads where ownerid = ?',
  dropHoldings: 'delete from holdings where ownerid = ?',
  keepNames: `insert into deleted_names (ownerid, name, last_revision)
    select ?, name, last_revision from deleted_names where ownerid = ?
    on conflict (ownerid, name) do update set last_revision = case
      when excluded.last_revision > deleted_names.last_revision then excluded.last_revision
      else deleted_names.last_revision end`,
  dropNames: 'delete from deleted_names where ownerid = ?',
  dropOrganisation: `delete from users where userid = ? and kind = 'organisation'`,
  setRole:
    'insert into members (orgid, userid, role) values (?, ?, ?) on conflict (orgid, userid) do update set role = excluded.role',
  remove: 'delete from members where orgid = ? and userid = ?',
} as const;

/** The same statements with PostgreSQL's placeholders, `$1…$n`. */
export const POSTGRES_ORG_SQL = numbered(ORG_SQL);

/** How an engine runs a statement: at once (SQLite) or as a promise (PostgreSQL). */
export interface OrgRunner {
  run(sql: string, params: unknown[]): Answer<number>;
  all(sql: string, params: unknown[]): Answer<Record<string, unknown>[]>;
}

/** An engine's side: reads outside a transaction, and writes in one holding the organisation. */
export interface OrgEngine {
  reads: OrgRunner;
  /** Runs a rule in a transaction that holds the organisation (`orgid`) against other writers. */
  write<T>(orgid: string, rule: (runner: OrgRunner) => Rule<T>): Promise<T>;
}

function* rows(value: Answer<Record<string, unknown>[]>): Rule<Record<string, unknown>[]> {
  return (yield value) as Record<string, unknown>[];
}

function* changed(value: Answer<number>): Rule<number> {
  return (yield value) as number;
}

const ROLES_KNOWN: ReadonlySet<string> = new Set<Role>(['admin', 'maintainer', 'reader']);

/** A stored role, or undefined for none (or one this version does not know). */
function roleIn(found: readonly Record<string, unknown>[]): Role | undefined {
  const role = found[0]?.role;
  return typeof role === 'string' && ROLES_KNOWN.has(role) ? (role as Role) : undefined;
}

function* createRule(
  runner: OrgRunner,
  sql: typeof ORG_SQL,
  org: NewOrganisation,
  adminid: string,
  most: number,
): Rule<OrgMade> {
  const taken = { refused: 'taken' } as const;
  if ((yield* rows(runner.all(sql.nameTaken, [org.username]))).length > 0) return taken;
  const [count] = yield* rows(runner.all(sql.madeBy, [adminid]));
  if (Number(count?.n ?? 0) >= most) return { refused: 'full' };
  const made = yield* changed(
    runner.run(sql.insertOrganisation, [
      org.userid,
      org.username,
      org.name,
      org.userid,
      org.join_date,
      adminid,
    ]),
  );
  if (made !== 1) return taken;
  yield* changed(runner.run(sql.setRole, [org.userid, adminid, 'admin']));
  return { made: org.userid };
}

/** Whether taking `userid`'s admin role away leaves the organisation no admin. */
function* lastAdmin(runner: OrgRunner, sql: typeof ORG_SQL, orgid: string): Rule<boolean> {
  const [count] = yield* rows(runner.all(sql.admins, [orgid]));
  return Number(count?.n ?? 0) <= 1;
}

function* setRoleRule(
  runner: OrgRunner,
  sql: typeof ORG_SQL,
  orgid: string,
  userid: string,
  role: Role,
): Rule<MemberChange> {
  const current = roleIn(yield* rows(runner.all(sql.roleOf, [orgid, userid])));
  if (current === 'admin' && role !== 'admin' && (yield* lastAdmin(runner, sql, orgid)))
    return 'last-admin';
  yield* changed(runner.run(sql.setRole, [orgid, userid, role]));
  return 'done';
}

function* removeRule(
  runner: OrgRunner,
  sql: typeof ORG_SQL,
  orgid: string,
  userid: string,
): Rule<MemberChange> {
  const current = roleIn(yield* rows(runner.all(sql.roleOf, [orgid, userid])));
  if (current === undefined) return 'not-member';
  if (current === 'admin' && (yield* lastAdmin(runner, sql, orgid))) return 'last-admin';
  yield* changed(runner.run(sql.remove, [orgid, userid]));
  return 'done';
}

function* countOf(runner: OrgRunner, statement: string, orgid: string): Rule<number> {
  const [count] = yield* rows(runner.all(statement, [orgid]));
  return Number(count?.n ?? 0);
}

function* deleteRule(runner: OrgRunner, sql: typeof ORG_SQL, orgid: string): Rule<OrgDeleted> {
  const [org] = yield* rows(runner.all(sql.isOrganisation, [orgid]));
  if (!org) return { refused: 'missing' };
  const datasets = yield* countOf(runner, sql.datasets, orgid);
  if (datasets > 0) return { refused: 'datasets', count: datasets };
  const pending = yield* countOf(runner, sql.pending, orgid);
  if (pending > 0) return { refused: 'pending', count: pending };
  yield* changed(runner.run(sql.dropMembers, [orgid]));
  const publishers = (yield* rows(runner.all(sql.dropPublishers, [orgid]))).map((row) =>
    String(row.id),
  );
  yield* changed(runner.run(sql.dropUploads, [orgid]));
  yield* changed(runner.run(sql.dropHoldings, [orgid]));
  yield* changed(runner.run(sql.keepNames, [`${NAME_KEPT}${String(org.username)}`, orgid]));
  yield* changed(runner.run(sql.dropNames, [orgid]));
  yield* changed(runner.run(sql.dropOrganisation, [orgid]));
  return { deleted: true, publishers };
}

/** Reads a rule's answer outside a transaction: the engine's runner answers or awaits. */
async function read<T>(rule: Rule<T>): Promise<T> {
  let step = rule.next();
  while (!step.done) step = rule.next(await step.value);
  return step.value;
}

/** The organisations of an engine, over its runner and its dialect of the statements. */
export function organisations(engine: OrgEngine, sql: typeof ORG_SQL): Organisations {
  // Under the admin's lock: the organisations one user makes are counted one maker at a time.
  const make = (username: string, adminid: string, most: number) => {
    const userid = randomBytes(16).toString('hex');
    const org = { userid, username, name: username, join_date: new Date().toISOString() };
    return engine.write(adminid, (runner) => createRule(runner, sql, org, adminid, most));
  };
  return {
    roleOf: async (orgid, userid) =>
      roleIn(await read(rows(engine.reads.all(sql.roleOf, [orgid, userid])))),
    members: async (orgid) =>
      (await read(rows(engine.reads.all(sql.members, [orgid])))).flatMap((row) => {
        const role = roleIn([row]);
        return role ? [{ userid: String(row.userid), username: String(row.username), role }] : [];
      }),
    madeBy: (userid) => read(countOf(engine.reads, sql.madeBy, userid)),
    create: async (username, adminid) => {
      const made = await make(username, adminid, Number.POSITIVE_INFINITY);
      return 'made' in made ? made.made : undefined;
    },
    make,
    setRole: (orgid, userid, role) =>
      engine.write(orgid, (runner) => setRoleRule(runner, sql, orgid, userid, role)),
    remove: (orgid, userid) =>
      engine.write(orgid, (runner) => removeRule(runner, sql, orgid, userid)),
    delete: (orgid) => engine.write(orgid, (runner) => deleteRule(runner, sql, orgid)),
  };
}

/**
 * Trusted publishers (`data publisher add`): which CI workflows may publish a dataset, each
 * as an issuer the hub trusts and the claims its ID token must carry. The dataset need not
 * exist yet: the first publication may come from the workflow.
 */
import { numbered } from './numbered.js';
import type { OrgEngine, OrgRunner } from './organisations.js';
import { answer, type Rule } from './run.js';

export interface Publisher {
  /** Random, short: what `data publisher remove` names. */
  id: string;
  ownerid: string;
  dataset: string;
  /** The issuer, exactly as its tokens' `iss` says it. */
  issuer: string;
  /** Claim names and the values a token must carry, every one of them. */
  claims: Record<string, string>;
  /** ISO 8601. */
  created: string;
  /** The user who added it. */
  created_by: string;
}

/** How many publishers the hub keeps: of one dataset, and of one owner's datasets in all. */
export interface PublisherCaps {
  perDataset: number;
  perOwner: number;
}

/**
 * What keeping a publisher did: kept; the same issuer and claims kept already for the
 * dataset (`same`, that one); past a cap (`full`); or its id taken (`taken`, nothing kept).
 */
export type PublisherAdded =
  { added: true } | { same: Publisher } | { full: keyof PublisherCaps } | { taken: true };

/** The publishers table of one engine: both engines run the same statements. */
export interface Publishers {
  /**
   * Keeps a publisher, unless the dataset has the same one or either cap is reached: looked
   * for, counted and kept in one transaction holding the owner against other writers, so
   * that racing additions never pass a cap nor keep one publisher twice. Its claims are
   * compared as kept, sorted by name.
   */
  add(publisher: Publisher, caps?: PublisherCaps): Promise<PublisherAdded>;
  /** A dataset's publishers (its name in any case, as dataset names are), oldest first. */
  list(ownerid: string, dataset: string): Promise<Publisher[]>;
  /** The publishers of every dataset that trust this issuer, oldest first. */
  ofIssuer(issuer: string): Promise<Publisher[]>;
  /** Removes a dataset's publisher; its record, or undefined when there was none. */
  remove(ownerid: string, dataset: string, id: string): Promise<Publisher | undefined>;
}

/**
 * The table, as each engine's migration makes it; `if not exists`: a test that takes a hub
 * back to an earlier version may run it again.
 */
export const PUBLISHERS_TABLE = `create table if not exists publishers (
    id text primary key, ownerid text not null, dataset text not null, issuer text not null,
    claims text not null, created text not null, created_by text not null);
  create index if not exists publishers_dataset on publishers (ownerid, dataset);
  create index if not exists publishers_issuer on publishers (issuer);`;

const COLUMNS = 'id, ownerid, dataset, issuer, claims, created, created_by';

/** The statements, with `?` placeholders (PostgreSQL's engine numbers them). */
export const PUBLISHER_SQL = {
  add: `insert into publishers (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
  same: `select ${COLUMNS} from publishers where ownerid = ? and lower(dataset) = lower(?) and issuer = ? and claims = ? order by created, id`,
  ofDataset: 'select count(*) as n from publishers where ownerid = ? and lower(dataset) = lower(?)',
  ofOwner: 'select count(*) as n from publishers where ownerid = ?',
  list: `select ${COLUMNS} from publishers where ownerid = ? and lower(dataset) = lower(?) order by created, id`,
  ofIssuer: `select ${COLUMNS} from publishers where issuer = ? order by created, id`,
  remove: `delete from publishers where ownerid = ? and lower(dataset) = lower(?) and id = ? returning ${COLUMNS}`,
} as const;

/** The same statements with PostgreSQL's placeholders, `$1…$n`. */
export const POSTGRES_PUBLISHER_SQL = numbered(PUBLISHER_SQL);

/** How an engine runs a statement of PUBLISHER_SQL. */
export type PublisherRunner = OrgRunner;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function record(row: Record<string, unknown>): Publisher {
  return {
    id: text(row.id),
    ownerid: text(row.ownerid),
    dataset: text(row.dataset),
    issuer: text(row.issuer),
    claims: JSON.parse(text(row.claims)) as Record<string, string>,
    created: text(row.created),
    created_by: text(row.created_by),
  };
}

type PublisherSql = Readonly<Record<keyof typeof PUBLISHER_SQL, string>>;

const NO_CAPS: PublisherCaps = {
  perDataset: Number.POSITIVE_INFINITY,
  perOwner: Number.POSITIVE_INFINITY,
};

function* countOf(runner: PublisherRunner, statement: string, params: unknown[]): Rule<number> {
  const [row] = yield* answer(runner.all(statement, params));
  return Number(row?.n ?? 0);
}

/** Looks for the same publisher, counts, and keeps it, in the caller's transaction. */
function* addRule(
  runner: PublisherRunner,
  sql: PublisherSql,
  publisher: Publisher,
  caps: PublisherCaps,
): Rule<PublisherAdded> {
  const { ownerid, dataset, issuer } = publisher;
  const claims = JSON.stringify(publisher.claims);
  const [same] = yield* answer(runner.all(sql.same, [ownerid, dataset, issuer, claims]));
  if (same) return { same: record(same) };
  if ((yield* countOf(runner, sql.ofDataset, [ownerid, dataset])) >= caps.perDataset)
    return { full: 'perDataset' };
  if ((yield* countOf(runner, sql.ofOwner, [ownerid])) >= caps.perOwner)
    return { full: 'perOwner' };
  const changed = yield* answer(
    runner.run(sql.add, [
      publisher.id,
      ownerid,
      dataset,
      issuer,
      claims,
      publisher.created,
      publisher.created_by,
    ]),
  );
  return changed === 1 ? { added: true } : { taken: true };
}

/**
 * The publishers table over an engine (its reads, and its writes in a transaction holding
 * the owner) and its dialect of the statements.
 */
export function publishers(engine: OrgEngine, sql: PublisherSql): Publishers {
  const runner = engine.reads;
  return {
    add: (publisher, caps = NO_CAPS) =>
      engine.write(publisher.ownerid, (writer) => addRule(writer, sql, publisher, caps)),
    list: async (ownerid, dataset) => (await runner.all(sql.list, [ownerid, dataset])).map(record),
    ofIssuer: async (issuer) => (await runner.all(sql.ofIssuer, [issuer])).map(record),
    remove: async (ownerid, dataset, id) => {
      const [row] = await runner.all(sql.remove, [ownerid, dataset, id]);
      return row ? record(row) : undefined;
    },
  };
}

/**
 * Trusted publishers (`data publisher add`): which CI workflows may publish a dataset, each
 * as an issuer the hub trusts and the claims its ID token must carry. The dataset need not
 * exist yet: the first publication may come from the workflow.
 */
import { numbered } from './numbered.js';
import type { OrgRunner } from './organisations.js';

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

/** The publishers table of one engine: both engines run the same statements. */
export interface Publishers {
  /** Keeps a publisher; false, with nothing kept, when its id is taken. */
  add(publisher: Publisher): Promise<boolean>;
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

/** The publishers table over an engine's runner and its dialect of the statements. */
export function publishers(
  runner: PublisherRunner,
  sql: Readonly<Record<keyof typeof PUBLISHER_SQL, string>>,
): Publishers {
  return {
    add: async (publisher) =>
      (await runner.run(sql.add, [
        publisher.id,
        publisher.ownerid,
        publisher.dataset,
        publisher.issuer,
        JSON.stringify(publisher.claims),
        publisher.created,
        publisher.created_by,
      ])) === 1,
    list: async (ownerid, dataset) => (await runner.all(sql.list, [ownerid, dataset])).map(record),
    ofIssuer: async (issuer) => (await runner.all(sql.ofIssuer, [issuer])).map(record),
    remove: async (ownerid, dataset, id) => {
      const [row] = await runner.all(sql.remove, [ownerid, dataset, id]);
      return row ? record(row) : undefined;
    },
  };
}

import { isDerived, resourcesOf, type Package } from '@data/core';

/**
 * What search reads of a published dataset, field by field, in the order of their weight:
 * a word of the title counts most, one of the description least.
 */
export const SEARCH_FIELDS = [
  'title',
  'name',
  'keywords',
  'resources',
  'owner',
  'description',
] as const;

export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Each field's words, lower-cased and separated by spaces. */
export type SearchFields = Record<SearchField, string>;

/** What a dataset's search fields are made of: its row, its owner's name, its descriptor. */
export interface SearchSource {
  ownerid: string;
  name: string;
  title: string | null;
  description: string | null;
  username: string;
  descriptor: string | null;
}

/**
 * What the index reads of a dataset, joined from its row, its owner and its revision: the
 * same SQL on SQLite and PostgreSQL.
 */
export const SEARCH_SOURCE = `select d.ownerid, d.name, d.title, d.description, u.username, r.descriptor
  from datasets d join users u on u.userid = d.ownerid
  left join revisions r on r.ownerid = d.ownerid and r.dataset = d.name and r.revision = d.published_revision
  where d.published_revision is not null`;

/** A query's words past this many are left out: each one is a lookup of the index. */
export const MAX_SEARCH_WORDS = 16;
/** A query's word is its first this many characters: a word begun still finds it. */
const MAX_QUERY_WORD = 100;
/**
 * What search reads of each field: a description's first few pages. PostgreSQL refuses a
 * vector over 1 MB, which would fail the publication of a longer one.
 */
const MAX_FIELD_CHARACTERS = 20_000;

/**
 * The words of a text as search sees them, in either engine: runs of letters, digits and
 * marks, composed (NFC) and lower-cased here, so that a database whose locale lower-cases
 * ASCII only still finds "zürich" for "ZÜRICH". Punctuation separates words and is never
 * syntax: `"`, `*`, `-`, `:` or `NEAR(` of a query are not the engines' operators.
 */
export function searchWords(text: string): string[] {
  return (
    text
      .normalize('NFC')
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu) ?? []
  );
}

/** The distinct words of a query, at most MAX_SEARCH_WORDS of them. */
export function queryWords(text: string): string[] {
  const words = searchWords(text).map((word) => word.slice(0, MAX_QUERY_WORD));
  return [...new Set(words)].slice(0, MAX_SEARCH_WORDS);
}

function words(text: unknown): string {
  return typeof text === 'string' ? searchWords(text.slice(0, MAX_FIELD_CHARACTERS)).join(' ') : '';
}

/** A descriptor's value as a list: an array as it is, anything else alone in one. */
function strings(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

/**
 * The search fields of a dataset: its resources are the ones its publisher gave, never the
 * copies the hub derived of them (every dataset has a `…_csv`).
 */
export function searchFields(source: SearchSource): SearchFields {
  // A published revision's, validated then; what it holds is still read by its type.
  let descriptor: Partial<Package> = {};
  try {
    const parsed = JSON.parse(source.descriptor ?? '{}') as unknown;
    if (parsed && typeof parsed === 'object') descriptor = parsed;
  } catch {
    // A descriptor that is not JSON has no keywords or resources to find it by.
  }
  const resources = resourcesOf(descriptor);
  const within = (text: string) => text.slice(0, MAX_FIELD_CHARACTERS);
  return {
    title: words(source.title),
    name: words(source.name),
    keywords: within(strings(descriptor.keywords).map(words).join(' ')),
    resources: within(
      resources
        .filter((resource) => !isDerived(resource))
        .map((resource) => words(resource.name))
        .join(' '),
    ),
    owner: words(source.username),
    description: words(source.description),
  };
}

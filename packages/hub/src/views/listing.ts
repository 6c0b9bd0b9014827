import type { DatasetSort } from '../engines/metadata/types.js';
import { day, humanBytes } from './format.js';
import { counted } from '@data/core';
import { escape, page } from './layout.js';

export interface DatasetCard {
  owner: string;
  name: string;
  title: string | null;
  description: string | null;
  bytes: number | null;
  rows: number | null;
  license: string | null;
  updated: string;
  findability: string;
}

export interface Listing {
  /** Where the listing is: `/` or `/<owner>`; its links keep the query and the sort. */
  path: string;
  heading: string;
  intro: string;
  query: string;
  sort: DatasetSort;
  page: number;
  pageSize: number;
  total: number;
  cards: DatasetCard[];
  empty: string;
  viewer: string | undefined;
}

const SORT_LABELS: Record<DatasetSort, string> = {
  updated: 'Recently updated',
  name: 'Name',
  size: 'Size',
  rows: 'Rows',
};

function href(listing: Listing, changes: { sort?: DatasetSort; page?: number }): string {
  const params = new URLSearchParams();
  if (listing.query) params.set('q', listing.query);
  const sort = changes.sort ?? listing.sort;
  if (sort !== 'updated') params.set('sort', sort);
  const number = changes.page ?? (changes.sort ? 1 : listing.page);
  if (number > 1) params.set('page', String(number));
  const text = params.toString();
  return escape(text ? `${listing.path}?${text}` : listing.path);
}

function sortLinks(listing: Listing): string {
  const links = (Object.keys(SORT_LABELS) as DatasetSort[]).map((sort) =>
    sort === listing.sort
      ? `<strong aria-current="true">${SORT_LABELS[sort]}</strong>`
      : `<a href="${href(listing, { sort })}">${SORT_LABELS[sort]}</a>`,
  );
  return `<nav class="sorts" aria-label="Sort datasets">Sort by: ${links.join(' · ')}</nav>`;
}

function pager(listing: Listing): string {
  const pages = Math.max(1, Math.ceil(listing.total / listing.pageSize));
  if (pages === 1) return '';
  const previous =
    listing.page > 1
      ? `<a rel="prev" href="${href(listing, { page: listing.page - 1 })}">← Previous</a>`
      : '';
  const next =
    listing.page < pages
      ? `<a rel="next" href="${href(listing, { page: listing.page + 1 })}">Next →</a>`
      : '';
  return `<nav class="pager" aria-label="Pages">${previous}<span>Page ${String(listing.page)} of ${String(pages)}</span>${next}</nav>`;
}

function firstLine(text: string): string {
  const line = text.split('\n').find((part) => part.trim() !== '') ?? '';
  return line.length > 240 ? `${line.slice(0, 237)}…` : line;
}

function card(item: DatasetCard): string {
  const facts = [
    humanBytes(item.bytes),
    item.rows === null ? null : counted(item.rows, 'row'),
    item.license,
    `updated ${day(item.updated)}`,
  ].filter((fact): fact is string => fact !== null && fact !== '—');
  const hidden =
    item.findability === 'published'
      ? ''
      : ` <span class="badge wait">${escape(item.findability)}</span>`;
  return `<li class="card"><h2 class="title"><a href="/${escape(item.owner)}/${escape(item.name)}">${escape(item.title ?? item.name)}</a>${hidden}</h2>
<div class="muted">${escape(item.owner)}/${escape(item.name)}</div>${item.description ? `<p>${escape(firstLine(item.description))}</p>` : ''}
<p class="facts">${facts.map(escape).join(' · ')}</p></li>`;
}

/** The home page, search results and an owner's page: datasets, sorted and paged. */
export function listingPage(listing: Listing): string {
  const list =
    listing.cards.length === 0
      ? `<div class="card"><p class="muted">${listing.empty}</p></div>`
      : `<ul class="cards">${listing.cards.map(card).join('\n')}</ul>`;
  const shown =
    listing.total === 0 ? '' : `<p class="muted">${counted(listing.total, 'dataset')}</p>`;
  return page(
    listing.heading,
    `<h1>${escape(listing.heading)}</h1>${listing.intro}${shown}${listing.total > 1 ? sortLinks(listing) : ''}${list}${pager(listing)}`,
    listing.query,
    listing.viewer,
  );
}

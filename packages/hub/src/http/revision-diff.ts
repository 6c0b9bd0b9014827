/**
 * `/<owner>/<dataset>/diff/<N>..<M>`: what changed from revision N to revision M, what
 * `data diff owner/dataset@N owner/dataset@M` prints, on a page: each changed table as a
 * table of its rows (views/diff.ts), 50 of each kind a page. Each revision is read from the
 * hub's own store, as its reader may read it; a diff is made once per pair while the hub's
 * data stays the same, and tables too large to diff while a page waits are left to the
 * command.
 */
import type { ServerResponse } from 'node:http';
import { diffPackages, type PackageDiff } from '@data/core';
import type { Report } from '@data/core';
import type { Hub } from '../context.js';
import { userOf } from './callers.js';
import { HttpError } from '../http-error.js';
import { HTML, sendText, type Request } from './request.js';
import { publishedRevision } from './published.js';
import { revisionSide, type Published } from '../services/published.js';
import { diffBody } from '../views/diff.js';
import { escape } from '../views/escape.js';
import { page } from '../views/layout.js';

/** Rows of each kind a page shows per table. */
const PAGE_ROWS = 50;
/** Pages of rows past which the page points at `data diff`: 10,000 rows of each kind. */
const MOST_PAGES = 200;

/** `?page=`: which page of rows, from 1; 404 past the pages a diff page shows. */
function pageParam(request: Request): number {
  const asked = request.url.searchParams.get('page');
  if (asked === null) return 1;
  if (!/^[1-9]\d{0,3}$/.test(asked) || Number(asked) > MOST_PAGES)
    throw new HttpError(404, 'not found');
  return Number(asked);
}

/** The rows of one page: the diff made with the rows up to its end, those before it left out. */
function pageOf(diff: PackageDiff, page: number): PackageDiff {
  const skip = (page - 1) * PAGE_ROWS;
  return {
    ...diff,
    resources: diff.resources.map((each) => ({
      ...each,
      samples: {
        added: each.samples.added.slice(skip),
        removed: each.samples.removed.slice(skip),
        changed: each.samples.changed.slice(skip),
      },
    })),
  };
}

/** Links to the pages before and after, when there are rows there. */
function pageLinks(diff: PackageDiff, page: number, base: string): string {
  const most = Math.max(
    0,
    ...diff.resources.map((each) =>
      Math.max(each.rows.added, each.rows.removed, each.rows.changed),
    ),
  );
  const links: string[] = [];
  if (page > 1)
    links.push(`<a href="${base}?page=${String(page - 1)}" rel="prev">Previous rows</a>`);
  if (most > page * PAGE_ROWS && page < MOST_PAGES)
    links.push(`<a href="${base}?page=${String(page + 1)}" rel="next">Next rows</a>`);
  return links.length > 0
    ? `<nav aria-label="Pages of rows"><p>${links.join(' · ')}</p></nav>`
    : '';
}
/** Past this many rows in a revision's tables, the page points at `data diff` instead. */
const MOST_ROWS = 500_000;

function rowsOf(pkg: Published): number {
  const report = pkg.revision.report ? (JSON.parse(pkg.revision.report) as Report) : undefined;
  return report?.tasks.reduce((sum, task) => sum + (task.stats.rows ?? 0), 0) ?? 0;
}

export async function revisionDiff(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  ownerName: string,
  name: string,
  range: string,
): Promise<void> {
  const match = /^([1-9]\d{0,8})\.\.([1-9]\d{0,8})$/.exec(range);
  if (!match?.[1] || !match[2]) throw new HttpError(404, 'not found');
  const [from, to] = [match[1], match[2]];
  const pageNumber = pageParam(request);
  const a = await publishedRevision(hub, request, ownerName, name, from);
  const b = await publishedRevision(hub, request, ownerName, name, to);
  const title = `${ownerName}/${name}: revision ${from} to ${to}`;
  const viewer = (await userOf(hub, request))?.username;
  const command = `data diff ${ownerName}/${name}@${from} ${ownerName}/${name}@${to}`;
  if (Math.max(rowsOf(a), rowsOf(b)) > MOST_ROWS) {
    const body = `<h1>${escape(title)}</h1><p>These revisions hold more than ${MOST_ROWS.toLocaleString('en-US')} rows: compare them with <code>${escape(command)}</code>.</p>`;
    sendText(response, 200, page(title, body, '', viewer), HTML);
    return;
  }
  const key = `diff:${ownerName}/${name}/${from}..${to}/${String(pageNumber)}`;
  const cached = hub.lookups.get(key);
  let diff =
    cached?.version === hub.store.version ? (cached.value as PackageDiff | undefined) : undefined;
  if (!diff) {
    diff = await diffPackages(
      revisionSide(hub, a, `${ownerName}/${name}@${from}`),
      revisionSide(hub, b, `${ownerName}/${name}@${to}`),
      { limit: PAGE_ROWS * pageNumber },
    );
    hub.lookups.set(
      key,
      { version: hub.store.version, value: diff },
      JSON.stringify(diff).length * 2,
    );
  }
  const first = (pageNumber - 1) * PAGE_ROWS;
  const base = `/${encodeURIComponent(ownerName)}/${encodeURIComponent(name)}/diff/${from}..${to}`;
  const body = [
    `<h1>${escape(title)}</h1>`,
    `<p><a href="/${escape(ownerName)}/${escape(name)}">Back to the dataset</a>. Rows ${String(first + 1)} to ${String(first + PAGE_ROWS)} of each kind per table; <code>${escape(command)}</code> shows them all.</p>`,
    diffBody(pageOf(diff, pageNumber), { skipped: first, pageRows: PAGE_ROWS }),
    pageLinks(diff, pageNumber, base),
  ].join('\n');
  sendText(response, 200, page(title, body, '', viewer), HTML);
}

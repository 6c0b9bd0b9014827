import type { ServerResponse } from 'node:http';
import type { Package } from '@data/core';
import type { Hub } from '../context.js';
import { callerOf } from './callers.js';
import { HttpError } from '../http-error.js';
import { sendJson, type Request } from './request.js';

/** `q` is a JSON string in the protocol; a bare word is taken as it is. */
export function searchText(q: string | null): string {
  if (!q) return '';
  try {
    const parsed = JSON.parse(q) as unknown;
    return typeof parsed === 'string' ? parsed : q;
  } catch {
    return q;
  }
}

/** A whole number parameter: absent gives the default, anything but digits is a 400. */
function bounded(name: string, value: string | null, fallback: number, max: number): number {
  if (value === null) return fallback;
  if (!/^[0-9]{1,10}$/.test(value)) throw new HttpError(400, `"${name}" must be a whole number`);
  return Math.min(Number(value), max);
}

export async function search(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const params = request.url.searchParams;
  // The viewer finds its own datasets and its organisations' private ones too (findableBy);
  // a trusted publisher's token, which acts for the owner but reads only the one dataset it
  // publishes, finds what anyone finds.
  const caller = await callerOf(hub, request);
  const viewer = caller?.via === 'trusted' ? undefined : caller?.userid;
  // Ours: `owner` keeps one user's datasets (all of them for that user, signed in).
  const owner = params.get('owner');
  const ownerid = owner ? ((await hub.store.userByName(owner))?.userid ?? '-') : '';
  const { rows, total } = await hub.store.search(
    searchText(params.get('q')),
    viewer,
    bounded('size', params.get('size'), 20, 100),
    bounded('from', params.get('from'), 0, 1e9),
    ownerid,
  );
  const results = await Promise.all(
    rows.map(async (row) => {
      const revision = await hub.store.revision(
        row.ownerid,
        row.name,
        String(row.published_revision),
      );
      // A published revision's descriptor, validated when it was published.
      const datapackage: Package | Record<string, never> = revision?.descriptor
        ? (JSON.parse(revision.descriptor) as Package)
        : {};
      return {
        id: `${row.ownerid}/${row.name}`,
        name: row.name,
        title: row.title,
        datahub: {
          owner: row.username,
          ownerid: row.ownerid,
          findability: row.findability,
          stats: { revision: row.published_revision },
        },
        datapackage,
      };
    }),
  );
  sendJson(response, 200, { results, summary: { total, totalBytes: 0 } });
}

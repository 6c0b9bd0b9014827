/**
 * The hub's trusted publishers API (/api/publishers/…) and its trade of ID tokens
 * (/auth/trusted), kept in memory for one test; and GitHub Actions' ID token endpoint.
 */
import { http, HttpResponse } from 'msw';
import type { PublisherRecord } from '../../../packages/core/src/index.js';
import { HUB } from './hub.js';

/** What the stand-in hub holds: each dataset's publishers, and what each request carried. */
export interface PublisherHub {
  publishers: PublisherRecord[];
  /** The Auth-Token of each request to /api/publishers, in order. */
  seen: string[];
  /** The bodies /auth/trusted was sent. */
  trades: { token: string; dataset?: string }[];
}

export function publisherHub(): PublisherHub {
  return { publishers: [], seen: [], trades: [] };
}

const TRUSTED = 'https://token.actions.githubusercontent.com';

/** /api/publishers as the hub answers it, with its refusals (an issuer it does not trust). */
export function publishersApi(state: PublisherHub) {
  const path = `${HUB}/api/publishers/:owner/:dataset`;
  return [
    http.post(path, async ({ request, params }) => {
      state.seen.push(request.headers.get('auth-token') ?? '');
      const body = (await request.json()) as { issuer: string; claims: Record<string, string> };
      if (body.issuer !== TRUSTED)
        return HttpResponse.json(
          { error: `the issuer must be one this hub trusts: ${TRUSTED}` },
          { status: 400 },
        );
      // The same issuer and claims again: the publisher kept, 200 (a new one is 201).
      const same = state.publishers.find(
        (entry) =>
          entry.dataset === `${String(params.owner)}/${String(params.dataset)}` &&
          entry.issuer === body.issuer &&
          JSON.stringify(Object.entries(entry.claims).sort()) ===
            JSON.stringify(Object.entries(body.claims).sort()),
      );
      if (same) return HttpResponse.json(same, { status: 200 });
      const record: PublisherRecord = {
        id: `p${String(state.publishers.length + 1)}`,
        dataset: `${String(params.owner)}/${String(params.dataset)}`,
        issuer: body.issuer,
        claims: body.claims,
        created: '2026-11-26T21:00:00.000Z',
        created_by: 'ada',
      };
      state.publishers.push(record);
      return HttpResponse.json(record, { status: 201 });
    }),
    http.get(path, ({ request, params }) => {
      state.seen.push(request.headers.get('auth-token') ?? '');
      const dataset = `${String(params.owner)}/${String(params.dataset)}`;
      return HttpResponse.json(state.publishers.filter((entry) => entry.dataset === dataset));
    }),
    http.delete(`${path}/:id`, ({ request, params }) => {
      state.seen.push(request.headers.get('auth-token') ?? '');
      const at = state.publishers.findIndex((entry) => entry.id === params.id);
      const [removed] = at < 0 ? [] : state.publishers.splice(at, 1);
      return removed
        ? HttpResponse.json(removed)
        : HttpResponse.json(
            { error: `no trusted publisher "${String(params.id)}"` },
            { status: 404 },
          );
    }),
  ];
}

/**
 * /auth/trusted: `good` is the one ID token it takes, for ada/<dataset asked>; any other is
 * refused as another branch's would be.
 */
export function trustedTrade(state: PublisherHub, good: string) {
  return http.post(`${HUB}/auth/trusted`, async ({ request }) => {
    const body = (await request.json()) as { token: string; dataset?: string };
    state.trades.push(body);
    if (body.token !== good)
      return HttpResponse.json(
        {
          error:
            "no trusted publisher of cities matches this token's claims (repository=ada/cities, ref=refs/heads/dev\u001b[2J)",
          check: 'claims',
        },
        { status: 403 },
      );
    return HttpResponse.json({
      token: 'trusted-hub-token',
      dataset: body.dataset?.includes('/') ? body.dataset : `ada/${body.dataset ?? 'cities'}`,
      expires: '2026-11-26T21:15:00.000Z',
    });
  });
}

/** GitHub Actions' ID token endpoint: the job's token for the audience asked, to its bearer. */
export function actionsTokenEndpoint(
  url: string,
  requestToken: string,
  seen: { audience: string | null; authorization: string | null }[],
) {
  return http.get(url.split('?')[0] ?? url, ({ request }) => {
    const audience = new URL(request.url).searchParams.get('audience');
    const authorization = request.headers.get('authorization');
    seen.push({ audience, authorization });
    if (authorization !== `Bearer ${requestToken}`)
      return HttpResponse.json({ message: 'Bad credentials' }, { status: 401 });
    return HttpResponse.json({ count: 1, value: `id-token-for:${audience ?? ''}` });
  });
}

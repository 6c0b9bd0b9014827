/** The hub's named tokens API (/api/tokens), kept in memory as a hub keeps them, for one test. */
import { http, HttpResponse } from 'msw';
import type { TokenRecord } from '../../../packages/core/src/index.js';
import { HUB } from './hub.js';

/** What the stand-in hub holds: each token's record by name, and the tokens it made. */
export interface TokenHub {
  records: Map<string, TokenRecord>;
  made: string[];
  /** The Auth-Token of each request, in order. */
  seen: string[];
}

export function tokenHub(): TokenHub {
  return { records: new Map(), made: [], seen: [] };
}

/** /api/tokens as the hub answers it, with its refusals (a taken name, days past 365). */
export function tokensApi(state: TokenHub, maxDays = 365) {
  return [
    http.post(`${HUB}/api/tokens`, async ({ request }) => {
      state.seen.push(request.headers.get('auth-token') ?? '');
      const body = (await request.json()) as {
        name: string;
        scope: TokenRecord['scope'];
        datasets?: string[];
        expires_days?: number;
      };
      if (state.records.has(body.name))
        return HttpResponse.json(
          {
            error: `you already have a token named ${JSON.stringify(body.name)}: revoke it first, or choose another name`,
          },
          { status: 409 },
        );
      const days = body.expires_days ?? 30;
      if (days < 1 || days > maxDays)
        return HttpResponse.json(
          {
            error: `a token lives from 1 to ${String(maxDays)} days on this hub ("expires_days" was ${String(days)})`,
          },
          { status: 400 },
        );
      const token = `dt_${'x'.repeat(40)}${String(state.made.length).padStart(3, '0')}`;
      const record: TokenRecord = {
        name: body.name,
        scope: body.scope,
        datasets: body.datasets ?? [],
        created: '2026-11-26T21:00:00.000Z',
        last_used: null,
        expires: new Date(Date.parse('2026-11-26T21:00:00.000Z') + days * 86_400_000).toISOString(),
      };
      state.records.set(body.name, record);
      state.made.push(token);
      return HttpResponse.json({ token, record }, { status: 201 });
    }),
    http.get(`${HUB}/api/tokens`, ({ request }) => {
      state.seen.push(request.headers.get('auth-token') ?? '');
      return HttpResponse.json([...state.records.values()]);
    }),
    http.delete(`${HUB}/api/tokens/:name`, ({ request, params }) => {
      state.seen.push(request.headers.get('auth-token') ?? '');
      const name = String(params.name);
      if (!state.records.delete(name))
        return HttpResponse.json(
          { error: `you have no token named ${JSON.stringify(name)}` },
          { status: 404 },
        );
      return HttpResponse.json({ revoked: name });
    }),
  ];
}

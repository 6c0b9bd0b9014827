import { describe, expect, it } from 'vitest';
import { HubApi } from '../../packages/cli/src/client/api.js';
import { ServerError } from '../../packages/core/src/errors.js';
import type { HttpFetch } from '../../packages/core/src/http/http.js';

const API = 'https://hub.test/api';

/** A hub that answers every request with this JSON document. */
function answering(document: unknown): HttpFetch {
  return () =>
    Promise.resolve(
      new Response(JSON.stringify(document), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      }) as unknown as Awaited<ReturnType<HttpFetch>>,
    );
}

async function failure(call: Promise<unknown>): Promise<ServerError> {
  const error: unknown = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ServerError);
  return error as ServerError;
}

describe('what the client reads from a hub', () => {
  it('takes answers of the protocol’s shapes', async () => {
    const status = { id: 'u/d/1', state: 'SUCCEEDED', pipelines: {}, error_log: [] };
    await expect(new HubApi(API, answering(status)).status('u/d/1')).resolves.toEqual(status);
    const target = { upload_url: `${API}/up`, upload_query: { key: 'k' }, exists: true };
    await expect(
      new HubApi(API, answering({ filedata: { 'a.csv': target } })).rawstoreAuthorize('t', {}),
    ).resolves.toEqual({ 'a.csv': target });
  });

  it.each([
    [
      'a status in no state it knows',
      (api: HubApi) => api.status('u/d/1'),
      { id: 'u/d/1', state: 'DONE' },
      'publication status: answered a document that is not a publication status',
    ],
    [
      'a sign-in check without its answer',
      (api: HubApi) => api.check(),
      { profile: {} },
      'auth check: answered a document that is not a sign-in check',
    ],
    [
      'a search result without its owner',
      (api: HubApi) => api.search('x', { size: 1 }),
      { results: [{ id: 'a', name: 'a' }] },
      'search: answered a document that is not a search result',
    ],
    [
      'a revision without its number',
      (api: HubApi) => api.revisions('u', 'd'),
      { revisions: [{ state: 'SUCCEEDED' }] },
      'history: answered a document that is not a revision',
    ],
  ])(
    'gives a clear error for %s, not a crash further on',
    async (_what, call, document, message) => {
      const error = await failure(call(new HubApi(API, answering(document))));
      expect(error.message).toBe(message);
      expect(error.code).toBe('E_API');
      expect(error.kind).toBe('server');
    },
  );
});

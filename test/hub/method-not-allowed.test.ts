/**
 * A 405 names the methods its address answers, in Allow (RFC 9110 15.5.6): a client that
 * used the wrong one learns the right ones. Driven against a real hub on loopback.
 */
import { describe, expect, it } from 'vitest';
import { withHub } from './helpers.js';

describe('a method an address does not answer', () => {
  it('is a 405 whose Allow lists the methods of its route, from the route table', async () => {
    await withHub({}, async ({ url }) => {
      const cases: [string, string, string][] = [
        ['PUT', '/auth/trusted', 'POST'],
        ['PUT', '/api/tokens', 'GET, HEAD, POST'],
        ['DELETE', '/api/tokens', 'GET, HEAD, POST'],
        ['DELETE', '/api/orgs', 'POST'],
        ['POST', '/api/orgs/acme/members', 'GET, HEAD'],
        ['GET', '/api/orgs/acme/members/bob', 'DELETE, PUT'],
        ['PUT', '/api/publishers/ada/cities', 'GET, HEAD, POST'],
        ['GET', '/api/publishers/ada/cities/p1', 'DELETE'],
        ['POST', '/ada/cities', 'GET, HEAD'],
        // A read of an address that only takes a change was a 404.
        ['GET', '/api/orgs', 'POST'],
        ['GET', '/auth/trusted', 'POST'],
        ['GET', '/auth/token', 'POST'],
        ['GET', '/rawstore/authorize', 'POST'],
        ['GET', '/source/upload', 'POST'],
        ['GET', '/settings/tokens/revoke', 'POST'],
        ['GET', '/api/tokens/ci', 'DELETE'],
        ['GET', '/source/ada/cities', 'DELETE'],
        ['HEAD', '/api/orgs', 'POST'],
        // An organisation is deleted (DELETE), not read, at its address.
        ['GET', '/api/orgs/acme', 'DELETE'],
      ];
      for (const [method, path, allow] of cases) {
        const response = await fetch(`${url}${path}`, { method });
        await response.arrayBuffer();
        expect(response.status, `${method} ${path}`).toBe(405);
        expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
      }
      // Other refusals say nothing of methods.
      const missing = await fetch(`${url}/api/nothing-here`);
      await missing.arrayBuffer();
      expect(missing.status).toBe(404);
      expect(missing.headers.get('allow')).toBeNull();
      for (const path of [
        '/api/orgs/acme/nothing',
        '/auth/nothing',
        '/rawstore/objects/not-a-key',
      ]) {
        const none = await fetch(`${url}${path}`);
        await none.arrayBuffer();
        expect(none.status, path).toBe(404);
        expect(none.headers.get('allow'), path).toBeNull();
      }
    });
  });
});

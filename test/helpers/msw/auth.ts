/** The hub's auth API (/auth/…): who a token is, service tokens, user names, revocation. */
import { http, HttpResponse } from 'msw';
import { ADA, HUB, type TestProfile } from './hub.js';

/** /auth/check accepts the token: it belongs to `profile`. */
export function signedIn(profile: TestProfile = ADA) {
  return http.get(`${HUB}/auth/check`, () => HttpResponse.json({ authenticated: true, profile }));
}

/** /auth/check does not know the token (expired, revoked, or none). */
export function signedOut() {
  return http.get(`${HUB}/auth/check`, () =>
    HttpResponse.json({ authenticated: false, providers: {} }),
  );
}

/** Nothing answers at the hub's address: a network error. */
export function hubUnreachable() {
  return http.get(`${HUB}/auth/check`, () => HttpResponse.error());
}

/** /auth/authorize hands out a service token for whichever service is asked. */
export function serviceTokens(userid = ADA.id) {
  return http.get(`${HUB}/auth/authorize`, ({ request }) =>
    HttpResponse.json({
      userid,
      permissions: {},
      service: new URL(request.url).searchParams.get('service'),
      token: 'service-token',
    }),
  );
}

/** /auth/resolve knows each user name of `users` (name → id), and no other. */
export function userIds(users: Record<string, string> = { [ADA.username]: ADA.id }) {
  return http.get(`${HUB}/auth/resolve`, ({ request }) => {
    const userid = users[new URL(request.url).searchParams.get('username') ?? ''];
    return HttpResponse.json(userid === undefined ? {} : { userid });
  });
}

/** /auth/logout revokes the token, and records each one it was given in `revoked`. */
export function revocation(revoked: string[] = []) {
  return http.post(`${HUB}/auth/logout`, ({ request }) => {
    revoked.push(request.headers.get('auth-token') ?? '');
    return new HttpResponse(null, { status: 204 });
  });
}

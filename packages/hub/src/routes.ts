/**
 * The hub's route table as data, apart from the handlers (server.ts), so that what depends
 * on the routes (the reserved names, the protocol's documentation) can read it without
 * loading the whole hub.
 */

/** The routes without parameters, each as its method and path. */
export const FIXED_ROUTES = [
  'GET /auth/check',
  'GET /auth/authorize',
  'GET /auth/public-key',
  'GET /auth/resolve',
  'GET /auth/login',
  'GET /auth/login/local',
  'POST /auth/login/local',
  'POST /auth/continue',
  'POST /auth/token',
  'POST /auth/logout',
  'POST /auth/trusted',
  'GET /auth/logout',
  'GET /static/hub.css',
  'GET /static/hub.js',
  'GET /static/favicon.svg',
  'GET /favicon.ico',
  'POST /rawstore/authorize',
  'POST /rawstore/objects',
  'GET /rawstore/presign',
  'GET /rawstore/uploads',
  'PUT /rawstore/uploads',
  'POST /rawstore/uploads',
  'POST /source/upload',
  'GET /metastore/search',
  'GET /',
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'POST /api/tokens',
  'GET /api/tokens',
  'GET /settings/tokens',
  'POST /settings/tokens/revoke',
  'POST /api/orgs',
] as const;

export type FixedRoute = (typeof FIXED_ROUTES)[number];

/** The routes with parameters, each as its method and template: docs/protocol.md has them all. */
export const PATTERNS = [
  'DELETE /source/:ownerid/:dataset',
  'DELETE /api/tokens/:name',
  'DELETE /api/orgs/:org',
  'GET /api/orgs/:org/members',
  'PUT /api/orgs/:org/members/:user',
  'DELETE /api/orgs/:org/members/:user',
  'GET /source/:ownerid/:dataset/revisions',
  'GET /source/:ownerid/:dataset/:revision',
  'GET /auth/login/:provider',
  'GET /auth/callback/:provider',
  'GET /api/publishers/:owner/:dataset',
  'POST /api/publishers/:owner/:dataset',
  'DELETE /api/publishers/:owner/:dataset/:id',
  'GET /rawstore/objects/:key',
  'GET /:owner',
  'GET /:owner/:dataset',
  'GET /:owner/:dataset/diff/:range',
  'GET /:owner/:dataset/v/:revision',
  'GET /:owner/:dataset/v/:revision/datapackage.json',
  'GET /:owner/:dataset/v/:revision/validation_report.json',
  'GET /:owner/:dataset/v/:revision/r/:file',
  'GET /:owner/:dataset/v/:revision/rows',
  'GET /:owner/:dataset/v/:revision/:path',
  'GET /:owner/:dataset/datapackage.json',
  'GET /:owner/:dataset/validation_report.json',
  'GET /:owner/:dataset/r/:file',
  'GET /:owner/:dataset/rows',
  'GET /:owner/:dataset/:path',
] as const;

/**
 * Whether the answers at a path are the same whoever asks: the pages' fixed files and the
 * health checks, which read nothing private. Their answers vary on no credential, and a
 * credential sent to them is not looked at: a dead one is not refused there (a probe that
 * reuses the metrics token, a proxy that adds its own Authorization).
 */
export function sameForAll(pathname: string): boolean {
  return /^\/(static\/|favicon\.ico$|healthz\/?$|readyz\/?$)/.test(pathname);
}

/** Every route the hub answers, as `METHOD /template` (HEAD is answered wherever GET is). */
export const ROUTES: readonly string[] = [...FIXED_ROUTES, ...PATTERNS];

/** The first segment of a route's path when it is literal: `auth` of `/auth/check`, none of `/:owner`. */
export function firstLiteralSegment(route: string): string | undefined {
  const first = route.split(' ')[1]?.split('/')[1];
  return first && !first.startsWith(':') ? first : undefined;
}

/**
 * The methods the route table answers at a path (its percent-decoded segments), but `refused`:
 * the Allow header of a 405 (RFC 9110 15.5.6). A path under none of the literal first segments
 * is a read (`/:owner/…`, whose last `:path` may hold slashes): GET and HEAD.
 */
export function allowedMethods(segments: readonly string[], refused: string): string[] {
  const owned =
    segments[0] !== undefined && ROUTES.some((route) => firstLiteralSegment(route) === segments[0]);
  const methods = new Set<string>(owned ? [] : ['GET']);
  for (const route of ROUTES) {
    if (owned !== (firstLiteralSegment(route) !== undefined)) continue;
    const [method = '', template = ''] = route.split(' ');
    const parts = template.split('/').filter((part) => part !== '');
    const deep = parts.at(-1) === ':path';
    if (deep ? segments.length < parts.length : segments.length !== parts.length) continue;
    if (parts.every((part, i) => part.startsWith(':') || part === segments[i])) methods.add(method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  methods.delete(refused === 'HEAD' ? 'GET' : refused);
  return [...methods].sort();
}

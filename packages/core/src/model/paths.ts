import type { StandardVersion } from './types.js';

/** Whether a path is a URL that is read over HTTP(S), not a file beside the descriptor. */
export function isRemote(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/**
 * THE path rule: why a resource's path may not be opened (absolute, outside the package,
 * hidden, another scheme…), or undefined when it is a safe relative path or URL.
 */
export function unsafeReason(path: string, version: StandardVersion): string | undefined {
  if (isRemote(path)) return undefined;
  if (/^(ftp|ftps):\/\//i.test(path)) return version === 2 ? undefined : 'unsupported URL scheme';
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(path)) return 'absolute or non-http URL';
  if (path.startsWith('/')) return 'absolute path';
  if (path.includes('\\')) return 'backslash in path';
  if (path.startsWith('~')) return 'home directory path';
  if (/[%$]/.test(path) && /(%\w+%|\$\w+|\$\{)/.test(path)) return 'environment variable in path';
  const segments = path.split('/');
  if (segments.includes('..')) return 'parent directory in path';
  if (segments.some((segment) => segment.startsWith('.') && segment !== '.')) {
    if (version === 2 || segments[0]?.startsWith('.')) return 'hidden folder in path';
  }
  if (segments[0] === '.') return 'path starts with "./"';
  if (path === '') return 'empty path';
  return undefined;
}

/** A resource's paths as a list (one path, or the parts of a multipart one); text only. */
export function resourcePaths(resource: { readonly path?: unknown }): string[] {
  const { path } = resource;
  const list: unknown[] = Array.isArray(path) ? path : [path];
  return list.filter((part): part is string => typeof part === 'string');
}

/** A resource's paths that are files beside its descriptor, not URLs. */
export function localPaths(resource: { readonly path?: unknown }): string[] {
  return resourcePaths(resource).filter((path) => !isRemote(path));
}

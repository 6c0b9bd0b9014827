import type { StandardVersion } from './types.js';

export function isRemote(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/** Why a path may not be opened, or undefined when it is a safe relative path or URL. */
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

export function detectVersion(descriptor: Record<string, unknown>): StandardVersion {
  const schema = descriptor.$schema;
  if (typeof schema === 'string') {
    return /\/profiles\/1(\.\d+)*\//.test(schema) ? 1 : 2;
  }
  return 1;
}

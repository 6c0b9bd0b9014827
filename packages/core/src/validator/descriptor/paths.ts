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
  return declaredVersion(descriptor) ?? 1;
}

/**
 * The version a descriptor declares by its `$schema`: a v1 profile is v1, the v2 profiles and
 * any custom profile v2; none declared is undefined.
 */
export function declaredVersion(descriptor: unknown): StandardVersion | undefined {
  const schema = (descriptor as { $schema?: unknown } | null)?.$schema;
  if (typeof schema !== 'string') return undefined;
  return /\/profiles\/1(\.\d+)*\//.test(schema) ? 1 : 2;
}

/**
 * The rules a descriptor inside a package follows, as the reference decides them: a package
 * that declares its version sets the rules of everything inside it; in one that declares
 * none, a descriptor that declares its own follows it, and one that declares none the
 * package's.
 */
export function rulesVersion(
  packageDeclared: StandardVersion | undefined,
  packageVersion: StandardVersion,
  inner: unknown,
): StandardVersion {
  return packageDeclared ?? declaredVersion(inner) ?? packageVersion;
}

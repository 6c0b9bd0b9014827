import type { StandardVersion } from './types.js';

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

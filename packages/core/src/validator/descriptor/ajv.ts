import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { didYouMean } from '../../text/suggest.js';
import { exportKey, PROFILE_KEYS } from './profile-names.js';
import type { StandardVersion } from './types.js';

export type ProfileName = 'package' | 'resource' | 'schema' | 'dialect';

/**
 * The validator of every profile, as the build compiled them (scripts/compile-profiles.ts):
 * compiling them at each start took a third of validating a small package. Running from
 * the sources (the tests), they are compiled when first needed instead.
 */
const PRECOMPILED = 'profiles.compiled.cjs';

const compiled = new Map<string, ValidateFunction>();

/**
 * The precompiled profiles, when the build bundled them in (scripts/bundle.ts): then they
 * are in the bundle's code cache with the rest.
 */
declare const DATA_PROFILES: Record<string, ValidateFunction> | undefined;

function precompiled(): Record<string, ValidateFunction> | undefined {
  if (typeof DATA_PROFILES === 'object') return DATA_PROFILES;
  // Bundled into the single executable (no URL, or a data: URL for its worker), there is no
  // module file beside this one to load: the profiles are compiled when first needed.
  const here = (import.meta as { url?: string }).url;
  if (!here?.startsWith('file:')) return undefined;
  try {
    return createRequire(here)(`./${PRECOMPILED}`) as Record<string, ValidateFunction>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    return undefined;
  }
}

function loadPrecompiled(): void {
  for (const [key, validate] of Object.entries(precompiled() ?? {}))
    compiled.set(exportKey(key), validate);
}

loadPrecompiled();

/**
 * Compiles the profiles the build did not (from the sources, in the single executable):
 * Ajv itself, some sixty modules, is loaded only then. Called before `checkProfile`.
 */
export async function prepareProfiles(): Promise<void> {
  if (PROFILE_KEYS.every((key) => compiled.has(key))) return;
  const { compileProfile } = await import('./profile-compiler.js');
  for (const key of PROFILE_KEYS) if (!compiled.has(key)) compiled.set(key, compileProfile(key));
}

function validator(name: ProfileName, version: StandardVersion): ValidateFunction {
  const key = `${name}/${String(version)}`;
  const validate = compiled.get(key);
  if (!validate) throw new Error(`profile ${key} is not prepared: call prepareProfiles first`);
  return validate;
}

/** Validates a descriptor against a profile; returns one note per violation. */
export function checkProfile(
  name: ProfileName,
  version: StandardVersion,
  value: unknown,
): string[] {
  return checkProfileAt(name, version, value).map(({ note }) => note);
}

/** `checkProfile`, each note with the path of the property it is about ("fields/0/type"). */
export function checkProfileAt(
  name: ProfileName,
  version: StandardVersion,
  value: unknown,
): { note: string; path: string }[] {
  const validate = validator(name, version);
  if (validate(value)) return [];
  return (validate.errors ?? []).filter(isUseful).map((error) => ({
    note: describe(error, value),
    path: error.instancePath.replace(/^\//, ''),
  }));
}

/** Errors inside an anyOf branch are noise: the anyOf error itself says it better. */
function isUseful(error: ErrorObject): boolean {
  return !/\/anyOf\/\d+\//.test(error.schemaPath);
}

function describe(error: ErrorObject, root: unknown): string {
  const where = error.instancePath.replace(/^\//, '');
  const at = where ? ` at property "${where}"` : '';
  const value = pointer(root, error.instancePath);
  const shown = JSON.stringify(value) ?? 'undefined';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      // A required property missing next to a near spelling of it is most likely that typo.
      const missing = String(params.missingProperty);
      const present = value !== null && typeof value === 'object' ? Object.keys(value) : [];
      const typo = present.find((key) => didYouMean(key, [missing]) === missing);
      const hint = typo ? ` ("${typo}" is there: did you mean "${missing}"?)` : '';
      return `"${missing}" is a required property${at}${hint}`;
    }
    case 'type':
      return `${shown} is not of type "${String(params.type)}"${at}`;
    case 'pattern':
      return `${shown} does not match "${String(params.pattern)}"${at}`;
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const guess = typeof value === 'string' ? didYouMean(value, allowed) : undefined;
      return guess
        ? `${shown} is not a valid value${at}: did you mean "${guess}"?`
        : `${shown} is not one of ${JSON.stringify(params.allowedValues)}${at}`;
    }
    case 'format':
      return `${shown} is not a "${String(params.format)}"${at}`;
    case 'minItems':
      return `${shown} is too short${at}`;
    case 'anyOf':
      if (/licenses\/\d+$/.test(where)) return `a license must have a "name" or a "path"${at}`;
      return `${shown} is not valid under any of the given schemas${at}`;
    default:
      return `${shown} ${error.message ?? 'is not valid'}${at}`;
  }
}

function pointer(root: unknown, path: string): unknown {
  let current = root;
  for (const raw of path.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

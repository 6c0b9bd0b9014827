/**
 * Compiles the descriptor profiles with Ajv: at build time into standalone code
 * (scripts/compile-profiles.ts), or at run time where that code is not beside the
 * validator (the sources, the single executable).
 */
import { _, Ajv, type ValidateFunction } from 'ajv';
import { FORMATS } from './formats.js';
import { dialectProfile, packageProfile, resourceProfile, tableSchemaProfile } from './profiles.js';
import type { PROFILE_KEYS } from './profile-names.js';

/** Every profile a descriptor is checked against, by `<name>/<version>`. */
export const PROFILES: Record<(typeof PROFILE_KEYS)[number], () => object> = {
  'package/1': () => packageProfile(1),
  'package/2': () => packageProfile(2),
  'resource/1': () => resourceProfile(1),
  'resource/2': () => resourceProfile(2),
  'schema/1': tableSchemaProfile,
  'schema/2': tableSchemaProfile,
  'dialect/1': dialectProfile,
  'dialect/2': dialectProfile,
};

/** The Ajv the profiles are checked with; `standalone` for the build to write their code. */
export function profileAjv(standalone = false): Ajv {
  return new Ajv({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    formats: FORMATS,
    ...(standalone ? { code: { source: true, formats: _`require("./formats.js").FORMATS` } } : {}),
  });
}

let ajv: Ajv | undefined;

export function compileProfile(key: (typeof PROFILE_KEYS)[number]): ValidateFunction {
  ajv ??= profileAjv();
  return ajv.compile(PROFILES[key]());
}

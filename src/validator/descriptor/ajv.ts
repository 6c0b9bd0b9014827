import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { didYouMean } from '../../text/suggest.js';
import { dialectProfile, packageProfile, resourceProfile, tableSchemaProfile } from './profiles.js';
import type { StandardVersion } from './types.js';

export type ProfileName = 'package' | 'resource' | 'schema' | 'dialect';

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance(): Ajv {
  if (ajv) return ajv;
  ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat('uri', /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/);
  ajv.addFormat('date-time', {
    validate: (value: string) =>
      /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) &&
      !Number.isNaN(Date.parse(value)),
  });
  return ajv;
}

function validator(name: ProfileName, version: StandardVersion): ValidateFunction {
  const key = `${name}/${String(version)}`;
  let validate = compiled.get(key);
  if (!validate) {
    const schema =
      name === 'package'
        ? packageProfile(version)
        : name === 'resource'
          ? resourceProfile(version)
          : name === 'schema'
            ? tableSchemaProfile()
            : dialectProfile();
    validate = instance().compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** Validates a descriptor against a profile; returns one note per violation. */
export function checkProfile(
  name: ProfileName,
  version: StandardVersion,
  value: unknown,
): string[] {
  const validate = validator(name, version);
  if (validate(value)) return [];
  return (validate.errors ?? []).filter(isUseful).map((error) => describe(error, value));
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

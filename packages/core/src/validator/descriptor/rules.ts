import { reportError } from '../report/errors.js';
import type { ReportError } from '../report/types.js';
import { checkProfile, checkProfileAt } from './ajv.js';
import { isRemote, unsafeReason } from '../../model/paths.js';
import { declaredVersion } from './paths.js';
import { fieldRules } from './field-rules.js';
import type {
  DialectDescriptor,
  PackageDescriptor,
  ResourceDescriptor,
  SchemaDescriptor,
  StandardVersion,
} from './types.js';

/** Every descriptor-level problem of a package whose schemas and dialects are resolved. */
export function checkPackage(descriptor: unknown, version: StandardVersion): ReportError[] {
  if (descriptor === null || typeof descriptor !== 'object' || Array.isArray(descriptor)) {
    return [reportError('package-error', 'the descriptor must be a JSON object')];
  }
  const errors = checkProfile('package', version, descriptor).map((note) =>
    reportError('package-error', note),
  );
  const pkg = descriptor as PackageDescriptor;
  if (!Array.isArray(pkg.resources)) return errors;
  const declared = declaredVersion(pkg);
  pkg.resources.forEach((resource, index) => {
    if (resource !== null && typeof resource === 'object') {
      errors.push(...checkResource(resource, version, `resources/${String(index)}`, declared));
    }
  });
  errors.push(...packageRules(pkg));
  return errors;
}

function packageRules(pkg: PackageDescriptor): ReportError[] {
  const errors: ReportError[] = [];
  const names = pkg.resources.map((resource) => resource.name);
  const duplicates = names.filter((name, index) => names.indexOf(name) !== index);
  if (duplicates.length > 0) {
    const list = [...new Set(duplicates)].join(', ');
    errors.push(reportError('package-error', `resource names are not unique: ${list}`));
  }
  if (pkg.profile === 'tabular-data-package') {
    const loose = pkg.resources.filter((resource) => resource.profile !== 'tabular-data-resource');
    if (loose.length > 0) {
      errors.push(
        reportError(
          'package-error',
          'profile "tabular-data-package" requires all the resources to be "tabular-data-resource"',
        ),
      );
    }
  }
  return errors;
}

export function checkResource(
  resource: ResourceDescriptor,
  version: StandardVersion,
  where = 'resource',
  packageDeclared?: StandardVersion,
): ReportError[] {
  const notes = checkProfile('resource', version, resource);
  notes.push(...dataSourceRules(resource, version));
  if (resource.profile === 'tabular-data-resource' && resource.schema === undefined) {
    notes.push('profile "tabular-data-resource" requires "schema" to be present');
  }
  const label = typeof resource.name === 'string' ? `"${resource.name}"` : where;
  const errors = notes.map((note) => reportError('resource-error', `${note} in resource ${label}`));
  if (isObject(resource.schema)) {
    // As the reference decides: a version no descriptor declares accepts both forms.
    const declared = packageDeclared ?? declaredVersion(resource.schema);
    errors.push(
      ...checkSchema(resource.schema as SchemaDescriptor, declared ?? version, !declared),
    );
  }
  if (isObject(resource.dialect)) errors.push(...checkDialect(resource.dialect, version));
  return errors;
}

function dataSourceRules(resource: ResourceDescriptor, version: StandardVersion): string[] {
  const hasPath = resource.path !== undefined;
  const hasData = resource.data !== undefined;
  if (hasPath && hasData) return ['properties "path" and "data" are mutually exclusive'];
  if (!hasPath && !hasData) return ['one of the properties "path" or "data" is required'];
  if (hasData) {
    const data = resource.data;
    if (typeof data === 'string' && !resource.format && !resource.mediatype) {
      return ['inline "data" given as a string needs "format" or "mediatype"'];
    }
    return [];
  }
  const paths = Array.isArray(resource.path) ? resource.path : [resource.path];
  const notes: string[] = [];
  for (const path of paths) {
    if (typeof path !== 'string') continue;
    const reason = unsafeReason(path, version);
    if (reason) notes.push(`path "${path}" is not safe (${reason})`);
  }
  const strings = paths.filter((path): path is string => typeof path === 'string');
  if (strings.some(isRemote) && !strings.every(isRemote)) {
    notes.push('a multipart path cannot mix URLs and local paths');
  }
  for (const reference of [resource.schema, resource.dialect]) {
    if (typeof reference === 'string') {
      const reason = unsafeReason(reference, version);
      if (reason) notes.push(`path "${reference}" is not safe (${reason})`);
    }
  }
  return notes;
}

export function checkSchema(
  schema: SchemaDescriptor,
  version: StandardVersion,
  undeclared = false,
): ReportError[] {
  // A problem with one field's properties is that field's, as the reference reports it.
  const errors = checkProfileAt('schema', version, schema).map(({ note, path }) =>
    reportError(/^fields\/\d+(\/|$)/.test(path) ? 'field-error' : 'schema-error', note),
  );
  const wellFormed =
    Array.isArray(schema.fields) &&
    schema.fields.every((field) => isObject(field) && typeof field.name === 'string');
  if (!wellFormed) return errors;
  const names = schema.fields.map((field) => field.name);
  if (version === 1 && new Set(names).size !== names.length) {
    errors.push(reportError('schema-error', 'names of the fields are not unique'));
  }
  for (const field of schema.fields) {
    errors.push(...fieldRules(field, version).map((note) => reportError('field-error', note)));
  }
  errors.push(...keyRules(schema, new Set(names)).map((note) => reportError('schema-error', note)));
  errors.push(
    ...missingValueRules(schema.missingValues, 'the schema', version, undeclared).map((note) =>
      reportError('schema-error', note),
    ),
  );
  // A field's own missing values are that field's problem.
  for (const field of schema.fields)
    errors.push(
      ...missingValueRules(field.missingValues, `field "${field.name}"`, version, undeclared).map(
        (note) => reportError('field-error', note),
      ),
    );
  return errors;
}

/**
 * `missingValues` at one level: a declared v1 has strings only (the `{value, label}` form is
 * v2; where no descriptor declares a version, both are taken, as the reference takes them);
 * a list with values in that form has each value once, and each label. A list of strings
 * only may repeat one: the standard does not forbid it.
 */
function missingValueRules(
  values: unknown,
  where: string,
  version: StandardVersion,
  undeclared: boolean,
): string[] {
  if (!Array.isArray(values)) return [];
  const objects = values.filter((item): item is { value?: unknown; label?: unknown } =>
    isObject(item),
  );
  if (objects.length === 0) return [];
  if (version === 1 && !undeclared)
    return [`missing values of ${where} must be strings in v1 (the {"value", "label"} form is v2)`];
  const notes: string[] = [];
  const all = values.map((item: unknown) => (isObject(item) ? item.value : item));
  if (new Set(all).size !== all.length) notes.push(`missing values of ${where} are not unique`);
  const labels = objects.flatMap((item) => (typeof item.label === 'string' ? [item.label] : []));
  if (new Set(labels).size !== labels.length)
    notes.push(`missing value labels of ${where} are not unique`);
  return notes;
}

function keyRules(schema: SchemaDescriptor, names: Set<string>): string[] {
  const notes: string[] = [];
  const unknown = (keys: string[], what: string): void => {
    for (const key of keys) {
      if (!names.has(key)) notes.push(`${what} "${key}" does not match any field`);
    }
  };
  unknown(asList(schema.primaryKey), 'primary key field');
  for (const keys of schema.uniqueKeys ?? []) unknown(keys, 'unique key field');
  for (const foreignKey of schema.foreignKeys ?? []) {
    const local = asList(foreignKey.fields);
    unknown(local, 'foreign key field');
    if (local.length !== asList(foreignKey.reference.fields).length) {
      notes.push(`foreign key fields "${local.join(', ')}" and its reference differ in number`);
    }
  }
  return notes;
}

export function checkDialect(dialect: DialectDescriptor, version: StandardVersion): ReportError[] {
  const notes = checkProfile('dialect', version, dialect);
  if (typeof dialect.delimiter === 'string' && dialect.delimiter.length !== 1) {
    notes.push(`delimiter "${dialect.delimiter}" is not supported: it must be one character`);
  }
  if (dialect.escapeChar !== undefined && dialect.escapeChar === dialect.quoteChar) {
    notes.push('"quoteChar" and "escapeChar" must differ');
  }
  return notes.map((note) => reportError('dialect-error', note));
}

export function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

import { didYouMean } from '../../text/suggest.js';

/** The properties the standards define, at each level of a descriptor (v1 and v2). */
const PACKAGE = [
  '$schema',
  'profile',
  'name',
  'id',
  'licenses',
  'title',
  'description',
  'homepage',
  'version',
  'sources',
  'contributors',
  'keywords',
  'image',
  'created',
  'resources',
];
const RESOURCE = [
  '$schema',
  'profile',
  'name',
  'path',
  'data',
  'type',
  'title',
  'description',
  'homepage',
  'format',
  'mediatype',
  'encoding',
  'bytes',
  'hash',
  'sources',
  'licenses',
  'schema',
  'dialect',
];
const SCHEMA = [
  '$schema',
  'fields',
  'fieldsMatch',
  'primaryKey',
  'uniqueKeys',
  'foreignKeys',
  'missingValues',
];
const FIELD = [
  'name',
  'title',
  'type',
  'format',
  'description',
  'example',
  'constraints',
  'rdfType',
  'missingValues',
  'trueValues',
  'falseValues',
  'bareNumber',
  'groupChar',
  'decimalChar',
  'categories',
  'categoriesOrdered',
  'withTimezone',
  'itemType',
  'itemFormat',
  'jsonSchema',
];
const DIALECT = [
  '$schema',
  'header',
  'headerRows',
  'headerJoin',
  'commentRows',
  'commentChar',
  'delimiter',
  'lineTerminator',
  'quoteChar',
  'doubleQuote',
  'escapeChar',
  'nullSequence',
  'skipInitialSpace',
  'property',
  'itemType',
  'itemKeys',
  'sheetNumber',
  'sheetName',
  'table',
  'csvddfVersion',
  'caseSensitiveHeader',
];

/**
 * Properties in common use that are not the standards' own, and not typos of them however
 * near one they are: those DataHub's own datasets and its old client write (`related` is not
 * a misspelt `created`). `--strict` still reports them, as every unknown property.
 */
const IN_COMMON_USE = new Set([
  'related',
  'views',
  'collection',
  'datahub',
  'has_premium',
  'readme',
  'author',
  'maintainer',
  'maintainers',
  'publisher',
  'repository',
  'url',
  'alias',
  'spec',
  'updated',
  'dpp:streamedFrom',
]);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Properties near a standard one but not it, at one level: the standards allow them, so a
 * warning. With `all`, every property that is not a standard one, as `--strict` wants.
 */
function near(
  object: Record<string, unknown>,
  known: string[],
  where: string,
  all: boolean,
): string[] {
  return Object.keys(object).flatMap((key) => {
    if (known.includes(key)) return [];
    const guess = IN_COMMON_USE.has(key) ? undefined : didYouMean(key, known);
    if (guess && !(guess in object))
      return [`${where}: property "${key}" is not a standard one: did you mean "${guess}"?`];
    return all ? [`${where}: property "${key}" is not a standard one`] : [];
  });
}

/**
 * Warnings for likely typos of standard properties, throughout a package descriptor; with
 * `all`, every property that is not a standard one.
 */
export function typoWarnings(descriptor: unknown, all = false): string[] {
  if (!isObject(descriptor)) return [];
  const warnings = near(descriptor, PACKAGE, 'the package', all);
  const resources = Array.isArray(descriptor.resources) ? (descriptor.resources as unknown[]) : [];
  for (const [index, resource] of resources.entries()) {
    if (!isObject(resource)) continue;
    const where = `resource "${typeof resource.name === 'string' ? resource.name : String(index)}"`;
    warnings.push(...near(resource, RESOURCE, where, all));
    if (isObject(resource.dialect))
      warnings.push(...near(resource.dialect, DIALECT, `${where} dialect`, all));
    if (!isObject(resource.schema)) continue;
    warnings.push(...near(resource.schema, SCHEMA, `${where} schema`, all));
    const fields = Array.isArray(resource.schema.fields)
      ? (resource.schema.fields as unknown[])
      : [];
    for (const field of fields)
      if (isObject(field))
        warnings.push(
          ...near(
            field,
            FIELD,
            `${where} field "${typeof field.name === 'string' ? field.name : '?'}"`,
            all,
          ),
        );
  }
  return warnings;
}

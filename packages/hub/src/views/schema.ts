import type { TableSchema } from './dataset.js';

type Field = Record<string, unknown>;

function constraintsOf(field: Field): string {
  const constraints = field.constraints;
  if (typeof constraints !== 'object' || constraints === null) return '';
  return Object.entries(constraints as Record<string, unknown>)
    .map(([name, value]) =>
      value === true
        ? name
        : `${name} ${typeof value === 'string' ? value : JSON.stringify(value)}`,
    )
    .join('; ');
}

const names = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter(
    (name): name is string => typeof name === 'string',
  );

/** What the page shows of a Table Schema: fields, types, formats, constraints and keys. */
export function schemaRows(schema: unknown): TableSchema | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { fields, primaryKey, foreignKeys } = schema as Field;
  if (!Array.isArray(fields)) return undefined;
  return {
    fields: (fields as Field[]).map((field) => ({
      name: String(field.name),
      type: typeof field.type === 'string' ? field.type : 'string',
      format:
        typeof field.format === 'string' && field.format !== 'default' ? field.format : undefined,
      description: typeof field.description === 'string' ? field.description : undefined,
      constraints: constraintsOf(field),
    })),
    primaryKey: names(primaryKey),
    foreignKeys: (Array.isArray(foreignKeys) ? (foreignKeys as Field[]) : []).map((key) => {
      const reference = (key.reference ?? {}) as Field;
      return {
        fields: names(key.fields),
        resource: typeof reference.resource === 'string' ? reference.resource : '',
        reference: names(reference.fields),
      };
    }),
  };
}

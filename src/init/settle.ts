import type { ResourceDescriptor, SchemaDescriptor } from '../validator/descriptor/types.js';
import type { Report } from '../validator/index.js';
import type { Draft } from './draft.js';

/** Looser types for a field whose inferred type a later row contradicts. */
const LOOSER: Record<string, string> = {
  integer: 'number',
  number: 'string',
  boolean: 'string',
  date: 'string',
  datetime: 'string',
  time: 'string',
  any: 'string',
};

/**
 * The draft loosened where the whole data contradicts what the first rows suggested: a
 * type error widens the field's type, a key error drops the primary key. Undefined when the
 * report has nothing a draft can mend.
 */
export function loosen(draft: Draft, report: Report): Draft | undefined {
  let changed = false;
  const resources = draft.resources.map((resource): ResourceDescriptor => {
    const task = report.tasks.find((candidate) => candidate.name === resource.name);
    const schema = resource.schema as SchemaDescriptor | undefined;
    if (!task || !schema) return resource;
    const widen = new Set(
      task.errors.filter((error) => error.type === 'type-error').map((error) => error.fieldName),
    );
    const dropKey = task.errors.some((error) => error.type === 'primary-key');
    if (widen.size === 0 && !dropKey) return resource;
    changed = true;
    const fields = schema.fields.map((field) =>
      widen.has(field.name)
        ? { ...field, type: LOOSER[field.type ?? 'string'] ?? 'string' }
        : field,
    );
    const { primaryKey: _dropped, ...rest } = schema;
    return { ...resource, schema: dropKey ? { ...rest, fields } : { ...schema, fields } };
  });
  return changed ? { ...draft, resources } : undefined;
}

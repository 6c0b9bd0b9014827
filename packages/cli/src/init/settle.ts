import type { FieldDescriptor, ResourceDescriptor, SchemaDescriptor } from '@data/core';
import type { Report, ValidateEvent } from '@data/core';
import type { Fetch } from '@data/core';
import { casterFor, INVALID } from '@data/core';
import type { ReportError } from '@data/core';
import type { Draft } from './draft.js';

/** The types a field is widened to, narrowest first: the first that takes every refused cell. */
const WIDER = ['integer', 'number', 'string'];

function widened(field: FieldDescriptor, cells: string[]): FieldDescriptor {
  const from = WIDER.indexOf(field.type ?? 'string');
  // A date, boolean… that a cell contradicts is text: no number takes its other cells.
  if (from < 0) return { name: field.name, type: 'string' };
  for (const type of WIDER.slice(from + 1)) {
    const cast = casterFor({ name: field.name, type }, 2);
    if (cells.every((cell) => cast(cell) !== INVALID))
      return {
        name: field.name,
        type,
        ...(field.description ? { description: field.description } : {}),
      };
  }
  return { name: field.name, type: 'string' };
}

/** Whether an error says a primary key does not hold: a repeated or missing key. */
function breaksKey(error: ReportError, key: readonly string[]): boolean {
  if (error.type === 'primary-key') return true;
  return error.type === 'constraint-error' && key.includes(error.fieldName ?? '');
}

/**
 * The draft loosened where the whole data contradicts what the first rows suggested: a
 * type error widens the field's type to the narrowest that takes the refused cells (its
 * format, decimal and group characters dropped), a broken key drops the primary key.
 * Undefined when the report has nothing a draft can mend.
 */
export function loosen(draft: Draft, report: Report): Draft | undefined {
  let changed = false;
  const resources = draft.resources.map((resource): ResourceDescriptor => {
    const task = report.tasks.find((candidate) => candidate.name === resource.name);
    const schema = resource.schema as SchemaDescriptor | undefined;
    if (!task || !schema) return resource;
    const refused = new Map<string, string[]>();
    for (const error of task.errors)
      if (error.type === 'type-error' && error.fieldName !== undefined)
        refused.set(error.fieldName, [...(refused.get(error.fieldName) ?? []), error.cell ?? '']);
    const key = Array.isArray(schema.primaryKey) ? schema.primaryKey : [];
    const dropKey = key.length > 0 && task.errors.some((error) => breaksKey(error, key));
    if (refused.size === 0 && !dropKey) return resource;
    changed = true;
    const fields = schema.fields.map((field) => {
      const cells = refused.get(field.name);
      return cells ? widened(field, cells) : field;
    });
    const { primaryKey: _dropped, ...rest } = schema;
    return { ...resource, schema: dropKey ? { ...rest, fields } : { ...schema, fields } };
  });
  return changed ? { ...draft, resources } : undefined;
}

/** Rounds of validation at most: each widens what the last found (integer, number, string). */
const ROUNDS = 6;

export interface SettleOptions {
  fetch: Fetch;
  signal?: AbortSignal | undefined;
  onProgress?: ((event: ValidateEvent) => void) | undefined;
}

/**
 * Validates the whole data against the draft, every row of every table streamed, and
 * loosens it until it validates or nothing more can be mended; the last report says what
 * is left.
 */
export async function settle(
  first: Draft,
  dir: string,
  options: SettleOptions,
): Promise<{ draft: Draft; report: Report }> {
  const { validateDescriptor } = await import('@data/core');
  return settleWith(
    first,
    (draft) =>
      validateDescriptor(structuredClone(draft), dir, {
        fetch: options.fetch,
        limitErrors: 100,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      }),
    options.signal,
  );
}

/** The loosening loop with the caller's validation: init's in this thread, publish's its own. */
export async function settleWith(
  first: Draft,
  validateDraft: (draft: Draft) => Promise<Report>,
  signal?: AbortSignal,
): Promise<{ draft: Draft; report: Report }> {
  let draft = first;
  for (let round = 1; ; round++) {
    const report = await validateDraft(draft);
    signal?.throwIfAborted();
    if (report.valid || round === ROUNDS) return { draft, report };
    const looser = loosen(draft, report);
    if (!looser) return { draft, report };
    draft = looser;
  }
}

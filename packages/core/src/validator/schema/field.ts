import type {
  FieldDescriptor,
  MissingValue,
  SchemaDescriptor,
  StandardVersion,
} from '../descriptor/types.js';
import { fieldType, normalizeFormat } from '../descriptor/field-rules.js';
import { compileConstraints, type ConstraintCheck } from './constraints.js';
import {
  casterFor,
  castsToText,
  spanCasterFor,
  spanCheckFor,
  type Caster,
  type SpanCaster,
  type SpanCheck,
} from './types/index.js';

export interface CompiledField {
  readonly name: string;
  readonly typeNote: string;
  readonly missing: ReadonlySet<string>;
  /** Longer cells cannot be missing values: this spares hashing them. */
  readonly missingMaxLength: number;
  readonly cast: Caster;
  /** Casts a cell where it lies in the text, when the field's type has such a caster. */
  readonly castSpan: SpanCaster | undefined;
  /** Tells whether a cell where it lies casts, making no value: for a value nothing reads. */
  readonly checkSpan: SpanCheck | undefined;
  /** True when a cell's value is its own text: no cast can fail. */
  readonly castsToText: boolean;
  readonly checks: readonly ConstraintCheck[];
  readonly required: boolean;
  readonly unique: boolean;
}

function missingSet(values: MissingValue[] | undefined): Set<string> | undefined {
  if (!values) return undefined;
  return new Set(values.map((item) => (typeof item === 'string' ? item : item.value)));
}

export function compileField(
  field: FieldDescriptor,
  schema: SchemaDescriptor,
  version: StandardVersion,
): CompiledField {
  const cast = casterFor(field, version);
  const constraints = field.constraints ?? {};
  const missing =
    missingSet(field.missingValues) ?? missingSet(schema.missingValues) ?? new Set(['']);
  return {
    name: field.name,
    typeNote: `type is "${fieldType(field, version)}/${normalizeFormat(field.format)}"`,
    missing,
    missingMaxLength: Math.max(-1, ...[...missing].map((value) => value.length)),
    cast,
    castSpan: spanCasterFor(field, version),
    checkSpan: spanCheckFor(field, version),
    castsToText: castsToText(field, version),
    checks: compileConstraints(constraints, cast),
    required: constraints.required === true,
    unique: constraints.unique === true,
  };
}

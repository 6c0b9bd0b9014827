/**
 * The typed model of a Data Package (v1 and v2), as core, the CLI and the hub read it: one
 * definition of a package, a resource, a schema, a field and a dialect. Only the properties
 * some code reads are named; every other property is kept as it is (`unknown`). A descriptor
 * read from a file or a hub is `unknown` until validation (or `resourcesOf`, model/resources.ts)
 * says which of its values are these.
 */
export type StandardVersion = 1 | 2;

export interface Constraints {
  required?: boolean;
  unique?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: unknown[];
  minimum?: unknown;
  maximum?: unknown;
  exclusiveMinimum?: unknown;
  exclusiveMaximum?: unknown;
}

export type MissingValue = string | { value: string; label?: string };

export interface Field {
  name: string;
  type?: string;
  format?: string;
  constraints?: Constraints;
  missingValues?: MissingValue[];
  trueValues?: string[];
  falseValues?: string[];
  decimalChar?: string;
  groupChar?: string;
  bareNumber?: boolean;
  delimiter?: string;
  itemType?: string;
  [property: string]: unknown;
}

export interface ForeignKey {
  fields: string | string[];
  reference: { resource?: string; fields: string | string[] };
}

export interface Schema {
  fields: Field[];
  missingValues?: MissingValue[];
  primaryKey?: string | string[];
  foreignKeys?: ForeignKey[];
  uniqueKeys?: string[][];
  fieldsMatch?: 'exact' | 'equal' | 'subset' | 'superset' | 'partial';
}

export interface Dialect {
  delimiter?: string;
  lineTerminator?: string;
  quoteChar?: string;
  doubleQuote?: boolean;
  escapeChar?: string;
  nullSequence?: string;
  skipInitialSpace?: boolean;
  header?: boolean;
  headerRows?: number[];
  headerJoin?: string;
  commentChar?: string;
  commentRows?: number[];
  sheetName?: string;
  sheetNumber?: number;
}

export interface Resource {
  name: string;
  path?: string | string[];
  data?: unknown;
  profile?: string;
  type?: string;
  format?: string;
  mediatype?: string;
  encoding?: string;
  bytes?: number;
  hash?: string;
  schema?: Schema | string;
  dialect?: Dialect | string;
  [property: string]: unknown;
}

export interface Package {
  name?: string;
  title?: string;
  description?: string;
  profile?: string;
  $schema?: string;
  resources: Resource[];
  [property: string]: unknown;
}

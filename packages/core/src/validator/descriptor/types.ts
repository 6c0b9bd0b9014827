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

export interface FieldDescriptor {
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

export interface ForeignKeyDescriptor {
  fields: string | string[];
  reference: { resource?: string; fields: string | string[] };
}

export interface SchemaDescriptor {
  fields: FieldDescriptor[];
  missingValues?: MissingValue[];
  primaryKey?: string | string[];
  foreignKeys?: ForeignKeyDescriptor[];
  uniqueKeys?: string[][];
  fieldsMatch?: 'exact' | 'equal' | 'subset' | 'superset' | 'partial';
}

export interface DialectDescriptor {
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

export interface ResourceDescriptor {
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
  schema?: SchemaDescriptor | string;
  dialect?: DialectDescriptor | string;
  [property: string]: unknown;
}

export interface PackageDescriptor {
  name?: string;
  title?: string;
  description?: string;
  profile?: string;
  $schema?: string;
  resources: ResourceDescriptor[];
  [property: string]: unknown;
}

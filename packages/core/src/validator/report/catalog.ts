/**
 * The error types of the frictionless report: titles, descriptions, tags and message
 * templates are part of the output contract, so they are kept exactly as the reference
 * validator emits them.
 */
export interface ErrorSpec {
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly template: string;
}

const CORRUPTED = 'This error can happen if the data is corrupted.';
const PROCESSING = 'A validation cannot be processed.';
const SHORT_ROW =
  'This row has less values compared to the header row (the first row in the data source). A key concept is that all the rows in tabular data must have the same number of columns.';
const LONG_ROW =
  'This row has more values compared to the header row (the first row in the data source). A key concept is that all the rows in tabular data must have the same number of columns.';

const LABEL = ['#table', '#header', '#label'];
const HEADER = ['#table', '#header'];
const ROW = ['#table', '#row'];
const CELL = ['#table', '#row', '#cell'];

export const ERROR_SPECS = {
  error: { title: 'Error', description: 'Error', tags: [], template: '{note}' },
  'package-error': {
    title: 'Package Error',
    description: PROCESSING,
    tags: [],
    template: 'The data package has an error: {note}',
  },
  'resource-error': {
    title: 'Resource Error',
    description: PROCESSING,
    tags: [],
    template: 'The data resource has an error: {note}',
  },
  'schema-error': {
    title: 'Schema Error',
    description: 'Provided schema is not valid.',
    tags: [],
    template: 'Schema is not valid: {note}',
  },
  'field-error': {
    title: 'Field Error',
    description: 'Provided field is not valid.',
    tags: [],
    template: 'Field is not valid: {note}',
  },
  'dialect-error': {
    title: 'Dialect Error',
    description: 'Provided dialect is not valid.',
    tags: [],
    template: 'Dialect is not valid: {note}',
  },
  'source-error': {
    title: 'Source Error',
    description: 'Data reading error because of not supported or inconsistent contents.',
    tags: [],
    template: 'The data source has unsupported or inconsistent contents: {note}',
  },
  'scheme-error': {
    title: 'Scheme Error',
    description: 'Data reading error because of incorrect scheme.',
    tags: [],
    template: 'The data source could not be successfully loaded: {note}',
  },
  'format-error': {
    title: 'Format Error',
    description: 'Data reading error because of incorrect format.',
    tags: [],
    template: 'The data source could not be successfully parsed: {note}',
  },
  'encoding-error': {
    title: 'Encoding Error',
    description: 'Data reading error because of an encoding problem.',
    tags: [],
    template: 'The data source could not be successfully decoded: {note}',
  },
  'hash-count': {
    title: 'Hash Count Error',
    description: CORRUPTED,
    tags: ['#file'],
    template: 'The data source does not match the expected hash: {note}',
  },
  'byte-count': {
    title: 'Byte Count Error',
    description: CORRUPTED,
    tags: ['#file'],
    template: 'The data source does not match the expected byte count: {note}',
  },
  'unmatched-header': {
    title: 'Unmatched Header',
    description:
      'With "fieldsMatch" set to "partial", the header must contain at least one of the fields defined in the schema.',
    tags: HEADER,
    template: 'None of the fields defined in the schema is present in the header',
  },
  'extra-label': {
    title: 'Extra Label',
    description:
      'The header of the data source contains label that does not exist in the provided schema.',
    tags: LABEL,
    template: 'There is an extra label "{label}" in the header at position "{fieldNumber}"',
  },
  'missing-label': {
    title: 'Missing Label',
    description:
      "Based on the schema there should be a label that is missing in the data's header.",
    tags: LABEL,
    template: 'The header has no label for field "{fieldName}" at position "{fieldNumber}"',
  },
  'blank-label': {
    title: 'Blank Label',
    description:
      'A label in the header row is missing a value. Label should be provided and not be blank.',
    tags: LABEL,
    template: 'The label at position "{fieldNumber}" of the header is blank',
  },
  'duplicate-label': {
    title: 'Duplicate Label',
    description:
      'Two columns in the header row have the same value. Column names should be unique.',
    tags: LABEL,
    template: 'Label "{label}" at position "{fieldNumber}" of the header repeats a label: {note}',
  },
  'incorrect-label': {
    title: 'Incorrect Label',
    description:
      'One of the data source header does not match the field name defined in the schema.',
    tags: LABEL,
    template:
      'Label "{label}" at position "{fieldNumber}" does not match the field name "{fieldName}" in the schema',
  },
  'blank-row': {
    title: 'Blank Row',
    description: 'This row is empty. A row should contain at least one value.',
    tags: ROW,
    template: 'Row "{rowNumber}" is completely blank',
  },
  'primary-key': {
    title: 'PrimaryKey Error',
    description: 'Values in the primary key fields should be unique for every row',
    tags: ROW,
    template: 'Row "{rowNumber}" violates the primary key: {note}',
  },
  'foreign-key': {
    title: 'ForeignKey Error',
    description: 'Values in the foreign key fields should exist in the reference table',
    tags: ROW,
    template: 'Row "{rowNumber}" violates the foreign key: {note}',
  },
  'extra-cell': {
    title: 'Extra Cell',
    description: LONG_ROW,
    tags: CELL,
    template: 'Row "{rowNumber}" has an extra value at position "{fieldNumber}"',
  },
  'missing-cell': {
    title: 'Missing Cell',
    description: SHORT_ROW,
    tags: CELL,
    template:
      'Row "{rowNumber}" has a missing cell in field "{fieldName}" at position "{fieldNumber}"',
  },
  'type-error': {
    title: 'Type Error',
    description: 'The value does not match the schema type and format for this field.',
    tags: CELL,
    template:
      'Type error in the cell "{cell}" in row "{rowNumber}" and field "{fieldName}" at position "{fieldNumber}": {note}',
  },
  'constraint-error': {
    title: 'Constraint Error',
    description: 'A field value does not conform to a constraint.',
    tags: CELL,
    template:
      'The cell "{cell}" in row "{rowNumber}" and field "{fieldName}" at position "{fieldNumber}" does not conform to a constraint: {note}',
  },
  'unique-error': {
    title: 'Unique Error',
    description:
      'This field is a unique field but it contains a value that has been used in another row.',
    tags: CELL,
    template:
      'Row "{rowNumber}" breaks the unique constraint of field "{fieldName}" at position "{fieldNumber}": {note}',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorType = keyof typeof ERROR_SPECS;

export const ERROR_TYPES = Object.keys(ERROR_SPECS) as ErrorType[];

export function isErrorType(value: string): value is ErrorType {
  return Object.hasOwn(ERROR_SPECS, value);
}

import type { ResourceDescriptor, SchemaDescriptor } from '../descriptor/types.js';

/**
 * Where a table's rows go as they are validated, each once: its cells as read and its values
 * as the schema cast them (a row's arrays are reused for the next one).
 */
export interface TableRowSink {
  row(cells: readonly unknown[], values: readonly unknown[], columns: readonly number[]): void;
}

/** Gives a sink for a table about to be validated, or none. */
export type TableSinks = (
  resource: ResourceDescriptor,
  index: number,
  schema: SchemaDescriptor,
) => TableRowSink | undefined;

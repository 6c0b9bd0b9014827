import type { ResourceDescriptor, SchemaDescriptor } from '../descriptor/types.js';

/**
 * Where a table's rows go as they are validated, each once: its cells as read and its values
 * as the schema cast them (a row's arrays are reused for the next one).
 */
export interface TableRowSink {
  /**
   * How many of the first rows the sink needs, when not all: those all come from the first
   * range of a split table, so such a sink lets a large table be read as two ranges.
   */
  readonly rowsWanted?: number;
  row(cells: readonly unknown[], values: readonly unknown[], columns: readonly number[]): void;
}

/** Gives a sink for a table about to be validated, or none. */
export type TableSinks = (
  resource: ResourceDescriptor,
  index: number,
  schema: SchemaDescriptor,
) => TableRowSink | undefined;

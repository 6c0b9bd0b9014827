/** What a diff of rows counts and shows, which the join of its parts adds up. */
export interface RowCounts {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  /** The fields rows are matched by, or null when by the whole row. */
  key: string[] | null;
}

export interface CellChange {
  from: unknown;
  to: unknown;
}

export interface RowSamples {
  added: Record<string, unknown>[];
  removed: Record<string, unknown>[];
  changed: { key: Record<string, unknown>; cells: Record<string, CellChange> }[];
}

/** Turns inline tabular data into records: a header record first, then the rows. */
export function inlineRecords(data: unknown): unknown[][] | string {
  if (!Array.isArray(data)) return 'inline tabular data must be an array';
  if (data.length === 0) return [];
  if (data.every(Array.isArray)) return data as unknown[][];
  if (data.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))) {
    const rows = data as Record<string, unknown>[];
    const labels = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    return [labels, ...rows.map((row) => labels.map((label) => row[label] ?? null))];
  }
  return 'inline tabular data must hold only arrays or only objects';
}

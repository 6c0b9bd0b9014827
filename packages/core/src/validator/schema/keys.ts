/** Map keys for logical values: numbers and strings stay as they are, others become strings. */
export function keyOf(value: unknown): string | number {
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return `n${value.toString()}`;
  if (typeof value === 'boolean') return value ? 'b1' : 'b0';
  return `j${JSON.stringify(value)}`;
}

/** One key for a tuple of values; types are tagged so that 1 and "1" differ. */
export function tupleKey(values: readonly unknown[]): string {
  let key = '';
  for (const value of values) {
    if (typeof value === 'string') key += `s${value}\u001f`;
    else if (typeof value === 'number') key += `n${String(value)}\u001f`;
    else key += `${String(keyOf(value))}\u001f`;
  }
  return key;
}

/**
 * A lookup over a fixed set of keys. A few are compared one by one: hashing each cell into
 * a Map took a boolean or enum column two to three times as long. Past 16 keys, or with NaN
 * among them (which equals nothing), a Map.
 */
export function fewKeys<K, V>(entries: readonly (readonly [K, V])[]): (key: K) => V | undefined {
  const keys = entries.map(([key]) => key);
  if (keys.length > 16 || keys.some((key) => key !== key)) {
    const map = new Map(entries);
    return (key) => map.get(key);
  }
  const values = entries.map(([, value]) => value);
  return (key) => {
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return values[i];
    return undefined;
  };
}

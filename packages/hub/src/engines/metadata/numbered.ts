/**
 * PostgreSQL's placeholders for statements written with `?`: a module of its own, which
 * imports nothing, so that each engine's table modules (organisations, named tokens,
 * publishers) take it without importing the shared statements and the rules above them.
 */
/**
 * The same statements with PostgreSQL's placeholders: each `?` becomes `$1`, `$2`, … in turn
 * (every `?` is one: none of these statements has one in a quoted string). Turned once.
 */
export function numbered<T extends Readonly<Record<keyof T, string>>>(statements: T): T {
  const each = (sql: string): string => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return Object.fromEntries(
    Object.entries<string>(statements).map(([name, sql]) => [name, each(sql)]),
  ) as unknown as T;
}

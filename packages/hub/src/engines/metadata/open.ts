import { isPostgresUrl } from './rules.js';
import { SqliteMetadata } from './sqlite.js';
import { DatabaseUnavailable, type Metadata } from './types.js';

/** The metadata engine a database address names: PostgreSQL for postgres:// URLs, else SQLite. */
export async function openMetadata(database: string): Promise<Metadata> {
  try {
    if (isPostgresUrl(database)) {
      const { PostgresMetadata } = await import('./postgres.js');
      return await PostgresMetadata.open(database);
    }
    return new SqliteMetadata(database);
  } catch (error) {
    // The engines' messages name the problem (refused, no such database, authentication
    // failed, not a database file) and never a password.
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatabaseUnavailable(`the database cannot be used: ${reason}`, { cause: error });
  }
}

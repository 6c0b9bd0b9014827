/** Vitest global setup of the PostgreSQL project: one server for the whole run. */
import type { TestProject } from 'vitest/node';
import { postgresBin, startPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const bin = postgresBin();
  if (!bin)
    throw new Error(
      'PostgreSQL is not installed (Debian package postgresql): the hub tests on PostgreSQL cannot run',
    );
  const server = await startPostgres(bin);
  project.provide('postgresUrl', server.url);
  return () => {
    server.stop();
  };
}

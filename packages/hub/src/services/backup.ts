/**
 * A consistent copy of an embedded hub (SQLite and a folder) while it runs: the database by
 * SQLite's online backup, then the folder's files. Stored objects are never changed once
 * written, so every object the copied database names is there when the files are copied
 * after it. The copy is a data folder: `data serve --data-dir <copy>` serves it as it was.
 */
import { cp, readdir } from 'node:fs/promises';
import { makeDirectory } from '@data/core';
import { backup, DatabaseSync } from 'node:sqlite';
import { join, relative, resolve, sep } from 'node:path';
import { isPostgresUrl } from '../engines/metadata/rules.js';

export class BackupRefused extends Error {
  override readonly name = 'BackupRefused';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** The database's own files, copied by the online backup, and the process's scratch folder. */
function copied(dataDir: string, database: string) {
  const skipped = new Set([database, `${database}-wal`, `${database}-shm`, `${database}-journal`]);
  return (source: string): boolean => {
    const inside = relative(dataDir, source);
    return !skipped.has(resolve(source)) && inside.split(sep)[0] !== 'tmp';
  };
}

export async function backupHub(options: {
  dataDir: string;
  database?: string | undefined;
  storage?: string | undefined;
  to: string;
}): Promise<{ database: string }> {
  const dataDir = resolve(options.dataDir);
  const database = resolve(options.database ?? join(dataDir, 'hub.sqlite'));
  if ((options.database && isPostgresUrl(options.database)) || options.storage !== undefined)
    throw new BackupRefused(
      'data serve backup copies the embedded hub (SQLite and its data folder) only',
      'back up PostgreSQL with pg_dump and the bucket with its versioning or a sync: see docs/operations.md',
    );
  const to = resolve(options.to);
  if (to === dataDir || to.startsWith(`${dataDir}${sep}`))
    throw new BackupRefused(
      'the backup cannot go inside the data folder',
      'choose a folder elsewhere',
    );
  await makeDirectory(to);
  if ((await readdir(to)).length > 0)
    throw new BackupRefused(`${to} is not empty`, 'back up into a new folder, or an empty one');
  const source = new DatabaseSync(database, { readOnly: true });
  // Named as a data folder's own database, so that the copy serves as it is.
  const copy = join(to, 'hub.sqlite');
  try {
    await backup(source, copy);
  } finally {
    source.close();
  }
  await cp(dataDir, to, {
    recursive: true,
    filter: copied(dataDir, database),
    preserveTimestamps: true,
  });
  return { database: copy };
}

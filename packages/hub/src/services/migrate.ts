import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eachLimited, hashFile } from '@data/core';
import { SqliteMetadata } from '../engines/metadata/sqlite.js';
import { MOVED_TABLES, type MovedTable, type Row } from '../engines/metadata/tables.js';
import type { Metadata } from '../engines/metadata/types.js';
import { OBJECT_KEY } from './objects.js';
import { contentType } from '../content-type.js';
import { FolderStorage } from '../engines/storage/folder.js';
import { openStorage } from '../engines/storage/open.js';
import type { Storage } from '../engines/storage/types.js';
import { openMetadata } from '../engines/metadata/open.js';
import { loadKeys } from './tokens.js';

type FileEvent =
  | { type: 'file'; key: string; bytes: number; copied: boolean }
  | { type: 'damaged'; key: string; reason: string };

export type MigrationEvent = FileEvent | { type: 'rows'; table: MovedTable; rows: number };

export interface MigrationResult {
  /** Files written to the new storage, and files found there already, whole. */
  copied: number;
  present: number;
  bytes: number;
  /** Objects whose bytes are not the ones their key names: left where they are. */
  damaged: string[];
  rows: Partial<Record<MovedTable, number>>;
}

export class MigrationRefused extends Error {
  override readonly name = 'MigrationRefused';
}

const ROWS_PER_BATCH = 500;
const FILES_AT_ONCE = 4;

/**
 * Moves a single-machine hub (its SQLite file and folder) into another database and storage,
 * PostgreSQL and a bucket. Files first, each object's MD5 checked against its key before it
 * goes (and by the store on the way, through Content-MD5); then the rows, so that the new
 * database never names bytes the new storage lacks. What is there already is kept, so an
 * interrupted move is finished by running it again. The hub must be stopped meanwhile.
 */
export async function migrateHub(options: {
  dataDir: string;
  database: string;
  storage: string;
  onEvent?: (event: MigrationEvent) => void;
}): Promise<MigrationResult> {
  const file = join(options.dataDir, 'hub.sqlite');
  if (!existsSync(file)) throw new MigrationRefused(`there is no hub in ${options.dataDir}`);
  if (options.database === file)
    throw new MigrationRefused('the new database is the hub’s own: name another one');
  const source = new SqliteMetadata(file);
  const opened: { target?: Metadata; storage?: Storage } = {};
  try {
    // Keys kept in keys.json by older hubs move too: tokens stay valid.
    await loadKeys(options.dataDir, source);
    opened.storage = await openStorage(options.storage);
    opened.target = await openMetadata(options.database);
    const result: MigrationResult = { copied: 0, present: 0, bytes: 0, damaged: [], rows: {} };
    const folder = new FolderStorage(options.dataDir);
    for (const prefix of ['objects/', 'packages/'])
      await moveFiles(folder, opened.storage, prefix, result, options.onEvent);
    for (const table of Object.keys(MOVED_TABLES) as MovedTable[])
      result.rows[table] = await moveRows(source, opened.target, table, options.onEvent);
    return result;
  } finally {
    await source.close();
    await opened.target?.close();
    opened.storage?.close();
  }
}

async function moveFiles(
  from: FolderStorage,
  to: Storage,
  prefix: string,
  result: MigrationResult,
  onEvent?: (event: MigrationEvent) => void,
): Promise<void> {
  const entries: { key: string }[] = [];
  const flush = () =>
    eachLimited(entries.splice(0), FILES_AT_ONCE, async (entry) => {
      const event = await moveFile(from, to, entry.key);
      if (event.type === 'damaged') result.damaged.push(entry.key);
      else {
        if (event.copied) result.copied++;
        else result.present++;
        result.bytes += event.bytes;
      }
      onEvent?.(event);
    });
  for await (const entry of from.list(prefix)) {
    entries.push(entry);
    if (entries.length >= 256) await flush();
  }
  await flush();
}

async function moveFile(from: FolderStorage, to: Storage, key: string): Promise<FileEvent> {
  const name = key.split('/').pop() ?? key;
  const path = from.pathOf(key);
  const { length, digest } = await hashFile(path, 'md5');
  if (key.startsWith('objects/')) {
    if (!OBJECT_KEY.test(name)) return { type: 'damaged', key, reason: 'not an object key' };
    if (!name.startsWith(digest.toString('hex')))
      return { type: 'damaged', key, reason: 'its bytes are not the ones its key names' };
  }
  const there = await to.stat(key);
  const hex = digest.toString('hex');
  if (there?.size === length && (there.md5 ?? (await md5Of(to, key))) === hex)
    return { type: 'file', key, bytes: length, copied: false };
  // Storage keeps what a key holds: other bytes there (a broken earlier move) go first.
  if (there) await to.delete(key);
  await to.putFile(key, path, { md5: digest.toString('base64'), length, type: contentType(name) });
  return { type: 'file', key, bytes: length, copied: true };
}

/** The MD5 (hex) of what a key holds, read through, for stores that do not tell it. */
async function md5Of(storage: Storage, key: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of (await storage.read(key)) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

async function moveRows(
  from: Metadata,
  to: Metadata,
  table: MovedTable,
  onEvent?: (event: MigrationEvent) => void,
): Promise<number> {
  let batch: Row[] = [];
  let count = 0;
  for await (const row of from.exportRows(table)) {
    batch.push(row);
    if (batch.length === ROWS_PER_BATCH) {
      await to.importRows(table, batch);
      count += batch.length;
      batch = [];
    }
  }
  await to.importRows(table, batch);
  count += batch.length;
  onEvent?.({ type: 'rows', table, rows: count });
  return count;
}

import { chmodSync, closeSync, openSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

/** How long a statement waits for a lock another process holds. */
const BUSY_MS = 5000;

/** SQLite's result codes for a lock held elsewhere (extended codes keep them in the low byte). */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/**
 * Opens the hub's SQLite file, for the hub's user only (it holds sessions and the signing
 * keys), in write-ahead-log mode.
 */
export function openSqliteFile(file: string): DatabaseSync {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new DatabaseSync(file);
  db.exec(`pragma busy_timeout = ${String(BUSY_MS)}`);
  useWriteAheadLog(db);
  db.exec('pragma synchronous = normal');
  return db;
}

/**
 * Switching to WAL needs the file to itself, and SQLite does not wait for it as it waits
 * for other locks: two processes starting at once on a new file, both switching, and one
 * of them got "database is locked" at once. The mode is kept in the file, so a file in WAL
 * already takes no switch; otherwise the switch is tried again, as long as other
 * statements wait, until it is done here or by another process.
 */
function useWriteAheadLog(db: DatabaseSync): void {
  const deadline = Date.now() + BUSY_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      if (journalMode(db, 'pragma journal_mode') === 'wal') return;
      if (journalMode(db, 'pragma journal_mode = wal') === 'wal') return;
    } catch (error) {
      if (!isLockHeldElsewhere(error) || Date.now() >= deadline) throw error;
    }
    if (Date.now() >= deadline) throw new Error('database is locked: it stayed out of WAL mode');
    // A hub starting has nothing else to do meanwhile.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
  }
}

function journalMode(db: DatabaseSync, pragma: string): string | undefined {
  const row = db.prepare(pragma).get() as { journal_mode?: unknown } | undefined;
  return typeof row?.journal_mode === 'string' ? row.journal_mode.toLowerCase() : undefined;
}

function isLockHeldElsewhere(error: unknown): boolean {
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === 'number' && [SQLITE_BUSY, SQLITE_LOCKED].includes(code & 0xff);
}

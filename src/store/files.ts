// The database as files: created private to the service's user, copied online into a backup,
// and a backup checked and copied back into the live database. Both copies use SQLite's backup
// API, which works page by page inside SQLite's own locking: a running server and an open
// `watch` are never in the way, and never see half a database. Copying a file over the live
// database instead would be replayed over by its -wal: a restore that restores nothing.

import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { MIGRATIONS, migrate } from './migrations.ts';
import { schemaDifferences } from './schema-check.ts';

// The database holds private conversations: readable by the service's user only, whatever the umask.
const PRIVATE_FILE = 0o600;
const PRIVATE_FOLDER = 0o700;
// Pages copied per step of the backup API; a whole small database in one step, so that a
// server writing meanwhile does not make the copy start over.
const PAGES_PER_STEP = 1_000_000;
// Writing into the live database waits for its write lock: a server or owner script writing at
// that moment holds it for milliseconds. SQLite's backup API does not wait, so the restore asks
// again, for as long as the store's busy timeout, before it gives up with nothing changed.
const LIVE_BUSY_PAUSE_MS = 50;
const LIVE_BUSY_TRIES = 100;

/**
 * The database file, and its folder when missing, created private to the service's user;
 * an existing file (and its -wal and -shm) is made private too. An existing folder is left
 * as it is: it may be shared, such as /tmp.
 */
export function createPrivately(dbPath: string): void {
  const folder = path.dirname(dbPath);
  if (!existsSync(folder)) {
    mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER });
    chmodSync(folder, PRIVATE_FOLDER);
  }
  closeSync(openSync(dbPath, 'a', PRIVATE_FILE));
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(dbPath + suffix)) chmodSync(dbPath + suffix, PRIVATE_FILE);
  }
}

/**
 * Copies `db` online into `file`, which must not exist (created private), as one self-contained
 * file; returns what PRAGMA integrity_check says of the copy.
 */
export async function copyDatabase(db: DatabaseSync, file: string): Promise<string> {
  closeSync(openSync(file, 'wx', PRIVATE_FILE));
  chmodSync(file, PRIVATE_FILE); // the umask may have narrowed the mode, never widened it; this says it plainly
  await backup(db, file, { rate: PAGES_PER_STEP });
  const copy = new DatabaseSync(file);
  try {
    copy.exec('PRAGMA journal_mode = DELETE'); // no -wal beside it
    return integrity(copy);
  } finally {
    copy.close();
  }
}

function integrity(db: DatabaseSync): string {
  return (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
}

/** What a backup holds, once checked. */
export interface BackupSummary {
  readonly conversations: number;
  readonly messages: number;
  readonly schemaVersion: number;
}

/** Why a file cannot be restored, in words the owner can act on. */
export class BackupProblem extends Error {}

/**
 * Opens a backup read-only and checks that it is a plain file, whole, and exactly a schema this
 * service's migrations make, of a version this code knows; problems name it as `called`.
 */
export function checkBackup(file: string, called = file): BackupSummary {
  if (!existsSync(file)) throw new BackupProblem(`${called} does not exist`);
  const kind = lstatSync(file);
  if (kind.isSymbolicLink()) throw new BackupProblem(`${called} is a symbolic link; give the backup file itself`);
  if (!kind.isFile()) throw new BackupProblem(`${called} is not a file`);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (err) {
    throw new BackupProblem(`${called} cannot be opened as an SQLite database: ${(err as Error).message}`);
  }
  try {
    const check = readableIntegrity(db, called);
    if (check !== 'ok') throw new BackupProblem(`${called} fails SQLite's integrity check: ${check}`);
    const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version > MIGRATIONS.length) {
      throw new BackupProblem(
        `${called} was written by a newer release (schema ${version}, this code knows ${MIGRATIONS.length}); ` +
          'restore it with that release',
      );
    }
    if (version === 0) throw new BackupProblem(`${called} is an SQLite database, but not one of this service`);
    const differences = schemaDifferences(db, version);
    if (differences.length > 0) {
      const more = differences.length > 5 ? `; and ${differences.length - 5} more` : '';
      const named = differences.slice(0, 5).join('; ') + more;
      const what = `${called} is not a database this service's migrations make (schema ${version})`;
      throw new BackupProblem(`${what}: ${named}`);
    }
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { conversations: count('conversations'), messages: count('messages'), schemaVersion: version };
  } finally {
    db.close();
  }
}

function readableIntegrity(db: DatabaseSync, file: string): string {
  try {
    return integrity(db);
  } catch (err) {
    throw new BackupProblem(`${file} is not a readable SQLite database: ${(err as Error).message}`);
  }
}

/**
 * Replaces the content of the live database at `dbPath` with a checked backup, in one
 * transaction of the live database: the backup is first copied aside and migrated to this
 * code's schema, so a running server never sees an older schema; then that copy is written into
 * the live database with the backup API, which other connections see as one commit.
 */
export async function restoreInto(dbPath: string, backupFile: string): Promise<void> {
  createPrivately(dbPath); // on a new machine, the database (and its folder) the backup fills
  const staging = `${dbPath}.restoring-${process.pid}`;
  try {
    const source = new DatabaseSync(backupFile, { readOnly: true });
    try {
      const check = await copyDatabase(source, staging);
      if (check !== 'ok') throw new BackupProblem(`the copy of the backup fails SQLite's integrity check: ${check}`);
    } finally {
      source.close();
    }
    const migrated = new DatabaseSync(staging, { enableForeignKeyConstraints: true });
    try {
      migrate(migrated);
      // SQLite keeps a WAL-mode destination in WAL mode; the tests check that it stays so.
      await backupWhenFree(migrated, dbPath);
    } finally {
      migrated.close();
    }
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(staging + suffix, { force: true });
  }
}

/** The backup API into a database another connection may be writing: asked again while it is busy. */
async function backupWhenFree(source: DatabaseSync, dbPath: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await backup(source, dbPath, { rate: PAGES_PER_STEP });
      return;
    } catch (err) {
      // node:sqlite reports a busy destination as "not an error": every failure is asked again.
      if (attempt >= LIVE_BUSY_TRIES) {
        const seconds = (LIVE_BUSY_TRIES * LIVE_BUSY_PAUSE_MS) / 1000;
        throw new BackupProblem(`the live database stayed busy for ${seconds} s (${(err as Error).message})`);
      }
      await new Promise((resolve) => setTimeout(resolve, LIVE_BUSY_PAUSE_MS));
    }
  }
}

// `restore <backup>`: the database becomes exactly the backup, whether the server runs or not.
// The backup is checked before anything changes, and what it replaces is kept beside the
// database, so a restore of the wrong file can itself be undone with `restore`.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Config } from '../base/config.ts';
import { shown } from '../base/terminal.ts';
import { damagedRows } from '../store/damaged.ts';
import { BackupProblem, checkBackup, copyDatabase, restoreInto } from '../store/files.ts';
import { ownerFile, OwnerError, type FileCommand } from './command.ts';

export const restoreCommands: Record<string, FileCommand> = {
  restore: {
    usage: 'restore <backup>',
    summary:
      'replace the database with a backup (checked first), also while the server runs; ' +
      'what it replaces is kept beside the database',
    onFile: true,
    run: ({ positionals, config }) => restore(config, positionals),
  },
};

// The live database is not opened as the Store would open it: that would migrate it, and a
// rollback restores with older code a database that newer code migrated.
async function restore(config: Config, [name, ...extra]: string[]): Promise<void> {
  if (name === undefined || extra.length > 0) throw new OwnerError('give one backup file to restore');
  if (config.dbPath === ':memory:') throw new OwnerError('DB_PATH is :memory:, which has no file to restore into');
  const file = ownerFile(name);
  const live = path.resolve(config.dbPath);
  if (file === live) throw new OwnerError(`${file} is the live database; give a backup of it`);
  let backup;
  try {
    backup = checkBackup(file);
  } catch (err) {
    if (err instanceof BackupProblem) throw new OwnerError(`nothing was restored: ${err.message}`);
    throw err;
  }
  const kept = existsSync(live) ? await keepCopy(live) : null;
  try {
    await restoreInto(live, file);
  } catch (err) {
    throw new OwnerError(`nothing was restored: ${(err as Error).message}; the database is as it was`);
  }
  console.log(`Restored ${file} into ${live}: ${backup.conversations} conversations, ${backup.messages} messages.`);
  if (kept) console.log(`What it replaced is kept in ${kept}; \`restore\` that file to undo this.`);
  const damaged = damagedIn(live);
  if (damaged.length > 0) {
    console.log(`It holds rows whose stored JSON is damaged, left out or shown as none: ${shown(damaged.join(', '))}.`);
  }
}

/** The damaged rows of the restored database, read without migrating it. */
function damagedIn(live: string): string[] {
  const db = new DatabaseSync(live, { readOnly: true, timeout: 5000 });
  try {
    return damagedRows(db);
  } finally {
    db.close();
  }
}

/** A checked copy of the live database beside it, before anything changes. */
async function keepCopy(live: string): Promise<string> {
  const kept = keptCopyPath(live, new Date());
  const db = new DatabaseSync(live, { readOnly: true, timeout: 5000 });
  try {
    const check = await copyDatabase(db, kept);
    if (check !== 'ok') throw new OwnerError(`nothing was restored: the copy of the live database failed (${check})`);
  } finally {
    db.close();
  }
  return kept;
}

/** data/service.db → data/service-before-restore-20261124T223000Z.db, beside the database and private like it. */
function keptCopyPath(dbPath: string, at: Date): string {
  const { dir, name, ext } = path.parse(dbPath);
  const stamp = at.toISOString().replace(/[-:]|\.\d+/g, '');
  return path.join(dir, `${name}-before-restore-${stamp}${ext || '.db'}`);
}

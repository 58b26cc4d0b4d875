// `restore <backup>`: the database becomes exactly the backup, whether the server runs or not.
// The backup is checked before anything changes, and what it replaces is kept beside the
// database, so a restore of the wrong file can itself be undone with `restore`.

import path from 'node:path';
import type { Config } from '../config.ts';
import { BackupProblem, checkBackup, restoreInto } from '../store-files.ts';
import type { Store } from '../store.ts';
import { ownerFile, OwnerError, type Command } from './shared.ts';

export const restoreCommands: Record<string, Command> = {
  restore: {
    usage: 'restore <backup>',
    summary:
      'replace the database with a backup (checked first), also while the server runs; ' +
      'what it replaces is kept beside the database',
    run: ({ positionals, store, config }) => restore(store, config, positionals),
  },
};

async function restore(store: Store, config: Config, [name, ...extra]: string[]): Promise<void> {
  if (name === undefined || extra.length > 0) throw new OwnerError('give one backup file to restore');
  if (config.dbPath === ':memory:') throw new OwnerError('DB_PATH is :memory:, which has no file to restore into');
  const file = ownerFile(name);
  if (file === path.resolve(config.dbPath)) throw new OwnerError(`${file} is the live database; give a backup of it`);
  let backup;
  try {
    backup = checkBackup(file);
  } catch (err) {
    if (err instanceof BackupProblem) throw new OwnerError(`nothing was restored: ${err.message}`);
    throw err;
  }
  const kept = keptCopyPath(config.dbPath, new Date());
  const check = await store.copyTo(kept);
  if (check !== 'ok') throw new OwnerError(`nothing was restored: the copy of the live database failed (${check})`);
  try {
    await restoreInto(config.dbPath, file);
  } catch (err) {
    const reason = err instanceof BackupProblem ? err.message : (err as Error).message;
    throw new OwnerError(`nothing was restored: ${reason}; the database is as it was`);
  }
  console.log(
    `Restored ${file} into ${config.dbPath}: ${backup.conversations} conversations, ${backup.messages} messages.`,
  );
  console.log(`What it replaced is kept in ${kept}; \`restore\` that file to undo this.`);
}

/** data/service.db → data/service-before-restore-20261124T223000Z.db, beside the database and private like it. */
function keptCopyPath(dbPath: string, at: Date): string {
  const { dir, name, ext } = path.parse(path.resolve(dbPath));
  const stamp = at.toISOString().replace(/[-:]|\.\d+/g, '');
  return path.join(dir, `${name}-before-restore-${stamp}${ext || '.db'}`);
}

// A backup as the release before this one would have written it: the same data, in the schema the
// migrations made up to an earlier version, for the tests of restore and of the way back.

import { renameSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS, migrate } from '../src/store/migrations.ts';

/** Rewrites `file` in the schema of `version` (by default the one before this code's), keeping its rows. */
export function asOlderRelease(file: string, version = MIGRATIONS.length - 1): void {
  const older = `${file}.older`;
  const db = new DatabaseSync(older);
  try {
    migrate(db, MIGRATIONS.slice(0, version));
    db.exec('PRAGMA foreign_keys = OFF');
    db.prepare('ATTACH DATABASE ? AS newer').run(file);
    const tables = db
      .prepare("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[];
    for (const { name } of tables) {
      const columns = (db.prepare(`PRAGMA main.table_info("${name}")`).all() as { name: string }[])
        .map((column) => `"${column.name}"`)
        .join(', ');
      db.exec(`INSERT INTO main."${name}" (${columns}) SELECT ${columns} FROM newer."${name}"`);
    }
    db.exec('DETACH DATABASE newer');
  } finally {
    db.close();
  }
  rmSync(file);
  renameSync(older, file);
}

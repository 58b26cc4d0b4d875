// Whether a database file is exactly one this service's migrations make: every table, index,
// trigger and view it holds, with its SQL, against what the migrations up to its version make on
// an empty database. A restored file becomes the live database, so a trigger or a view of its
// own, or a table of another shape, would run in the server: only what the migrations make
// is accepted, and every difference is named. Names starting `sqlite_` are compared too: a
// trigger written through writable_schema can take such a name, and SQLite's own automatic
// indexes are made alike by the same migrations; only its planner statistics may differ.

import { DatabaseSync } from 'node:sqlite';
import { MIGRATIONS, migrate } from './migrations.ts';

// What ANALYZE (or the sqlite3 shell's .expert) leaves: statistics for the planner, which run nothing.
const STATISTICS = new Set(['table sqlite_stat1', 'table sqlite_stat4']);

/** The schema objects of a database, `<type> <name>` → the SQL that made it; the planner's statistics left out. */
function schemaOf(db: DatabaseSync): Map<string, string> {
  const rows = db.prepare('SELECT type, name, sql FROM sqlite_schema ORDER BY name').all() as {
    type: string;
    name: string;
    sql: string | null;
  }[];
  const objects = rows.map((row) => [`${row.type} ${row.name}`, row.sql ?? ''] as const);
  return new Map(objects.filter(([key]) => !STATISTICS.has(key)));
}

/** What the migrations up to `version` make, on an empty database in memory. */
function madeByMigrations(version: number): Map<string, string> {
  const db = new DatabaseSync(':memory:');
  try {
    migrate(db, MIGRATIONS.slice(0, version));
    return schemaOf(db);
  } finally {
    db.close();
  }
}

/** The columns of a table, for naming what differs: `name type`. */
function columnsOf(sql: string): string[] {
  const db = new DatabaseSync(':memory:');
  try {
    db.exec(sql);
    const table = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").get() as { name: string }).name;
    const columns = db.prepare(`PRAGMA table_info("${table.replace(/"/g, '""')}")`).all() as { name: string }[];
    return columns.map((column) => column.name);
  } catch {
    return [];
  } finally {
    db.close();
  }
}

/** How a table differs from the migrations' one, in words. */
function tableDifference(name: string, found: string, made: string): string {
  const [have, want] = [columnsOf(found), columnsOf(made)];
  const missing = want.filter((column) => !have.includes(column));
  const extra = have.filter((column) => !want.includes(column));
  if (missing.length > 0) return `table ${name} lacks the column ${missing.join(', ')}`;
  if (extra.length > 0) return `table ${name} has a column the migrations do not make (${extra.join(', ')})`;
  return `table ${name} is not defined as the migrations define it`;
}

/**
 * Every way `db`'s schema differs from the one the migrations make at its `version`: missing and
 * extra tables, indexes, triggers and views, and objects defined otherwise; [] when it is exact.
 */
export function schemaDifferences(db: DatabaseSync, version: number): string[] {
  const found = schemaOf(db);
  const made = madeByMigrations(version);
  const differences: string[] = [];
  for (const [key, sql] of made) {
    const [type, name] = key.split(' ') as [string, string];
    const have = found.get(key);
    if (have === undefined) differences.push(`the ${type} ${name} is missing`);
    else if (have !== sql && type === 'table') differences.push(tableDifference(name, have, sql));
    else if (have !== sql) differences.push(`the ${type} ${name} is not defined as the migrations define it`);
  }
  for (const key of found.keys()) {
    const article = /^[aeiou]/.test(key) ? 'an' : 'a';
    if (!made.has(key)) differences.push(`there is ${article} ${key} that the migrations do not make`);
  }
  return differences;
}

/**
 * Refuses a file that is not what this service's migrations make at its version (a file brought in by
 * hand, or by an older restore, may carry a trigger or a view of its own), before anything runs on it.
 */
export function refuseForeignSchema(db: DatabaseSync): void {
  const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
  if (version > MIGRATIONS.length) return; // migrate() refuses it, naming the newer release to run
  const differences = schemaDifferences(db, version);
  if (differences.length === 0) return;
  throw new Error(
    `the database at DB_PATH is not one this service's migrations make (${differences.slice(0, 3).join('; ')}); ` +
      'restore a backup (npm run -s owner -- restore <file>), which checks it first',
  );
}

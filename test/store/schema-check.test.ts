// A file brought in carries no code of its own (src/store/schema-check.ts): a trigger written through
// writable_schema under a name starting `sqlite_`, a view, a table of its own, are refused by `restore`
// before anything changes, and stop start-up on a database that holds one; the owner's blocks still
// hold after a refused restore. SQLite's planner statistics are no code and pass.

import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { MIGRATIONS, migrate } from '../../src/store/migrations.ts';
import { openConversation, request, runCommand, runOwner, startTestService, tempDir, ROOT } from '../helpers.ts';

/** A backup of the service's database, then changed by `sql` run with SQLite's defensive mode off. */
let crafts = 0;
async function craftedBackup(dbPath: string, dir: string, sql: string): Promise<string> {
  const file = path.join(dir, `crafted-${++crafts}.db`);
  assert.equal((await runOwner(dbPath, ['backup', file])).code, 0);
  const db = new DatabaseSync(file, { defensive: false });
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
  return file;
}

// Undoes every sender block whenever a message is stored, and copies message text into a listing.
const SQLITE_TRIGGER = `PRAGMA writable_schema = ON;
  INSERT INTO sqlite_schema (type, name, tbl_name, rootpage, sql) VALUES ('trigger', 'sqlite_undo', 'messages', 0,
    'CREATE TRIGGER sqlite_undo AFTER INSERT ON messages BEGIN DELETE FROM blocked_senders; ' ||
    'UPDATE listings SET listing = json_set(listing, ''$.description'', new.message); END');
  PRAGMA writable_schema = OFF;`;

test('restore refuses a sqlite_-named trigger, a view and a table of its own; blocks still hold', async (t) => {
  const dir = tempDir(t);
  const service = await startTestService(t);
  const conversation = await openConversation(service.url, { message: 'blocked sender' });
  assert.equal((await runOwner(service.dbPath, ['block', conversation.id, '--sender'])).code, 0);
  const crafted = [
    [SQLITE_TRIGGER, /there is a trigger sqlite_undo that the migrations do not make/],
    ['CREATE VIEW everything AS SELECT message FROM messages', /there is a view everything that the migrations/],
    ['CREATE TABLE notes (x TEXT)', /there is a table notes that the migrations do not make/],
  ] as const;
  for (const [sql, says] of crafted) {
    const file = await craftedBackup(service.dbPath, dir, sql);
    const restored = await runOwner(service.dbPath, ['restore', file]);
    assert.equal(restored.code, 1, restored.stdout);
    assert.match(restored.stderr, says);
    assert.match(restored.stderr, /^error: nothing was restored: /);
  }
  const again = await request(service.url, 'POST', '/api/v1/conversations', {
    key: 'another-opening-key',
    json: { message: 'from the blocked address' },
  });
  assert.equal(again.status, 403, 'the sender block holds');
  const live = new DatabaseSync(service.dbPath, { readOnly: true });
  t.after(() => live.close());
  assert.deepEqual(live.prepare("SELECT name FROM sqlite_schema WHERE type IN ('trigger', 'view')").all(), []);
});

test('start-up refuses a database that holds a trigger the migrations do not make', async (t) => {
  const dir = tempDir(t);
  const service = await startTestService(t);
  const file = await craftedBackup(service.dbPath, dir, SQLITE_TRIGGER);
  const planted = path.join(dir, 'planted.db');
  copyFileSync(file, planted);
  const started = await runCommand(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: { DB_PATH: planted, PORT: '0' },
  });
  assert.equal(started.code, 1);
  assert.match(
    started.stderr,
    /^Cannot start: the database at DB_PATH is not one this service's migrations make \(there is a trigger sqlite_undo/,
  );
});

test('planner statistics (ANALYZE) are no code: a backup with them is restored', async (t) => {
  const dir = tempDir(t);
  const service = await startTestService(t);
  await openConversation(service.url, { message: 'kept' });
  const file = await craftedBackup(service.dbPath, dir, 'ANALYZE');
  const restored = await runOwner(service.dbPath, ['restore', file]);
  assert.equal(restored.code, 0, restored.stderr);
});

test("an older file's own trigger is refused before a migration could fire it", async (t) => {
  const file = path.join(tempDir(t), 'older.db');
  const older = new DatabaseSync(file);
  migrate(older, MIGRATIONS.slice(0, 7)); // migration 8 updates every closed conversation
  older.exec(`INSERT INTO conversations (id, token_hash, creation_key, status, metadata, created_at, expires_at,
      last_seq, latest_owner_seq, changed_at) VALUES ('c1', randomblob(32), 'k1', 'closed', '{}',
      '2026-03-10T12:00:00.000Z', '2027-03-10T12:00:00.000Z', 0, 0, '2026-03-10T12:00:00.000Z')`);
  older.exec(`CREATE TRIGGER planted AFTER UPDATE ON conversations
    BEGIN INSERT INTO settings (name, value) VALUES ('planted', 'ran'); END`);
  older.close();
  const started = await runCommand(process.execPath, ['src/main.ts'], { cwd: ROOT, env: { DB_PATH: file, PORT: '0' } });
  assert.equal(started.code, 1);
  assert.match(started.stderr, /^Cannot start: the database at DB_PATH is not one .*there is a trigger planted/m);
  const after = new DatabaseSync(file, { readOnly: true });
  t.after(() => after.close());
  assert.equal(after.prepare("SELECT 1 FROM settings WHERE name = 'planted'").get(), undefined, 'nothing ran');
  const { user_version: version } = after.prepare('PRAGMA user_version').get() as { user_version: number };
  assert.equal(version, 7, 'nor was it migrated');
});

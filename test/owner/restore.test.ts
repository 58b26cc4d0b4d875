// `restore <backup>`: afterwards the service serves exactly the backup, whether the server runs,
// `watch` is open, or the server crashed and left a -wal behind; a bad file changes nothing.

import assert from 'node:assert/strict';
import { readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import {
  newKey,
  openConversation,
  request,
  runOwner,
  startServerProcess,
  startTestService,
  tempDir,
  waitUntil,
} from '../helpers.ts';
import { startWatch } from '../owner-run.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { asOlderRelease } from '../older-schema.ts';

async function history(base: string, conversation: { id: string; token: string }) {
  return request(base, 'GET', `/api/v1/conversations/${conversation.id}/messages`, { token: conversation.token });
}

async function exported(dbPath: string): Promise<string> {
  const result = await runOwner(dbPath, ['export']);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

test('a restore while the server runs and watch is open serves exactly the backup', async (t) => {
  const service = await startTestService(t);
  const dir = tempDir(t);
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching for new client messages/);
  const kept = [];
  for (let i = 0; i < 3; i++) kept.push(await openConversation(service.url, { message: `before the backup ${i}` }));
  const backupFile = path.join(dir, 'backup.db');
  assert.equal((await runOwner(service.dbPath, ['backup', backupFile])).code, 0);
  const atBackup = await exported(service.dbPath);

  const later = await openConversation(service.url, { message: 'after the backup' });
  await request(service.url, 'POST', `/api/v1/conversations/${kept[0]!.id}/messages`, {
    token: kept[0]!.token,
    key: newKey(),
    json: { message: 'a follow-up after the backup' },
  });
  assert.equal((await runOwner(service.dbPath, ['reply', kept[1]!.id, 'a reply after the backup'])).code, 0);
  await watch.waitFor(/a follow-up after the backup/);

  const restored = await runOwner(service.dbPath, ['restore', backupFile]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /^Restored .*backup\.db into .*: 3 conversations, 3 messages\.$/m);
  assert.equal(await exported(service.dbPath), atBackup, 'the database is exactly the backup');

  assert.equal((await history(service.url, later)).status, 401, 'a conversation opened later is gone');
  const first = await history(service.url, kept[0]!);
  assert.equal(first.status, 200);
  assert.deepEqual(
    first.body.items.map((m: { message: string }) => m.message),
    ['before the backup 0'],
  );
  const again = await openConversation(service.url, { message: 'after the restore' });
  assert.equal((await history(service.url, again)).status, 200, 'the server goes on writing');
  await watch.waitFor(/after the restore/);
  await watch.interrupt();
  assert.match(watch.output(), /Stopped watching\.\n$/);

  const live = new DatabaseSync(service.dbPath, { readOnly: true });
  t.after(() => live.close());
  assert.equal((live.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode, 'wal');
  const keptCopy = /kept in (\S+);/.exec(restored.stdout)?.[1] as string;
  assert.equal(statSync(keptCopy).mode & 0o777, 0o600, 'the replaced database is kept, private');
  const before = new DatabaseSync(keptCopy, { readOnly: true });
  t.after(() => before.close());
  assert.equal((before.prepare('SELECT count(*) AS n FROM conversations').get() as { n: number }).n, 4);
});

test('a restore after a crash restores the backup, not what the old -wal held', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'service.db');
  const server = await startServerProcess(t, { DB_PATH: dbPath });
  const kept = await openConversation(server.url, { message: 'kept' });
  const backupFile = path.join(dir, 'backup.db');
  assert.equal((await runOwner(dbPath, ['backup', backupFile])).code, 0);
  const atBackup = await exported(dbPath);
  for (let i = 0; i < 5; i++) await openConversation(server.url, { message: `lost ${i}` });
  await server.stop('SIGKILL');
  assert.ok(readdirSync(dir).includes('service.db-wal'), 'the crash left a -wal beside the database');

  const restored = await runOwner(dbPath, ['restore', backupFile]);
  assert.equal(restored.code, 0, restored.stderr);
  const restarted = await startServerProcess(t, { DB_PATH: dbPath });
  assert.equal(await exported(dbPath), atBackup);
  assert.equal((await history(restarted.url, kept)).status, 200);
  await restarted.stop('SIGTERM');
});

/** Files that are not a good backup of this service, each wrong in one way. */
async function makeBadBackups(dbPath: string, dir: string) {
  const notADatabase = path.join(dir, 'notes.txt');
  writeFileSync(notADatabase, 'not a database at all, but long enough to have a header'.repeat(20));
  const otherDatabase = path.join(dir, 'other.db');
  const other = new DatabaseSync(otherDatabase);
  other.exec('CREATE TABLE photos (id INTEGER PRIMARY KEY)');
  other.close();
  const newer = path.join(dir, 'newer.db');
  assert.equal((await runOwner(dbPath, ['backup', newer])).code, 0);
  const fromNewer = new DatabaseSync(newer);
  fromNewer.exec('PRAGMA user_version = 999');
  fromNewer.close();
  // Backups of this service, each changed in one way: only a schema the migrations make is restored.
  const crafted = async (name: string, change: string) => {
    const file = path.join(dir, `${name}.db`);
    assert.equal((await runOwner(dbPath, ['backup', file])).code, 0);
    const db = new DatabaseSync(file);
    db.exec(`PRAGMA foreign_keys = OFF; ${change}`);
    db.close();
    return file;
  };
  const noOutbox = await crafted('no-outbox', 'DROP TABLE outbox');
  const noColumn = await crafted('no-column', 'ALTER TABLE conversations DROP COLUMN changed_at');
  const trigger = await crafted(
    'trigger',
    'CREATE TRIGGER wipe AFTER INSERT ON messages BEGIN ' +
      'DELETE FROM messages WHERE conversation_id <> new.conversation_id; END',
  );
  const view = await crafted('view', 'CREATE VIEW everything AS SELECT * FROM messages');
  const index = await crafted('index', 'CREATE INDEX extra ON messages (created_at)');
  const link = path.join(dir, 'link.db');
  symlinkSync(noOutbox, link);
  return { notADatabase, otherDatabase, newer, noOutbox, noColumn, trigger, view, index, link };
}

test('restore refuses a file that is not a good backup and changes nothing', async (t) => {
  const service = await startTestService(t);
  await openConversation(service.url, { message: 'still here' });
  const before = await exported(service.dbPath);
  const dir = tempDir(t);
  const bad = await makeBadBackups(service.dbPath, dir);

  const refusals: [string[], RegExp][] = [
    [['restore'], /give one backup file/],
    [['restore', path.join(dir, 'missing.db')], /missing\.db does not exist/],
    [['restore', bad.notADatabase], /not a readable SQLite database|cannot be opened/],
    [['restore', bad.otherDatabase], /not one of this service/],
    [['restore', bad.newer], /newer release \(schema 999/],
    [
      ['restore', bad.noOutbox],
      /not a database this service's migrations make \(schema \d+\): the table outbox is missing/,
    ],
    [['restore', bad.noColumn], /table conversations lacks the column changed_at/],
    [['restore', bad.trigger], /there is a trigger wipe that the migrations do not make/],
    [['restore', bad.view], /there is a view everything that the migrations do not make/],
    [['restore', bad.index], /there is an index extra that the migrations do not make/],
    [['restore', bad.link], /link\.db is a symbolic link; give the backup file itself/],
    [['restore', service.dbPath], /is the live database/],
  ];
  for (const [args, says] of refusals) {
    const result = await runOwner(service.dbPath, args);
    assert.equal(result.code, 1, `${args.join(' ')}: ${result.stdout}`);
    assert.match(result.stderr, says);
    assert.equal(result.stderr.trim().split('\n').length, 1, 'one line on stderr');
  }
  assert.equal(await exported(service.dbPath), before, 'nothing changed');
  assert.ok(!readdirSync(path.dirname(service.dbPath)).some((name) => name.includes('restoring')));
});

test('restore onto a new machine creates the database it fills', async (t) => {
  const service = await startTestService(t);
  await openConversation(service.url, { message: 'moving machines' });
  const backupFile = path.join(tempDir(t), 'backup.db');
  assert.equal((await runOwner(service.dbPath, ['backup', backupFile])).code, 0);
  const newPath = path.join(tempDir(t), 'fresh', 'service.db');
  const restored = await runOwner(newPath, ['restore', backupFile]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(await exported(newPath), await exported(service.dbPath));
  assert.equal(statSync(path.dirname(newPath)).mode & 0o777, 0o700);
});

test('a backup of the previous schema is migrated before it reaches the running server', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url, { message: 'from the previous release' });
  const backupFile = path.join(tempDir(t), 'previous.db');
  assert.equal((await runOwner(service.dbPath, ['backup', backupFile])).code, 0);
  asOlderRelease(backupFile); // as the previous release wrote it: one schema version older
  const restored = await runOwner(service.dbPath, ['restore', backupFile]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal((await history(service.url, conversation)).status, 200);
  assert.equal((await runOwner(service.dbPath, ['block', conversation.id, '--sender'])).code, 0);
  assert.equal((await runOwner(service.dbPath, ['close', conversation.id])).code, 0);
  const live = new DatabaseSync(service.dbPath, { readOnly: true });
  t.after(() => live.close());
  const version = (live.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  assert.equal(version, MIGRATIONS.length, 'migrated on the way in');
  assert.deepEqual(live.prepare('SELECT * FROM contacts').all(), [], "the newest migration's table is there");
  assert.equal(live.prepare('SELECT blocked_by FROM conversations').get()?.blocked_by, 'address:' +
    (live.prepare('SELECT sender FROM conversations').get()?.sender as string).slice('address:'.length));
});

test('a rollback: the pre-upgrade backup is restored over a database that a newer release migrated', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'service.db');
  const server = await startServerProcess(t, { DB_PATH: dbPath });
  const conversation = await openConversation(server.url, { message: 'before the upgrade' });
  const beforeUpgrade = path.join(dir, 'before-upgrade.db');
  assert.equal((await runOwner(dbPath, ['backup', beforeUpgrade])).code, 0);
  const atBackup = await exported(dbPath);
  await server.stop('SIGTERM');
  const upgraded = new DatabaseSync(dbPath); // what a newer release's migration leaves
  upgraded.exec('CREATE TABLE from_the_future (x TEXT) STRICT; PRAGMA user_version = 999');
  upgraded.close();
  assert.match((await runOwner(dbPath, ['inbox'])).stderr, /newer than this code knows/);

  const restored = await runOwner(dbPath, ['restore', beforeUpgrade]);
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(await exported(dbPath), atBackup);
  const restarted = await startServerProcess(t, { DB_PATH: dbPath });
  assert.equal((await history(restarted.url, conversation)).status, 200);
  await restarted.stop('SIGTERM');
});

test('a restore waits while another connection holds the write lock, then restores the backup', async (t) => {
  const service = await startTestService(t);
  await openConversation(service.url, { message: 'in the backup' });
  const dir = tempDir(t);
  const backupFile = path.join(dir, 'backup.db');
  assert.equal((await runOwner(service.dbPath, ['backup', backupFile])).code, 0);
  const atBackup = await exported(service.dbPath);
  await openConversation(service.url, { message: 'after the backup' });
  const writer = new DatabaseSync(service.dbPath, { timeout: 5000 });
  t.after(() => writer.close());
  writer.exec('BEGIN IMMEDIATE'); // a write in progress, as the server's or the owner's
  const restoring = runOwner(service.dbPath, ['restore', backupFile]);
  const folder = path.dirname(service.dbPath);
  await waitUntil(() => readdirSync(folder).some((name) => name.includes('.restoring-')), 'the restore is under way');
  writer.exec('COMMIT');
  const restored = await restoring;
  assert.equal(restored.code, 0, restored.stderr);
  assert.equal(await exported(service.dbPath), atBackup);
});

test('backup refuses at start-up a database whose schema the migrations did not make; it writes nothing', async (t) => {
  const service = await startTestService(t);
  await openConversation(service.url);
  const live = new DatabaseSync(service.dbPath);
  live.exec('CREATE VIEW leak AS SELECT * FROM messages');
  live.close();
  const file = path.join(tempDir(t), 'backup.db');
  const result = await runOwner(service.dbPath, ['backup', file]);
  assert.equal(result.code, 1);
  // The owner script checks the schema when it opens the database, before any command runs.
  assert.match(result.stderr, /^error: the database at DB_PATH is not one this service's migrations make/);
  assert.match(result.stderr, /there is a view leak/);
  assert.deepEqual(readdirSync(path.dirname(file)), [], 'no backup, and no part of one');
});

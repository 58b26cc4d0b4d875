// The schema moves forward without losing a row: a database of the previous release opens
// with everything in it, and a migration that rebuilds a table (SQLite's way to change a
// column) cannot cascade into deleting the messages.

import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate, MIGRATIONS } from '../../src/store/migrations.ts';
import { Store } from '../../src/store/store.ts';
import { openConversation, request, startTestService, tempDir } from '../helpers.ts';

/** A database as release 1.0.0 made it: its two migrations, a conversation, messages and a day's count. */
function releaseOneDatabase(file: string): void {
  const db = new DatabaseSync(file);
  migrate(db, MIGRATIONS.slice(0, 2));
  db.exec(`INSERT INTO conversations
      (id, token_hash, creation_key, status, metadata, created_at, expires_at, last_seq, latest_owner_seq)
    VALUES ('8a1c1e2a-1111-4c33-9d2c-0d8f6c1e2a11', randomblob(32), 'old-opening-key', 'answered',
            '{"agent_name":"old"}', '2026-11-23T10:00:00.000Z', '2027-11-23T10:00:00.000Z', 3, 3)`);
  const insert = db.prepare(
    `INSERT INTO messages (conversation_id, seq, author, message, created_at, idempotency_key)
      VALUES ('8a1c1e2a-1111-4c33-9d2c-0d8f6c1e2a11', ?, ?, ?, ?, ?)`,
  );
  insert.run(1, 'client', 'first', '2026-11-23T10:00:00.000Z', null);
  insert.run(2, 'client', 'second', '2026-11-23T10:05:00.000Z', 'old-follow-up-key');
  insert.run(3, 'owner', 'third', '2026-11-23T11:30:00.000Z', null);
  db.exec("INSERT INTO daily_counts (day, count) VALUES ('2026-11-23', 3)");
  db.close();
}

test('a database of the previous release is migrated with every conversation, message and count', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'service.db');
  releaseOneDatabase(file);
  const store = new Store(file);
  t.after(() => store.close());
  assert.equal(
    (store.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version,
    MIGRATIONS.length,
  );
  assert.equal(store.messageCount(), 3);
  const id = '8a1c1e2a-1111-4c33-9d2c-0d8f6c1e2a11';
  assert.deepEqual(
    store.messagesAfter(id, 0, 10).map((m) => [m.seq, m.author, m.message]),
    [
      [1, 'client', 'first'],
      [2, 'client', 'second'],
      [3, 'owner', 'third'],
    ],
  );
  assert.equal(store.quotaCounts.count('2026-11-23', 'all'), 3, "the day's count moved to the per-sender counts");
  assert.equal(store.messageByKey(id, 'old-opening-key')?.seq, 1, "the opening's key is message 1's key now");
  assert.equal(store.messageByKey(id, 'old-follow-up-key')?.seq, 2);
  assert.equal(store.conversationById(id)?.changed_at, '2026-11-23T11:30:00.000Z', 'changed when last written');
});

test('a migration that rebuilds the conversations table keeps every message', async (t) => {
  const dir = tempDir(t);
  const service = await startTestService(t, { dir });
  for (let i = 0; i < 3; i++) {
    const { id, token } = await openConversation(service.url);
    await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: `rebuild-test-key-${i}`,
      json: { message: 'more' },
    });
  }
  await service.close();
  const rebuild = `CREATE TABLE conversations_new AS SELECT * FROM conversations;
    DROP TABLE conversations;
    CREATE TABLE conversations (
      id TEXT PRIMARY KEY, token_hash BLOB NOT NULL UNIQUE, creation_key TEXT NOT NULL UNIQUE,
      status TEXT NOT NULL, blocked INTEGER NOT NULL DEFAULT 0, metadata TEXT NOT NULL, created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL, last_seq INTEGER NOT NULL, latest_owner_seq INTEGER NOT NULL DEFAULT 0,
      changed_at TEXT, verified_agent TEXT, sender TEXT, blocked_by TEXT, closed_by TEXT) STRICT;
    INSERT INTO conversations SELECT * FROM conversations_new;
    DROP TABLE conversations_new;`;
  const db = new DatabaseSync(path.join(dir, 'service.db'), { enableForeignKeyConstraints: true });
  t.after(() => db.close());
  migrate(db, [...MIGRATIONS, rebuild]);
  assert.equal(
    (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n,
    6,
    'no message cascaded away',
  );
  assert.equal(
    (db.prepare('PRAGMA foreign_keys').get() as { foreign_keys: number }).foreign_keys,
    1,
    'keys are on again',
  );
  const orphaning = 'DELETE FROM conversations WHERE rowid = (SELECT min(rowid) FROM conversations)';
  assert.throws(() => migrate(db, [...MIGRATIONS, rebuild, orphaning]), /rows pointing at nothing; nothing changed/);
  assert.equal((db.prepare('SELECT count(*) AS n FROM conversations').get() as { n: number }).n, 3, 'rolled back');
});

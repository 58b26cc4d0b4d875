// Group commit (src/store/group-commit.ts): the writes of one event-loop turn share one write
// transaction and one COMMIT, each in a savepoint of its own, so a refused write undoes only
// itself; none settles before the COMMIT, and a failed COMMIT fails every write of the turn. A
// turn whose write lock stays busy begins nothing.

import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { createBatch } from '../../src/store/group-commit.ts';
import { followUp } from '../../src/rules/conversations.ts';
import { newKey, request, startTestService, UNLIMITED_QUOTAS } from '../helpers.ts';
import { databaseFile, openStore } from './seed-rows.ts';

test('the writes of one turn are committed by one COMMIT: another connection sees none, then all', async (t) => {
  const dbPath = databaseFile(t);
  const store = openStore(t, dbPath);
  const reader = new DatabaseSync(dbPath, { readOnly: true });
  t.after(() => reader.close());
  const seen = () => reader.prepare("SELECT count(*) AS n FROM settings WHERE name LIKE 'turn-%'").get()?.n;
  const batch = createBatch(store);
  const written = ['turn-1', 'turn-2', 'turn-3'].map((name) => batch(() => store.recordSetting(name, 'x')));
  assert.equal(store.inTransaction(), true, 'the turn holds one open transaction');
  assert.equal(seen(), 0, 'none is committed within the turn');
  await Promise.all(written);
  assert.equal(store.inTransaction(), false);
  assert.equal(seen(), 3, 'all three are committed together');
  await batch(() => store.recordSetting('turn-4', 'x'));
  assert.equal(seen(), 4, 'the next turn begins and commits a transaction of its own');
});

test('a turn whose write lock another connection holds past the busy timeout begins nothing', async (t) => {
  const dbPath = databaseFile(t);
  const holder = openStore(t, dbPath);
  const store = openStore(t, dbPath, 50);
  const batch = createBatch(store);
  holder.beginWrite();
  let ran = false;
  await assert.rejects(
    batch(() => (ran = true)),
    (err: { errcode?: number }) => (err.errcode ?? 0) % 256 === 5, // SQLITE_BUSY
  );
  assert.equal(ran, false, 'the write was never run');
  assert.equal(store.inTransaction(), false);
  holder.commitWrite();
  await batch(() => store.recordSetting('later', 'x'));
  assert.equal(holder.setting('later'), 'x', 'the next write begins anew');
});

test('writes committed together: one that fails inside the batch spoils no other', async (t) => {
  const service = await startTestService(t);
  const opened = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: 'one' },
  });
  const batch = createBatch(service.store);
  const write = (conversationId: string, n: number) => () =>
    followUp(
      service.store,
      conversationId,
      { message: `batched ${n}`, key: `batch-key-${n}` },
      { at: Date.now(), quotas: UNLIMITED_QUOTAS, addressHash: 'test', agent: null, signature: null },
    );
  // Called in the same event-loop turn, so they share one transaction and one commit.
  const results = await Promise.allSettled([
    batch(write(opened.body.id, 1)),
    batch(write('00000000-0000-4000-8000-000000000000', 2)), // no such conversation: refused
    batch(write(opened.body.id, 3)),
    batch(write(opened.body.id, 1)), // the same key again, in the same batch
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  );
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value.duplicate : null)),
    [false, null, false, true],
  );
  const history = await request(service.url, 'GET', `/api/v1/conversations/${opened.body.id}/messages`, {
    token: opened.body.access_token,
  });
  assert.deepEqual(
    history.body.items.map((m: { message: string }) => m.message),
    ['one', 'batched 1', 'batched 3'],
  );
});

test('no write of a batch settles before its commit, and a failed commit fails them all', async (t) => {
  const service = await startTestService(t);
  const opened = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: 'one' },
  });
  const batch = createBatch(service.store);
  let settled = 0;
  const written = [1, 2].map((n) =>
    batch(() =>
      followUp(
        service.store,
        opened.body.id,
        { message: `m${n}`, key: `commit-key-${n}` },
        { at: Date.now(), quotas: UNLIMITED_QUOTAS, addressHash: 'test', agent: null, signature: null },
      ),
    ).finally(() => settled++),
  );
  await Promise.resolve();
  assert.equal(settled, 0, 'nothing settles within the turn of the writes');
  // A foreign key checked only at COMMIT makes the turn's COMMIT fail.
  service.store.db.exec('PRAGMA defer_foreign_keys = ON');
  service.store.db.exec(
    `INSERT INTO messages (conversation_id, seq, author, message, created_at)
      VALUES ('no-such-conversation', 1, 'client', 'x', 'x')`,
  );
  const results = await Promise.allSettled(written);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.equal(service.store.messagesAfter(opened.body.id, 0, 10).length, 1, 'neither write was stored');
});

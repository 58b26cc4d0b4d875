// The store's own rules (src/store/store.ts): a transaction is all or nothing, a nested one is a
// savepoint that a failure undoes alone, a rehearsal writes nothing, a write waits out the busy
// timeout for another connection's lock; and each query of conversations, messages and settings.
// (WAL with synchronous=FULL: test/store/durability.test.ts.)

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { Conversation } from '../../src/store/store.ts';
import { addMessage, databaseFile, memoryStore, openStore, seedConversation } from './seed-rows.ts';

const refused = new Error('refused');

test('a transaction commits its writes together, and a failed one leaves none of them behind', (t) => {
  const store = memoryStore(t);
  assert.equal(
    store.transaction(() => {
      store.recordSetting('a', '1');
      store.recordSetting('b', '2');
      return 'done';
    }),
    'done',
  );
  assert.deepEqual([store.setting('a'), store.setting('b')], ['1', '2']);
  assert.throws(
    () =>
      store.transaction(() => {
        store.recordSetting('a', 'changed');
        store.recordSetting('c', '3');
        throw refused;
      }),
    refused,
  );
  assert.deepEqual([store.setting('a'), store.setting('c')], ['1', undefined]);
  assert.equal(store.inTransaction(), false, 'nothing is left open');
});

test('a failed transaction inside another undoes only its own writes; the outer one goes on', (t) => {
  const store = memoryStore(t);
  store.transaction(() => {
    store.recordSetting('outer', '1');
    const inner = () => {
      store.recordSetting('inner', '2');
      store.recordSetting('outer', '9');
      throw refused;
    };
    assert.throws(() => store.transaction(inner), refused);
    assert.equal(store.inTransaction(), true, 'the outer transaction is still open');
    store.recordSetting('after', '3');
  });
  assert.deepEqual([store.setting('outer'), store.setting('inner'), store.setting('after')], ['1', undefined, '3']);
  store.transaction(() => store.transaction(() => store.recordSetting('nested', '4')));
  assert.equal(store.setting('nested'), '4', 'a nested transaction that succeeds is kept');
});

test('a rehearsal answers what its function answers or throws, and writes nothing, alone or nested', (t) => {
  const store = memoryStore(t);
  assert.equal(
    store.rehearse(() => {
      store.recordSetting('rehearsed', '1');
      return store.setting('rehearsed');
    }),
    '1',
    'inside, the write is seen',
  );
  assert.equal(store.setting('rehearsed'), undefined, 'after, it is gone');
  const thrown = () => {
    store.recordSetting('thrown', '1');
    throw refused;
  };
  assert.throws(() => store.rehearse(thrown), refused);
  assert.equal(store.setting('thrown'), undefined);
  store.transaction(() => {
    store.recordSetting('kept', '1');
    store.rehearse(() => store.recordSetting('rehearsed', '2'));
    assert.equal(store.setting('kept'), '1', "a nested rehearsal keeps the outer transaction's writes");
  });
  assert.deepEqual([store.setting('kept'), store.setting('rehearsed')], ['1', undefined]);
  assert.equal(store.inTransaction(), false);
});

test("a write waits the busy timeout for another connection's write lock, then fails as busy", (t) => {
  const dbPath = databaseFile(t);
  assert.deepEqual({ ...openStore(t, dbPath).db.prepare('PRAGMA busy_timeout').get() }, { timeout: 5000 }, '5 s');
  const holder = openStore(t, dbPath);
  const waiter = openStore(t, dbPath, 200);
  holder.beginWrite();
  const started = performance.now();
  assert.throws(
    () => waiter.transaction(() => waiter.recordSetting('late', '1')),
    (err: { errcode?: number }) => (err.errcode ?? 0) % 256 === 5, // SQLITE_BUSY
  );
  assert.ok(performance.now() - started >= 150, 'it waited for the lock before giving up');
  assert.equal(waiter.inTransaction(), false, 'nothing was begun');
  holder.commitWrite();
  waiter.transaction(() => waiter.recordSetting('late', '1'));
  assert.equal(holder.setting('late'), '1', 'once the lock is free, the write goes through');
});

test('a conversation reads back as written, by id and by credential digest; its creation key is used once', (t) => {
  const store = memoryStore(t);
  const { conversation, token } = seedConversation(store, { verified_agent: 'https://agent.test' });
  const digest = '00'.repeat(32);
  assert.equal(store.conversationById(conversation.id)?.verified_agent, 'https://agent.test');
  assert.deepEqual(store.conversationByTokenHash(createHash('sha256').update(token).digest('hex')), conversation);
  assert.equal(store.conversationByTokenHash(digest), undefined);
  assert.equal(store.conversationById('00000000-0000-4000-8000-000000000000'), undefined);
  store.insertConversation({ ...conversation, id: 'other' }, digest, 'the-opening-key');
  assert.equal(store.creationKeyUsed('the-opening-key'), true);
  assert.equal(store.creationKeyUsed('another-key'), false);
  assert.throws(() => store.insertConversation({ ...conversation, id: 'third' }, '11'.repeat(32), 'the-opening-key'));
});

test('messages are found by seq and by key, read after a seq in order, and the newest oldest first', (t) => {
  const store = memoryStore(t);
  const { conversation } = seedConversation(store, {}, 'one');
  addMessage(store, conversation.id, 'owner', 'two', '2026-03-10T12:01:00.000Z');
  addMessage(store, conversation.id, 'client', 'three', '2026-03-10T12:02:00.000Z', { key: 'key-three' });
  assert.deepEqual({ ...store.messageBySeq(conversation.id, 2) }, {
    seq: 2,
    author: 'owner',
    message: 'two',
    created_at: '2026-03-10T12:01:00.000Z',
    verified_agent: null,
    choices: null,
    reply_by: null,
    choice_for_seq: null,
    choice_index: null,
    choice_text: null,
  });
  assert.equal(store.messageByKey(conversation.id, 'key-three')?.seq, 3);
  assert.equal(store.messageByKey(conversation.id, 'no-such-key'), undefined);
  assert.deepEqual(
    store.messagesAfter(conversation.id, 1, 1).map((m) => m.message),
    ['two'],
  );
  assert.deepEqual(
    store.newestMessages(conversation.id, 2).map((m) => [m.message, m.key]),
    [
      ['two', null],
      ['three', 'key-three'],
    ],
  );
  assert.deepEqual(store.conversationById(conversation.id)?.last_seq, 3);
});

test('who closed a conversation is kept only while it is closed, and the name of its block only while blocked', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  store.setStatus(id, 'closed', '2026-03-10T13:00:00.000Z', 'agent');
  assert.deepEqual(pick(store.conversationById(id)), ['closed', 'agent', '2026-03-10T13:00:00.000Z', 0, null]);
  store.setStatus(id, 'open', '2026-03-10T14:00:00.000Z', 'agent');
  assert.deepEqual(pick(store.conversationById(id)), ['open', null, '2026-03-10T14:00:00.000Z', 0, null]);
  store.setBlocked(id, true, 'site:agent.test');
  assert.deepEqual(pick(store.conversationById(id)).slice(3), [1, 'site:agent.test']);
  store.setBlocked(id, false, 'site:agent.test');
  assert.deepEqual(pick(store.conversationById(id)).slice(3), [0, null]);
});

test('deleteExpired deletes the conversations expired by then, with their messages, and counts them', (t) => {
  const store = memoryStore(t);
  const gone = seedConversation(store, { expires_at: '2026-03-11T00:00:00.000Z' }).conversation;
  const kept = seedConversation(store, { expires_at: '2026-03-11T00:00:00.001Z' }).conversation;
  assert.equal(store.deleteExpired('2026-03-11T00:00:00.000Z'), 1);
  assert.equal(store.conversationById(gone.id), undefined);
  assert.deepEqual(store.messagesAfter(gone.id, 0, 10), []);
  assert.equal(store.messagesAfter(kept.id, 0, 10).length, 1);
  assert.equal(store.messageCount(), 1);
});

test('a recorded setting is replaced, a setting recorded once keeps its first value', (t) => {
  const store = memoryStore(t);
  assert.equal(store.setting('quotas'), undefined);
  store.recordSetting('quotas', 'a');
  store.recordSetting('quotas', 'b');
  assert.equal(store.setting('quotas'), 'b');
  assert.equal(store.settingOnce('address-key', 'first'), 'first');
  assert.equal(store.settingOnce('address-key', 'second'), 'first');
});

test('conversations are counted by status when unblocked, blocked ones apart, and every message', (t) => {
  const store = memoryStore(t);
  assert.deepEqual(store.conversationCounts(), { open: 0, answered: 0, closed: 0, blocked: 0 });
  seedConversation(store);
  seedConversation(store, { status: 'answered' });
  seedConversation(store, { status: 'closed', closed_by: 'owner' });
  seedConversation(store, { blocked: 1 });
  seedConversation(store, { status: 'closed', blocked: 1 });
  assert.deepEqual(store.conversationCounts(), { open: 1, answered: 1, closed: 1, blocked: 2 });
  assert.equal(store.messageCount(), 5);
});

/** What setStatus and setBlocked change. */
function pick(conversation: Conversation | undefined) {
  const c = conversation as Conversation;
  return [c.status, c.closed_by, c.changed_at, c.blocked, c.blocked_by];
}

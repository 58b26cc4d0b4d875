// The conversation cache (src/conversation-cache.ts) may only ever answer with what is
// committed and current; these tests hold it to that where HTTP cannot reach.

import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { CachingStore } from '../src/conversation-cache.ts';
import { openConversation, ownerReply } from '../src/conversations.ts';
import { Store } from '../src/store.ts';
import { tempDir } from './helpers.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const open = (store: Store, n: number) =>
  openConversation(
    store,
    { message: `hello ${n}`, metadata: {}, key: `cache-test-key-${n}` },
    { at: Date.now(), dailyLimit: 0 },
  );

function cachingStore(t: TestContext, capacity?: number): CachingStore {
  const store = new CachingStore(path.join(tempDir(t), 'service.db'), undefined, capacity);
  t.after(() => store.close());
  return store;
}

test('a conversation read inside a write transaction is not kept, so a rollback leaves no trace', async (t) => {
  const store = cachingStore(t);
  const { conversation, token } = open(store, 1);
  await nextTurn();
  assert.throws(() =>
    store.transaction(() => {
      ownerReply(store, conversation.id, 'never committed', { at: Date.now(), dailyLimit: null });
      assert.equal(
        store.conversationByTokenHash(hash('sha256', token))?.last_seq,
        2,
        'the transaction sees its own write',
      );
      throw new Error('roll back');
    }),
  );
  assert.equal(store.conversationByTokenHash(hash('sha256', token))?.last_seq, 1);
});

test('a change another connection commits shows on the next event-loop turn', async (t) => {
  const store = cachingStore(t);
  const { conversation, token } = open(store, 1);
  await nextTurn();
  assert.equal(store.conversationByTokenHash(hash('sha256', token))?.status, 'open'); // now kept
  const owner = new Store(store.db.location() as string);
  t.after(() => owner.close());
  ownerReply(owner, conversation.id, 'An answer.', { at: Date.now(), dailyLimit: null });
  await nextTurn();
  assert.equal(store.conversationByTokenHash(hash('sha256', token))?.status, 'answered');
});

test("this server's own writes are seen at once, and lookups stay right past the capacity", async (t) => {
  const store = cachingStore(t, 3);
  const opened = [1, 2, 3, 4, 5].map((n) => open(store, n));
  await nextTurn();
  for (let round = 0; round < 2; round++) {
    for (const { conversation, token } of opened)
      assert.equal(store.conversationByTokenHash(hash('sha256', token))?.id, conversation.id);
  }
  const { conversation, token } = opened[4]!;
  ownerReply(store, conversation.id, 'An answer.', { at: Date.now(), dailyLimit: null });
  assert.equal(store.conversationByTokenHash(hash('sha256', token))?.latest_owner_seq, 2);
  assert.equal(store.conversationByTokenHash(hash('sha256', 'never issued')), undefined);
});

test('credentials issued through another connection, or this one, are known at once', async (t) => {
  const store = cachingStore(t);
  const mine = open(store, 1);
  assert.equal(store.conversationByTokenHash(hash('sha256', 'never issued')), undefined); // reads which credentials exist
  const other = new Store(store.db.location() as string);
  t.after(() => other.close());
  const theirs = open(other, 2);
  const ours = open(store, 3);
  assert.equal(
    store.conversationByTokenHash(hash('sha256', ours.token))?.id,
    ours.conversation.id,
    "this server's own, at once",
  );
  await nextTurn();
  for (const { conversation, token } of [mine, theirs, ours])
    assert.equal(store.conversationByTokenHash(hash('sha256', token))?.id, conversation.id);
});

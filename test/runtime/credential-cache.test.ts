// The credential cache (src/credential-cache.ts) may only ever answer with what the database
// holds: these tests write the way no rule does yet (plain SQL, another connection, a
// rolled-back transaction) and hold it to that.

import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { CredentialCache } from '../../src/runtime/credential-cache.ts';
import { openConversation, ownerReply } from '../../src/rules/conversations.ts';
import { Store } from '../../src/store/store.ts';
import { tempDir, UNLIMITED_QUOTAS } from '../helpers.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const digest = (token: string) => hash('sha256', token);

function setUp(t: TestContext, capacity?: number) {
  const store = new Store(path.join(tempDir(t), 'service.db'));
  t.after(() => store.close());
  const open = (n: number) =>
    openConversation(
      store,
      { message: `hello ${n}`, metadata: {}, key: `cache-test-key-${n}` },
      { at: Date.now(), quotas: UNLIMITED_QUOTAS, addressHash: 'test', agent: null, signature: null },
    );
  return { store, cache: new CredentialCache(store, capacity), open };
}

test('a write by any code on this connection, even plain SQL, is seen by the next lookup', async (t) => {
  const { store, cache, open } = setUp(t);
  const { conversation, token } = open(1);
  await nextTurn();
  assert.equal(cache.lookup(digest(token))?.blocked, 0);
  assert.equal(cache.size, 1, 'now kept');
  store.db.prepare('UPDATE conversations SET blocked = 1 WHERE id = ?').run(conversation.id); // no rule wrote this
  assert.equal(cache.lookup(digest(token))?.blocked, 1, 'in the same turn');
  store.db.prepare('DELETE FROM conversations WHERE id = ?').run(conversation.id);
  assert.equal(cache.lookup(digest(token)), undefined, 'a deleted conversation is not served');
});

test('a conversation read inside a write transaction is not kept, so a rollback leaves no trace', async (t) => {
  const { store, cache, open } = setUp(t);
  const { conversation, token } = open(1);
  assert.throws(() =>
    store.transaction(() => {
      ownerReply(store, conversation.id, 'never committed', { at: Date.now(), dailyMaximum: 0 });
      assert.equal(cache.lookup(digest(token))?.last_seq, 2, 'the transaction sees its own write');
      throw new Error('roll back');
    }),
  );
  assert.equal(cache.lookup(digest(token))?.last_seq, 1);
});

test('a change another connection commits shows on the next event-loop turn', async (t) => {
  const { store, cache, open } = setUp(t);
  const { conversation, token } = open(1);
  await nextTurn();
  assert.equal(cache.lookup(digest(token))?.status, 'open'); // now kept
  const owner = new Store(store.db.location() as string);
  t.after(() => owner.close());
  ownerReply(owner, conversation.id, 'An answer.', { at: Date.now(), dailyMaximum: 0 });
  await nextTurn();
  assert.equal(cache.lookup(digest(token))?.status, 'answered');
  const theirs = new CredentialCache(owner); // and credentials issued elsewhere are found at once
  assert.equal(theirs.lookup(digest(token))?.id, conversation.id);
});

test('lookups stay right past the capacity, and an unknown credential matches nothing', async (t) => {
  const { cache, open } = setUp(t, 3);
  const opened = [1, 2, 3, 4, 5].map(open);
  await nextTurn();
  for (let round = 0; round < 2; round++) {
    for (const { conversation, token } of opened) assert.equal(cache.lookup(digest(token))?.id, conversation.id);
    assert.ok(cache.size <= 3);
  }
  assert.equal(cache.lookup(digest('never issued')), undefined);
});

// The SQL of the senders the owner blocked (src/store/sender-blocks.ts), on a real store: one lookup
// for up to four senders, a block and its lifting each said once, and the conversations a block finds.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryStore, seedConversation } from './seed-rows.ts';

test('anyBlocked looks up to four senders at once, skipping empty places', (t) => {
  const store = memoryStore(t);
  store.senderBlocks.block('site:agent.test', '2026-03-10T12:00:00.000Z', 'c1');
  assert.equal(store.senderBlocks.anyBlocked(['address:a', null, undefined, 'site:agent.test']), true);
  assert.equal(store.senderBlocks.anyBlocked(['address:a', 'agent:https://agent.test', null]), false);
  assert.equal(store.senderBlocks.anyBlocked([null, null, null, null]), false, 'null matches no sender');
  assert.equal(store.senderBlocks.anyBlocked([]), false);
  assert.equal(store.senderBlocks.isBlocked('site:agent.test'), true);
  assert.equal(store.senderBlocks.isBlocked('site:other.test'), false);
});

test('a block and its lifting are each done once, and every block is listed by sender with when', (t) => {
  const store = memoryStore(t);
  assert.equal(store.senderBlocks.block('address:hash', '2026-03-10T12:00:00.000Z', 'c1'), true);
  assert.equal(store.senderBlocks.block('address:hash', '2026-03-11T12:00:00.000Z', 'c2'), false, 'already');
  assert.equal(store.senderBlocks.block('agent:https://a.test', '2026-03-10T13:00:00.000Z', 'c3'), true);
  assert.deepEqual(
    store.senderBlocks.all().map((row) => ({ ...row })),
    [
      { sender: 'address:hash', blocked_at: '2026-03-10T12:00:00.000Z' },
      { sender: 'agent:https://a.test', blocked_at: '2026-03-10T13:00:00.000Z' },
    ],
    'the first block is kept, with its time',
  );
  assert.equal(store.senderBlocks.unblock('address:hash'), true);
  assert.equal(store.senderBlocks.unblock('address:hash'), false, 'none left');
  assert.equal(store.senderBlocks.isBlocked('address:hash'), false);
});

test("a sender's conversations, the signed ones, and those a block blocked, each oldest first", (t) => {
  const store = memoryStore(t);
  const at = (minute: number) => `2026-03-10T12:0${minute}:00.000Z`;
  const agent = 'https://a.test';
  const second = seedConversation(store, { created_at: at(2), sender: `agent:${agent}`, verified_agent: agent });
  const first = seedConversation(store, { created_at: at(1), sender: `agent:${agent}`, verified_agent: agent });
  const unsigned = seedConversation(store, { created_at: at(0), sender: 'address:hash' });
  const other = seedConversation(store, { created_at: at(3), sender: 'agent:https://b.test', verified_agent: 'x' });
  store.setBlocked(first.conversation.id, true, `agent:${agent}`);
  assert.deepEqual(
    store.senderBlocks.conversationsOf(`agent:${agent}`).map((row) => ({ ...row })),
    [
      { id: first.conversation.id, status: 'open', blocked: 1, blocked_by: `agent:${agent}`, verified_agent: agent },
      { id: second.conversation.id, status: 'open', blocked: 0, blocked_by: null, verified_agent: agent },
    ],
  );
  assert.deepEqual(
    store.senderBlocks.conversationsOf('address:hash').map((row) => row.id),
    [unsigned.conversation.id],
  );
  assert.deepEqual(
    store.senderBlocks.signedConversations().map((row) => row.id),
    [first, second, other].map((seeded) => seeded.conversation.id),
    'every signed one, and no unsigned one',
  );
  assert.deepEqual(store.senderBlocks.conversationsBlockedBy(`agent:${agent}`), [first.conversation.id]);
  assert.deepEqual(store.senderBlocks.conversationsBlockedBy('site:a.test'), []);
});

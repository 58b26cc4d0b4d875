// The SQL of what is kept about senders (src/store/senders.ts), on a real store. The day's counts and
// the hour's openings: counts per day and key that never go below 0, the busiest sender of a kind, the
// openings of a sliding window, and a conversation's client messages by what each was counted against.
// The senders the owner blocked: one lookup for up to four senders, a block and its lifting each said
// once, and the conversations a block finds.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMessage, memoryStore, seedConversation } from './seed-rows.ts';

test("a sender's count of a day starts at 0, adds 1 or n, and gives back never below 0", (t) => {
  const store = memoryStore(t);
  const counts = store.quotaCounts;
  assert.equal(counts.count('2026-03-10', 'all'), 0);
  counts.add('2026-03-10', 'all');
  counts.add('2026-03-10', 'all', 3);
  counts.add('2026-03-10', 'owner');
  assert.deepEqual([counts.count('2026-03-10', 'all'), counts.count('2026-03-10', 'owner')], [4, 1]);
  assert.equal(counts.count('2026-03-11', 'all'), 0, 'each day apart');
  counts.add('2026-03-10', 'all', -3);
  assert.equal(counts.count('2026-03-10', 'all'), 1);
  counts.add('2026-03-10', 'all', -5);
  assert.equal(counts.count('2026-03-10', 'all'), 0, 'never below 0');
  counts.add('2026-03-12', 'unverified', -1);
  assert.equal(counts.count('2026-03-12', 'unverified'), 0, 'nor when first given back');
  counts.add('2026-03-12', 'unverified');
  assert.equal(counts.count('2026-03-12', 'unverified'), 1);
});

test('the counts of every day before a day are dropped, that day and later kept', (t) => {
  const store = memoryStore(t);
  for (const day of ['2026-03-09', '2026-03-10', '2026-03-11']) store.quotaCounts.add(day, 'all');
  store.quotaCounts.dropBefore('2026-03-10');
  assert.deepEqual(
    ['2026-03-09', '2026-03-10', '2026-03-11'].map((day) => store.quotaCounts.count(day, 'all')),
    [0, 1, 1],
  );
});

test('busiest names the sender of one kind that stored most that day, and no other kind', (t) => {
  const counts = memoryStore(t).quotaCounts;
  counts.add('2026-03-10', 'conversation:a', 2);
  counts.add('2026-03-10', 'conversation:b', 5);
  counts.add('2026-03-11', 'conversation:a', 9);
  counts.add('2026-03-10', 'address:x', 7);
  counts.add('2026-03-10', 'site:agent.test', 1);
  counts.add('2026-03-10', 'all', 99);
  assert.deepEqual(counts.busiest('2026-03-10', 'conversation'), { sender: 'conversation:b', count: 5 });
  assert.deepEqual(counts.busiest('2026-03-10', 'address'), { sender: 'address:x', count: 7 });
  assert.deepEqual(counts.busiest('2026-03-10', 'site'), { sender: 'site:agent.test', count: 1 });
  assert.equal(counts.busiest('2026-03-12', 'conversation'), undefined);
});

test('the openings of an address are counted after an instant, with the oldest; older ones are dropped', (t) => {
  const counts = memoryStore(t).quotaCounts;
  assert.deepEqual({ ...counts.openings('a', 0) }, { count: 0, oldest: null });
  for (const at of [1000, 2000, 3000]) counts.recordOpening('a', at);
  counts.recordOpening('b', 2500);
  assert.deepEqual({ ...counts.openings('a', 1000) }, { count: 2, oldest: 2000 }, 'after, not at, the instant');
  assert.deepEqual({ ...counts.openings('b', 0) }, { count: 1, oldest: 2500 });
  counts.dropOpeningsBefore(2000);
  assert.deepEqual({ ...counts.openings('a', 0) }, { count: 1, oldest: 3000 }, 'dropped up to and at the instant');
});

test("a conversation's client messages in [from, to) are counted by what each was counted against", (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store, { sender: 'address:h' }).conversation; // 12:00, address:h
  const other = seedConversation(store).conversation.id;
  addMessage(store, id, 'client', 'b', '2026-03-10T13:00:00.000Z', { sender: 'site:agent.test' });
  addMessage(store, id, 'owner', 'c', '2026-03-10T13:30:00.000Z');
  addMessage(store, id, 'client', 'd', '2026-03-10T14:00:00.000Z', { sender: 'site:agent.test' });
  addMessage(store, id, 'client', 'e', '2026-03-10T15:00:00.000Z', { sender: 'address:h' });
  addMessage(store, other, 'client', 'f', '2026-03-10T13:00:00.000Z');
  const between = store.quotaCounts.clientMessagesBetween(id, '2026-03-10T12:00:00.000Z', '2026-03-10T15:00:00.000Z');
  assert.deepEqual(
    between.map((row) => ({ ...row })).sort((a, b) => String(a.sender).localeCompare(String(b.sender))),
    [
      { sender: 'address:h', count: 1 },
      { sender: 'site:agent.test', count: 2 },
    ],
    "the owner's, another conversation's and one at `to` are not counted",
  );
});

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

// The SQL only the owner script runs (src/store/owner-queries.ts), on a real store: the inbox's order,
// every conversation, ids by prefix, client messages and agents' closes since a time, the verified
// agents seen, and the conversations that name one another.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMessage, memoryStore, seedConversation } from './seed-rows.ts';

const at = (hour: number) => `2026-03-10T${String(hour).padStart(2, '0')}:00:00.000Z`;

test('the inbox: waiting ones first, longest waiting on top; then blocked ones; then the rest, newest first', (t) => {
  const store = memoryStore(t);
  const seed = (hour: number, fields = {}) =>
    seedConversation(store, { created_at: at(hour), ...fields }).conversation.id;
  const waitingLong = seed(1);
  const waitingShort = seed(3);
  const blocked = seed(2, { blocked: 1 });
  const answeredOld = seed(4);
  addMessage(store, answeredOld, 'owner', 'reply', at(5));
  const answeredNew = seed(6);
  addMessage(store, answeredNew, 'owner', 'newest reply', at(7));
  const closed = seed(8, { status: 'closed', closed_by: 'owner' });
  assert.deepEqual(
    store.owner.inbox(false).map((row) => row.id),
    [waitingLong, waitingShort, blocked, answeredNew, answeredOld],
    'closed ones left out',
  );
  assert.deepEqual(
    store.owner.inbox(true).map((row) => row.id),
    [waitingLong, waitingShort, blocked, closed, answeredNew, answeredOld],
  );
  const row = store.owner.inbox(false).find((r) => r.id === answeredNew);
  assert.deepEqual([row?.last_message, row?.last_author, row?.last_message_at], ['newest reply', 'owner', at(7)]);
});

test('every conversation in the order opened, and an id by its prefix, two when ambiguous', (t) => {
  const store = memoryStore(t);
  const later = seedConversation(store, { id: 'abcd2000-0000-4000-8000-000000000000', created_at: at(2) });
  const first = seedConversation(store, { id: 'abcd1000-0000-4000-8000-000000000000', created_at: at(1) });
  seedConversation(store, { id: 'abce1000-0000-4000-8000-000000000000', created_at: at(3) });
  assert.deepEqual(
    store.owner.allConversations().slice(0, 2),
    [first.conversation, later.conversation],
  );
  assert.deepEqual(store.owner.conversationIdsByPrefix('abcd1'), [first.conversation.id]);
  assert.deepEqual(store.owner.conversationIdsByPrefix('abcd'), [first.conversation.id, later.conversation.id]);
  assert.deepEqual(store.owner.conversationIdsByPrefix('abc').length, 2, 'at most two');
  assert.deepEqual(store.owner.conversationIdsByPrefix('f'), []);
});

test("client messages since a time, oldest first with their conversation's metadata; not the owner's", (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store, { created_at: at(1), metadata: '{"agent_name":"a"}' }).conversation;
  addMessage(store, id, 'owner', 'reply', at(2));
  addMessage(store, id, 'client', 'later', at(4), { agent: 'https://agent.test' });
  const other = seedConversation(store, { created_at: at(3), metadata: '{}' }, 'other').conversation.id;
  assert.deepEqual(
    store.owner.clientMessagesSince(at(2)).map((m) => [m.conversation_id, m.seq, m.message, m.metadata]),
    [
      [other, 1, 'other', '{}'],
      [id, 3, 'later', '{"agent_name":"a"}'],
    ],
  );
  assert.equal(store.owner.clientMessagesSince(at(4))[0]?.verified_agent, 'https://agent.test');
});

test('the conversations their agent closed since a time, and not those the owner closed', (t) => {
  const store = memoryStore(t);
  const agentClosed = seedConversation(store, { verified_agent: 'https://a.test' }).conversation.id;
  const earlier = seedConversation(store).conversation.id;
  const ownerClosed = seedConversation(store).conversation.id;
  store.setStatus(agentClosed, 'closed', at(5), 'agent');
  store.setStatus(earlier, 'closed', at(3), 'agent');
  store.setStatus(ownerClosed, 'closed', at(5), 'owner');
  assert.deepEqual(
    store.owner.agentClosesSince(at(4)).map((row) => ({ ...row })),
    [{ id: agentClosed, changed_at: at(5), metadata: '{"agent_name":"seeded"}', verified_agent: 'https://a.test' }],
  );
  assert.equal(store.owner.agentClosesSince(at(3)).length, 2);
});

test('the verified agents seen: their conversations, how many messages they signed, and when last', (t) => {
  const store = memoryStore(t);
  const a = 'https://a.test';
  const one = seedConversation(store, { verified_agent: a, created_at: at(1) }).conversation.id;
  const two = seedConversation(store, { verified_agent: a, created_at: at(2) }).conversation.id;
  addMessage(store, two, 'client', 'again', at(3), { agent: a });
  seedConversation(store, { verified_agent: 'https://b.test', created_at: at(4) });
  seedConversation(store, { created_at: at(5) }); // unsigned: no agent
  const agents = store.owner.agents();
  assert.deepEqual(
    agents.map((row) => [row.identity, row.messages, row.last_seen]),
    [
      ['https://b.test', 1, at(4)],
      [a, 3, at(3)],
    ],
    'the most recently seen first',
  );
  assert.deepEqual(agents[1]?.conversation_ids.split(',').sort(), [one, two].sort());
});

test('the conversations an agent named in its messages, and those whose messages name this one', (t) => {
  const store = memoryStore(t);
  const old = seedConversation(store).conversation.id;
  const third = seedConversation(store).conversation.id;
  const gone = '00000000-0000-4000-8000-000000000000';
  const text = `I lost my credential for ${old.toUpperCase()}; also ${gone}.`;
  const { id } = seedConversation(store, {}, text).conversation;
  addMessage(store, id, 'owner', `See ${third}.`, at(13));
  const messages = store.messagesAfter(id, 0, 10);
  assert.deepEqual(store.owner.conversationsNamedIn(id, messages), [old], 'one that exists, named by the agent');
  assert.deepEqual(store.owner.conversationsNamedIn(old, messages), [], 'never the conversation itself');
  assert.deepEqual(store.owner.conversationsNaming(old), [id], 'named in upper case: found all the same');
  assert.deepEqual(store.owner.conversationsNaming(third), [], "the owner's words do not count");
  assert.deepEqual(store.owner.conversationsNaming(id), []);
});

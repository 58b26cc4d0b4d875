// The columns the store selects for its rows (src/store/rows.ts) against the columns the migrated
// tables have (PRAGMA table_info): a migration that adds a column fails here until the column is
// selected, or named below as left out on purpose, and why.

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CONVERSATION, MESSAGE } from '../../src/store/rows.ts';
import { memoryStore, seedConversation } from './seed-rows.ts';

/** Columns no row carries, each with the reason. */
const LEFT_OUT = {
  conversations: {
    token_hash: "the credential's SHA-256: looked up by, never handed back",
    creation_key: "the opening's Idempotency-Key: only asked whether it was used",
  },
  messages: {
    conversation_id: 'every query of messages names its conversation',
    idempotency_key: 'asked by messageByKey, and read as `key` by newestMessages only',
    sender: 'what the quotas counted the message against: read by senders.ts only',
  },
};

/** The columns of a table of a database migrated to the newest schema. */
function columnsOf(t: TestContext, table: 'conversations' | 'messages'): string[] {
  const rows = memoryStore(t).db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  return rows.map((column) => column.name);
}

test('CONVERSATION names every column of conversations but those left out on purpose, and no other', (t) => {
  const columns = columnsOf(t, 'conversations');
  const listed = CONVERSATION.split(', ');
  assert.equal(new Set(listed).size, listed.length, 'no column is named twice');
  assert.deepEqual(
    [...listed].sort(),
    columns.filter((column) => !(column in LEFT_OUT.conversations)).sort(),
  );
  for (const column of Object.keys(LEFT_OUT.conversations)) assert.ok(columns.includes(column), column);
});

test('MESSAGE names every column of messages but those left out on purpose, and no other', (t) => {
  const columns = columnsOf(t, 'messages');
  const listed = MESSAGE.split(', ');
  assert.equal(new Set(listed).size, listed.length, 'no column is named twice');
  assert.deepEqual(
    [...listed].sort(),
    columns.filter((column) => !(column in LEFT_OUT.messages)).sort(),
  );
  for (const column of Object.keys(LEFT_OUT.messages)) assert.ok(columns.includes(column), column);
});

test('a conversation and a message read back with exactly the listed columns, in their order', (t) => {
  const store = memoryStore(t);
  const { conversation } = seedConversation(store);
  assert.deepEqual(Object.keys(conversation), CONVERSATION.split(', '));
  assert.deepEqual(Object.keys(store.messageBySeq(conversation.id, 1) ?? {}), MESSAGE.split(', '));
});

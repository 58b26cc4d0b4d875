// What a client reads back (src/rules/views.ts), the same through every door: the exact shape of the
// creation result, the Conversation record, the reply signal and a message, key by key and in order.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  conversationRecord,
  creationResult,
  messageView,
  PRIVACY_STATEMENT,
  updatesResult,
} from '../../src/rules/views.ts';
import type { QuestionView } from '../../src/rules/questions.ts';
import type { Conversation } from '../../src/store/store.ts';

const BASE = 'https://contact.example';
const ID = '7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11';
const ROW: Conversation = {
  id: ID,
  status: 'answered',
  blocked: 0,
  metadata: '{"agent_name":"scout","model":"m1"}',
  created_at: '2026-03-10T12:00:00.000Z',
  expires_at: '2027-03-10T12:00:00.000Z',
  last_seq: 4,
  latest_owner_seq: 3,
  changed_at: '2026-03-10T13:00:00.000Z',
  verified_agent: 'https://agent.test',
  sender: 'agent:https://agent.test',
  blocked_by: null,
  closed_by: null,
};

/** Equal, and with the keys in the same order: JSON answers are read by people too. */
function assertShape(actual: object, expected: object): void {
  assert.deepEqual(actual, expected);
  assert.deepEqual(Object.keys(actual), Object.keys(expected));
}

test('the creation result holds the one-time credential, the links, the privacy statement and who signed', () => {
  assertShape(creationResult({ conversation: ROW, token: 'ab'.repeat(32) }, BASE, 30), {
    id: ID,
    access_token: 'ab'.repeat(32),
    token_type: 'Bearer',
    expires_at: '2027-03-10T12:00:00.000Z',
    messages_url: `${BASE}/api/v1/conversations/${ID}/messages`,
    updates_url: `${BASE}/api/v1/conversations/${ID}/updates`,
    privacy: PRIVACY_STATEMENT,
    poll_after_seconds: 30,
    verified_agent: 'https://agent.test',
  });
});

test('the Conversation record: the state, the metadata shown as unverified, who closed it, and no secret', () => {
  const record = conversationRecord({ ...ROW, status: 'closed', closed_by: 'agent' }, BASE, 30, null);
  assertShape(record, {
    id: ID,
    status: 'closed',
    created_at: '2026-03-10T12:00:00.000Z',
    expires_at: '2027-03-10T12:00:00.000Z',
    last_seq: 4,
    latest_owner_seq: 3,
    message_count: 4,
    metadata: { agent_name: 'scout', model: 'm1' },
    metadata_verified: false,
    verified_agent: 'https://agent.test',
    closed_by: 'agent',
    messages_url: `${BASE}/api/v1/conversations/${ID}/messages`,
    updates_url: `${BASE}/api/v1/conversations/${ID}/updates`,
    poll_after_seconds: 30,
    question: null,
  });
  for (const kept of ['blocked', 'blocked_by', 'sender', 'changed_at']) assert.equal(kept in record, false, kept);
});

test('damaged metadata is shown as none, and a value that is no string is left out', () => {
  assert.deepEqual(conversationRecord({ ...ROW, metadata: '{not json' }, BASE, 30, null).metadata, {});
  assert.deepEqual(conversationRecord({ ...ROW, metadata: '{"model":7,"framework":"f"}' }, BASE, 30, null).metadata, {
    framework: 'f',
  });
});

test('the reply signal says new_reply only when the owner wrote after `after`', () => {
  const replyBy = '2026-03-11T12:00:00.000Z';
  const question: QuestionView = { seq: 2, choices: ['Yes', 'No'], reply_by: replyBy, state: 'open' };
  assertShape(updatesResult(ROW, 2, 30, question), {
    id: ID,
    status: 'answered',
    last_seq: 4,
    latest_owner_seq: 3,
    new_reply: true,
    poll_after_seconds: 30,
    question,
  });
  assert.equal(updatesResult(ROW, 3, 30, null).new_reply, false, 'the owner wrote seq 3, already read');
});

test("a client's message carries the identity that signed it, or null; the owner's carries none", () => {
  const base = { seq: 2, message: 'Hi.', created_at: '2026-03-10T12:00:00.000Z' };
  assertShape(messageView({ ...base, author: 'client', verified_agent: null }), {
    seq: 2,
    author: 'client',
    message: 'Hi.',
    created_at: '2026-03-10T12:00:00.000Z',
    verified_agent: null,
  });
  assertShape(messageView({ ...base, author: 'owner', verified_agent: 'https://stray.test' }), {
    seq: 2,
    author: 'owner',
    message: 'Hi.',
    created_at: '2026-03-10T12:00:00.000Z',
    choice: null,
  });
});

test('a question shows its choices and reply_by; an answer with a choice shows the choice', () => {
  const base = { seq: 2, message: 'Which?', created_at: '2026-03-10T12:00:00.000Z' };
  const asked = { ...base, author: 'client', verified_agent: null, choices: '["A","B"]', reply_by: null } as const;
  assertShape(messageView(asked), {
    seq: 2,
    author: 'client',
    message: 'Which?',
    created_at: '2026-03-10T12:00:00.000Z',
    verified_agent: null,
    choices: ['A', 'B'],
    reply_by: null,
  });
  const chose = { ...base, seq: 3, author: 'owner', verified_agent: null, choice_for_seq: 2, choice_index: 1 } as const;
  assertShape(messageView({ ...chose, choice_text: 'B' }), {
    seq: 3,
    author: 'owner',
    message: 'Which?',
    created_at: '2026-03-10T12:00:00.000Z',
    choice: { for_seq: 2, index: 1, text: 'B' },
  });
});

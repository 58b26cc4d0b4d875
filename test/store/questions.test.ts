// The SQL of questions (src/store/questions.ts), on a real store: a conversation's newest question is
// found through the partial index, whatever messages follow it, and its answer is the first owner
// message after it that chose for it, or, for a question without choices, any owner message after it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMessage, memoryStore, seedConversation } from './seed-rows.ts';

const AT = '2026-03-10T12:01:00.000Z';
const CHOICES = { choices: '["Yes","No"]' };

test('the newest question is the newest client message with choices or a reply-by time, however far back', (t) => {
  const store = memoryStore(t);
  const { conversation } = seedConversation(store);
  const { id } = conversation;
  assert.equal(store.questions.newest(id), undefined, 'no question asked');
  addMessage(store, id, 'client', 'Which?', AT, { beside: CHOICES });
  addMessage(store, id, 'client', 'By when?', AT, { beside: { reply_by: '2026-03-11T12:00:00.000Z' } });
  for (let i = 0; i < 5; i++) addMessage(store, id, 'client', `plain ${i}`, AT);
  assert.equal(store.questions.newest(id)?.seq, 3, 'the later question, past five plain messages');
  assert.equal(store.questions.newest(seedConversation(store).conversation.id), undefined, 'per conversation');
});

test("a question's answer: the first owner message after it that chose for it (any, without choices)", (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  addMessage(store, id, 'client', 'Which?', AT, { beside: CHOICES }); // seq 2
  addMessage(store, id, 'owner', 'A plain reply.', AT); // seq 3: no choice
  assert.equal(store.questions.answer(id, 2, false), undefined, 'a plain reply answers no question with choices');
  assert.equal(store.questions.answer(id, 2, true)?.seq, 3, 'it answers one without choices');
  const chose = { choice_for_seq: 2, choice_index: 1, choice_text: 'No' };
  addMessage(store, id, 'owner', 'No', AT, { beside: chose }); // seq 4
  addMessage(store, id, 'owner', 'No', AT, { beside: chose }); // seq 5: the first one counts
  assert.equal(store.questions.answer(id, 2, false)?.seq, 4);
  assert.equal(store.questions.answer(id, 2, false)?.choice_text, 'No');
  assert.equal(store.questions.answer(id, 4, true)?.seq, 5, 'only messages after the question');
  assert.equal(store.questions.answer(id, 5, true), undefined);
});

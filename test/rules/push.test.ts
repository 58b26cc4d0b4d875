// Telling an agent that the owner wrote (src/rules/push.ts), called directly on a real store: the thin
// event (what changed and where, never the text or a credential), one webhook per conversation that a
// new one replaces, its view without the secret, and at most five A2A push configs.
// (Delivery, signing and retries through REST: test/doors/rest/webhooks.test.ts.)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MAX_PUSH_CONFIGS,
  pushConfigOf,
  pushConfigsOf,
  registerPushConfig,
  registerWebhook,
  removePushConfig,
  removeWebhook,
  webhookOf,
  writePushEvents,
  type PushConfigInput,
} from '../../src/rules/push.ts';
import { Refusal } from '../../src/refusals/refusal.ts';
import type { Store } from '../../src/store/store.ts';
import { addMessage, memoryStore, seedConversation, T0 } from '../store/seed-rows.ts';

const refusedFor = (reason: string) => (err: unknown) => err instanceof Refusal && err.reason === reason;
const events = (store: Store) => store.outbox.due(Number.MAX_SAFE_INTEGER, 100).map((due) => due.event);
const config = (id: string | null, url = `https://agent.test/${id}`): PushConfigInput => ({
  id,
  url,
  token: 'tok',
  scheme: null,
  credentials: null,
});

test('a thin event says what changed and where, never the message text nor a credential', (t) => {
  const store = memoryStore(t);
  const { conversation, token } = seedConversation(store, {}, 'The opening.');
  registerWebhook(store, conversation.id, 'https://agent.test/hook', T0);
  const reply = addMessage(store, conversation.id, 'owner', 'A secret reply.', '2026-03-10T12:05:00.000Z');
  writePushEvents(store, conversation.id, 'conversation.replied', T0 + 300_000);
  const [event] = events(store);
  assert.deepEqual(JSON.parse(event ?? ''), {
    type: 'conversation.replied',
    timestamp: '2026-03-10T12:05:00.000Z',
    data: { conversation_id: conversation.id, status: 'answered', last_seq: reply.seq, latest_owner_seq: reply.seq },
  });
  for (const secret of ['A secret reply.', 'The opening.', token, 'whsec_']) {
    assert.equal(event?.includes(secret), false, secret);
  }
});

test('a closed event says who closed it; a conversation no one asked to be told of gets no event', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  writePushEvents(store, id, 'conversation.replied', T0);
  assert.deepEqual(events(store), [], 'no target, no event');
  registerWebhook(store, id, 'https://agent.test/hook', T0);
  registerPushConfig(store, id, config('c1'), T0);
  store.setStatus(id, 'closed', '2026-03-10T12:01:00.000Z', 'agent');
  writePushEvents(store, id, 'conversation.closed', T0);
  const written = events(store).map((event) => JSON.parse(event).data);
  assert.equal(written.length, 2, 'one event per target');
  for (const data of written) assert.deepEqual([data.status, data.closed_by], ['closed', 'agent']);
});

test('a webhook replaces the one before it, with a new secret shown once; its view never holds the secret', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  const first = registerWebhook(store, id, 'https://agent.test/first', T0);
  assert.equal(first.replaced, false);
  assert.match(first.view.secret, /^whsec_[A-Za-z0-9+/]{43}=$/, '32 random bytes');
  writePushEvents(store, id, 'conversation.replied', T0);
  const second = registerWebhook(store, id, 'https://agent.test/second', T0 + 1000);
  assert.equal(second.replaced, true);
  assert.notEqual(second.view.secret, first.view.secret);
  assert.deepEqual(
    store.outbox.targets(id).map((target) => target.url),
    ['https://agent.test/second'],
  );
  assert.equal(store.outbox.pendingTotal(), 0, "the replaced webhook's undelivered events go with it");
  assert.deepEqual(webhookOf(store, id), {
    url: 'https://agent.test/second',
    created_at: '2026-03-10T12:00:01.000Z',
    events: ['conversation.replied', 'conversation.closed', 'conversation.reopened'],
    last_attempt_at: null,
    last_outcome: null,
    failures_since_last_success: 0,
    pending_events: 0,
  });
  const { secret: _shownOnce, ...view } = second.view;
  assert.deepEqual(view, webhookOf(store, id), 'the registration answers the same view, and the secret');
});

test('a webhook is removed once; without one, reading or removing it is refused', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  assert.throws(() => webhookOf(store, id), refusedFor('no_webhook'));
  registerWebhook(store, id, 'https://agent.test/hook', T0);
  removeWebhook(store, id);
  assert.throws(() => removeWebhook(store, id), refusedFor('no_webhook'));
  assert.throws(() => webhookOf(store, id), refusedFor('no_webhook'));
});

test('a conversation purged meanwhile registers nothing', (t) => {
  const store = memoryStore(t);
  const gone = '00000000-0000-4000-8000-000000000000';
  assert.throws(() => registerWebhook(store, gone, 'https://agent.test/hook', T0), refusedFor('unknown_credential'));
  assert.throws(() => registerPushConfig(store, gone, config('c'), T0), refusedFor('unknown_credential'));
});

test('at most five push configs; one of the same id replaces its own, one without an id gets one', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  assert.equal(MAX_PUSH_CONFIGS, 5);
  for (const n of [1, 2, 3, 4, 5]) registerPushConfig(store, id, config(`c${n}`), T0 + n);
  assert.throws(
    () => registerPushConfig(store, id, config('c6'), T0 + 6),
    (err) => refusedFor('too_many_push_configs')(err) && (err as Refusal).message.includes('5'),
  );
  const replaced = registerPushConfig(store, id, config('c3', 'https://agent.test/new'), T0 + 7);
  assert.equal(replaced.config_id, 'c3', 'a sixth of an id it holds replaces it, within the five');
  assert.equal(pushConfigOf(store, id, 'c3').url, 'https://agent.test/new');
  assert.deepEqual(
    pushConfigsOf(store, id).map((target) => target.config_id),
    ['c1', 'c2', 'c4', 'c5', 'c3'],
    'oldest first',
  );
  removePushConfig(store, id, 'c1');
  const named = registerPushConfig(store, id, config(null), T0 + 8);
  assert.match(named.config_id ?? '', /^[0-9a-f-]{36}$/, "the service's own id");
  assert.equal(named.secret, null, 'a push config has no signing secret');
});

test('a push config that is not there is refused when read or removed', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  const other = seedConversation(store).conversation.id;
  registerPushConfig(store, other, config('theirs'), T0);
  assert.throws(() => pushConfigOf(store, id, 'theirs'), refusedFor('no_push_config'), "another task's");
  assert.throws(() => removePushConfig(store, id, 'theirs'), refusedFor('no_push_config'));
  assert.equal(pushConfigsOf(store, other).length, 1, 'and it is kept');
});

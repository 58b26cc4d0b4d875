// The SQL of push delivery (src/store/outbox.ts): where an agent asked to be told (webhooks and A2A
// push configs) and the outbox of events, on a real store: what each method reads, writes and deletes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import type { TargetKind } from '../../src/store/outbox.ts';
import { memoryStore, seedConversation } from './seed-rows.ts';

function addTarget(store: Store, conversationId: string, id: string, kind: TargetKind, configId: string | null = null) {
  const created_at = `2026-03-10T12:00:0${id.slice(-1)}.000Z`; // in the order of the ids
  store.outbox.insertTarget({
    id,
    conversation_id: conversationId,
    kind,
    config_id: configId,
    url: `https://agent.test/${id}`,
    secret: kind === 'webhook' ? 'whsec_x' : null,
    token: kind === 'a2a' ? 'token' : null,
    auth_scheme: null,
    auth_credentials: null,
    created_at,
  });
}

test("a conversation's targets read back oldest first, of one kind when asked; deletes remove only theirs", (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  const other = seedConversation(store).conversation.id;
  addTarget(store, id, 'wh_1', 'webhook');
  addTarget(store, id, 'pc_2', 'a2a', 'mine');
  addTarget(store, id, 'pc_3', 'a2a', 'yours');
  addTarget(store, other, 'pc_4', 'a2a', 'mine');
  const ids = (kind?: TargetKind, of = id) => store.outbox.targets(of, kind).map((target) => target.id);
  assert.deepEqual(ids(), ['wh_1', 'pc_2', 'pc_3']);
  assert.deepEqual(ids('a2a'), ['pc_2', 'pc_3']);
  const [webhook] = store.outbox.targets(id, 'webhook');
  assert.deepEqual([webhook?.secret, webhook?.last_attempt_at, webhook?.last_outcome, webhook?.failures], [
    'whsec_x',
    null,
    null,
    0,
  ]);
  assert.throws(() => addTarget(store, id, 'pc_5', 'a2a', 'mine'), 'a config id is unique within its conversation');

  assert.equal(store.outbox.deleteConfig(id, 'mine'), true);
  assert.equal(store.outbox.deleteConfig(id, 'mine'), false, 'none left of that id');
  assert.deepEqual(ids(), ['wh_1', 'pc_3']);
  assert.deepEqual(ids(undefined, other), ['pc_4'], "another conversation's config of the same id is kept");
  assert.equal(store.outbox.deleteTargets(id, 'a2a'), 1);
  assert.equal(store.outbox.deleteTargets(id, 'a2a'), 0);
  assert.deepEqual(ids(), ['wh_1'], 'the webhook is kept');
});

test('an attempt is recorded with when and how; failures count since the last success', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  addTarget(store, id, 'wh_1', 'webhook');
  const state = () => {
    const target = store.outbox.targets(id)[0];
    return [target?.last_attempt_at, target?.last_outcome, target?.failures];
  };
  store.outbox.recordAttempt('wh_1', '2026-03-10T12:01:00.000Z', 'HTTP 500', false);
  store.outbox.recordAttempt('wh_1', '2026-03-10T12:02:00.000Z', 'timed out', false);
  assert.deepEqual(state(), ['2026-03-10T12:02:00.000Z', 'timed out', 2]);
  store.outbox.recordAttempt('wh_1', '2026-03-10T12:03:00.000Z', 'HTTP 204', true);
  assert.deepEqual(state(), ['2026-03-10T12:03:00.000Z', 'HTTP 204', 0]);
});

test('due events are those whose time has come, oldest first, at most the limit, each with its target', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  addTarget(store, id, 'wh_1', 'webhook');
  store.outbox.insertEvent('msg_b', 'wh_1', '{"n":2}', 2000);
  store.outbox.insertEvent('msg_a', 'wh_1', '{"n":1}', 1000);
  store.outbox.insertEvent('msg_c', 'wh_1', '{"n":3}', 3000);
  assert.deepEqual(
    store.outbox.due(2000, 10).map((event) => [event.id, event.event, event.created_at, event.attempts]),
    [
      ['msg_a', '{"n":1}', 1000, 0],
      ['msg_b', '{"n":2}', 2000, 0],
    ],
  );
  assert.equal(store.outbox.due(2000, 10)[0]?.target.url, 'https://agent.test/wh_1');
  assert.deepEqual(
    store.outbox.due(5000, 1).map((event) => event.id),
    ['msg_a'],
  );

  store.outbox.scheduleRetry('msg_a', 4000);
  assert.deepEqual(
    store.outbox.due(3000, 10).map((event) => event.id),
    ['msg_b', 'msg_c'],
    'a retry waits for its time',
  );
  assert.equal(store.outbox.due(4000, 10).find((event) => event.id === 'msg_a')?.attempts, 1);
  store.outbox.finish('msg_b', 4000, 'delivered');
  store.outbox.scheduleRetry('msg_b', 4000);
  store.outbox.finish('msg_b', 4500, 'gave up');
  assert.deepEqual(
    store.outbox.due(9000, 10).map((event) => event.id),
    ['msg_c', 'msg_a'],
    'a finished event is never due again, nor rescheduled, nor finished twice',
  );
  const row = store.db.prepare("SELECT attempts, done_at, outcome FROM outbox WHERE id = 'msg_b'").get();
  assert.deepEqual({ ...row }, { attempts: 1, done_at: 4000, outcome: 'delivered' });
});

test('pending counts undelivered events per target and in all; finished ones are dropped only before then', (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  addTarget(store, id, 'wh_1', 'webhook');
  addTarget(store, id, 'pc_2', 'a2a', 'c');
  for (const [event, target] of [
    ['e1', 'wh_1'],
    ['e2', 'wh_1'],
    ['e3', 'pc_2'],
  ] as const) {
    store.outbox.insertEvent(event, target, '{}', 1000);
  }
  const { outbox } = store;
  assert.deepEqual([outbox.pending('wh_1'), outbox.pending('pc_2'), outbox.pendingTotal()], [2, 1, 3]);
  store.outbox.finish('e1', 2000, 'delivered');
  store.outbox.finish('e3', 3000, 'delivered');
  assert.deepEqual([store.outbox.pending('wh_1'), store.outbox.pendingTotal()], [1, 1]);
  store.outbox.dropFinishedBefore(3000);
  const left = store.db.prepare('SELECT id FROM outbox ORDER BY id').all().map((row) => row.id);
  assert.deepEqual(left, ['e2', 'e3'], 'the pending one, and the one finished at that very time');
  store.outbox.deleteTargets(id, 'webhook');
  assert.equal(store.outbox.pendingTotal(), 0, "a deleted target's pending events go with it");
});

// The delivery rules of the outbox (src/outbound/deliveries.ts): only a 2xx answer is a delivery,
// each failed attempt is counted, so the back-off grows on its schedule and an event given up
// says how many attempts it took.

import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test, type TestContext } from 'node:test';
import { ownerReply } from '../../src/rules/conversations.ts';
import { fakeClock, openConversation, request, startTestService, waitUntil } from '../helpers.ts';
import { receiver } from '../receiver.ts';

const RETRIES = [1_000, 60_000, 600_000];

async function serviceWithWebhook(t: TestContext, answer: (n: number) => number, giveUpAfterMs = 86_400_000) {
  const hook = await receiver(t, answer);
  const clock = fakeClock('2026-03-10T12:00:00.000Z');
  const service = await startTestService(t, {
    now: clock.now,
    env: { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' },
    deliveryTiming: { tickMs: 20, retryAfterMs: RETRIES, giveUpAfterMs },
  });
  const conversation = await openConversation(service.url);
  const url = `/api/v1/conversations/${conversation.id}/webhook`;
  const registered = await request(service.url, 'PUT', url, { token: conversation.token, json: { url: hook.url } });
  assert.equal(registered.status, 201);
  const outbox = new DatabaseSync(service.dbPath, { readOnly: true });
  t.after(() => outbox.close());
  const event = () =>
    outbox.prepare('SELECT attempts, next_attempt_at, done_at, outcome FROM outbox').get() as {
      attempts: number;
      next_attempt_at: number;
      done_at: number | null;
      outcome: string | null;
    };
  const reply = () => ownerReply(service.store, conversation.id, 'A reply.', { at: clock.now(), dailyMaximum: 0 });
  return { hook, clock, service, event, reply };
}

test('each failed attempt is counted: the back-off follows its schedule, attempt by attempt', async (t) => {
  const { hook, clock, event, reply } = await serviceWithWebhook(t, () => 500);
  reply();
  for (let attempt = 1; attempt <= 4; attempt++) {
    await waitUntil(() => hook.received.length === attempt && event().attempts === attempt, `attempt ${attempt}`);
    const wait = RETRIES[Math.min(attempt - 1, RETRIES.length - 1)] as number;
    assert.equal(event().next_attempt_at, clock.now() + wait, `after attempt ${attempt}, the wait is ${wait} ms`);
    clock.advance(wait);
  }
});

test('an event given up says how many attempts it really took', async (t) => {
  const { hook, clock, event, reply } = await serviceWithWebhook(t, () => 503, 2 * 60_000);
  reply();
  await waitUntil(() => event().attempts === 1, 'the first attempt');
  clock.advance(RETRIES[0] as number);
  await waitUntil(() => event().attempts === 2, 'the second');
  clock.advance(RETRIES[1] as number); // the next wait would end past the give-up time
  await waitUntil(() => event().done_at !== null, 'given up');
  assert.equal(hook.received.length, 3);
  assert.match(event().outcome ?? '', /^given up after 3 attempts: the receiver answered 503/);
});

test('only a 2xx answer is a delivery: a redirect or a 304 is tried again, and not followed', async (t) => {
  const statuses = [302, 304, 204];
  const { hook, clock, event, reply } = await serviceWithWebhook(t, (n) => statuses[n - 1] ?? 204);
  reply();
  await waitUntil(() => event().attempts === 1, 'the first attempt');
  assert.equal(event().done_at, null, 'a 302 delivers nothing');
  clock.advance(RETRIES[0] as number);
  await waitUntil(() => event().attempts === 2, 'the second attempt');
  assert.equal(event().done_at, null, 'a 304 delivers nothing');
  clock.advance(RETRIES[1] as number);
  await waitUntil(() => event().done_at !== null, 'delivered');
  assert.equal(event().outcome, 'delivered');
  assert.deepEqual(
    hook.received.map((received) => received.headers['webhook-id']),
    Array(3).fill(hook.received[0]?.headers['webhook-id']),
    'the same event each time, never a request to the Location',
  );
});

test('an event damaged in the database is given up at once, sent nowhere and counted against no target', async (t) => {
  const { hook, service, event, reply } = await serviceWithWebhook(t, () => 200);
  reply();
  service.store.db.prepare("UPDATE outbox SET event = '{not json'").run(); // the same turn: before any tick
  await waitUntil(() => event().done_at !== null, 'given up');
  assert.match(event().outcome ?? '', /^given up: the event is damaged in the database/);
  assert.equal(hook.received.length, 0);
  const target = service.store.db.prepare('SELECT failures FROM push_targets').get() as { failures: number };
  assert.equal(target.failures, 0, 'its target is not a failing receiver');
});

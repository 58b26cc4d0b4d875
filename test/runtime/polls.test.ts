// A poll with news is never refused, on every door: an agent woken by a webhook or a push reads
// the reply at once, whatever the poll interval; a poll with nothing new still keeps it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeClock, openConversation, request, runOwner, startTestService, waitUntil } from '../helpers.ts';
import { receiver } from '../receiver.ts';
import { bearer, message, rpc } from '../doors/a2a/calls.ts';
import * as mcp from '../doors/mcp/calls.ts';

const env = { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' };
const FAST = { tickMs: 20, retryAfterMs: [50], giveUpAfterMs: 60_000 };

test('REST: a webhook arrives, then updates at once is answered; asked again, 429', async (t) => {
  const hook = await receiver(t);
  const service = await startTestService(t, { env, deliveryTiming: FAST });
  const conversation = await openConversation(service.url);
  const url = `/api/v1/conversations/${conversation.id}`;
  const token = { token: conversation.token };
  const registered = await request(service.url, 'PUT', `${url}/webhook`, { ...token, json: { url: hook.url } });
  assert.equal(registered.status, 201);
  assert.equal((await request(service.url, 'GET', `${url}/updates?after=1`, token)).status, 200, 'the minute starts');
  assert.equal((await request(service.url, 'GET', `${url}/updates?after=1`, token)).status, 429, 'nothing new');

  for (const [command, args] of [
    ['reply', ['Here is my answer.']],
    ['close', []],
    ['reopen', []],
  ] as const) {
    const before = hook.received.length;
    assert.equal((await runOwner(service.dbPath, [command, conversation.id, ...args])).code, 0);
    await waitUntil(() => hook.received.length === before + 1, `the webhook is told of the ${command}`);
    const woken = await request(service.url, 'GET', `${url}/updates?after=1`, token);
    assert.equal(woken.status, 200, `after the ${command}: news, answered within the minute`);
    const again = await request(service.url, 'GET', `${url}/updates?after=1`, token);
    assert.equal(again.status, 429, `after the ${command}: told, so the minute holds again`);
  }
});

test('MCP: check_updates with news is answered within the interval; without, refused', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const check = async () => {
    const credential = { conversation_id: conversation.id, access_token: conversation.token };
    const { ok, refused } = await mcp.tool(service, 'check_updates', credential);
    return refused ? refused.reason : ok.new_reply;
  };
  assert.equal(await check(), false);
  assert.equal(await check(), 'poll_too_soon');
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, 'Answered.'])).code, 0);
  assert.equal(await check(), true, 'the reply is news');
  assert.equal(await check(), 'poll_too_soon');
});

test('A2A: a push arrives, then GetTask at once is answered; asked again, 429', async (t) => {
  const hook = await receiver(t);
  const service = await startTestService(t, { env, deliveryTiming: FAST });
  const push = { configuration: { taskPushNotificationConfig: { url: hook.url } } };
  const opened = await rpc(service, 'SendMessage', { ...message('Hello.'), ...push });
  const task = opened.body.result.task;
  const getTask = () => rpc(service, 'GetTask', { id: task.id }, bearer(task.metadata.accessToken));
  assert.equal((await getTask()).body.result.status.state, 'TASK_STATE_WORKING', 'the minute starts');
  assert.equal((await getTask()).status, 429, 'nothing new');
  assert.equal((await runOwner(service.dbPath, ['reply', task.id, 'Answered.'])).code, 0);
  await waitUntil(() => hook.received.length === 1, 'the push arrives');
  const woken = await getTask();
  assert.equal(woken.body.result?.status.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(woken.body));
  assert.equal((await getTask()).status, 429, 'told: the minute holds again');
});

/**
 * A clock that runs in real time from an offset the test moves, so that a wait held for real seconds
 * meets a reply_by set on the service's clock.
 */
function offsetClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms: number) => (offset += ms) };
}

test('a wait on updates answers at reply_by when the open question expires while it waits', async (t) => {
  // A clock that stands still while the wait runs its real 1.5 s: the answer is judged at reply_by itself.
  const clock = fakeClock();
  const service = await startTestService(t, { now: clock.now });
  const replyBy = new Date(clock.now() + 61_000).toISOString();
  const asked = { message: 'Go?', choices: ['go', 'stop'], reply_by: replyBy };
  const conversation = await openConversation(service.url, asked);
  clock.advance(59_500); // reply_by is now about 1.5 s away
  const url = `/api/v1/conversations/${conversation.id}/updates?after=1&wait=30`;
  const started = Date.now();
  const held = await request(service.url, 'GET', url, { token: conversation.token });
  const took = Date.now() - started;
  assert.equal(held.status, 200, held.text);
  assert.equal(held.body.question.state, 'expired', 'told of the expiry');
  assert.equal(held.body.new_reply, false);
  assert.ok(took >= 1000 && took < 10_000, `answered at reply_by, not after the 30 s wait (${took} ms)`);
  const next = await request(service.url, 'GET', url.replace('wait=30', 'wait=0'), { token: conversation.token });
  assert.equal(next.status, 200, 'ended by news: the next poll is let in at once');

  const credential = { conversation_id: conversation.id, access_token: conversation.token };
  await request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, {
    token: conversation.token,
    key: `mcp-wait-question-${Date.now()}`,
    json: { message: 'Again?', reply_by: new Date(clock.now() + 61_000).toISOString() },
  });
  clock.advance(59_500);
  const before = Date.now();
  const { ok } = await mcp.tool(service, 'check_updates', { ...credential, after: 2, wait: 30 });
  assert.equal(ok.question.state, 'expired', 'check_updates too');
  assert.ok(Date.now() - before < 10_000, 'answered at reply_by');
});

test('a wait whose question has no reply_by, or has it after the wait, ends as before', async (t) => {
  const clock = offsetClock();
  const service = await startTestService(t, { now: clock.now, env: { POLL_INTERVAL_SECONDS: '0' } });
  const conversation = await openConversation(service.url, {
    message: 'Later?',
    choices: ['yes', 'no'],
    reply_by: new Date(clock.now() + 120_000).toISOString(),
  });
  const url = `/api/v1/conversations/${conversation.id}/updates?after=1&wait=1`;
  const held = await request(service.url, 'GET', url, { token: conversation.token });
  assert.equal(held.body.question.state, 'open', 'the wait ran its second; the question is still open');
  const waiting = request(service.url, 'GET', url.replace('wait=1', 'wait=30'), { token: conversation.token });
  await waitUntil(() => service.waitingPolls() === 1, 'the poll is held');
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, '--choose', 'yes'])).code, 0);
  const answered = await waiting;
  assert.equal(answered.body.question.state, 'answered', 'the owner wrote: answered at once');
  assert.equal(answered.body.new_reply, true);
});

test('an answered question does not cut a wait at its reply_by, nor let the next poll in early', async (t) => {
  // Stands still while the wait runs its real 2 s; starts now, as the owner script's real clock does.
  const clock = fakeClock(new Date().toISOString());
  const service = await startTestService(t, { now: clock.now });
  const asked = { message: 'Go?', choices: ['go', 'stop'], reply_by: new Date(clock.now() + 61_000).toISOString() };
  const conversation = await openConversation(service.url, asked);
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, '--choose', 'go'])).code, 0);
  clock.advance(59_500); // reply_by is now 1.5 s away, inside the wait
  const url = `/api/v1/conversations/${conversation.id}/updates?after=2&wait=2`;
  const held = await request(service.url, 'GET', url, { token: conversation.token });
  assert.deepEqual([held.status, held.body.question.state, held.body.new_reply], [200, 'answered', false]);
  const next = await request(service.url, 'GET', url.replace('wait=2', 'wait=0'), { token: conversation.token });
  assert.equal(next.status, 429, 'no news was told: the minute holds');
});

// A poll with news is never refused, on every door: an agent woken by a webhook or a push reads
// the reply at once, whatever the poll interval; a poll with nothing new still keeps it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openConversation, request, runOwner, startTestService, waitUntil } from '../helpers.ts';
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

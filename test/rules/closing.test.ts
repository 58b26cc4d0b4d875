// Closing (src/rules/closing.ts) on every door: the agent closes its conversation with REST's POST
// …/close, MCP's close_conversation or A2A's CancelTask; a repeat answers it as it is; another
// conversation's credential cannot; follow-ups then get 410; the owner sees "closed by the agent" in
// inbox, show, watch and the notifier, and may still reply (it stays closed) or reopen; the webhook
// and A2A push get the close, naming the agent.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { newKey, openConversation, request, runOwner, tempDir, startTestService, waitUntil } from '../helpers.ts';
import { startWatch } from '../owner-run.ts';
import { Webhook } from 'standardwebhooks';
import { receiver } from '../receiver.ts';
import * as a2a from '../doors/a2a/calls.ts';
import * as mcp from '../doors/mcp/calls.ts';

const base = (id: string) => `/api/v1/conversations/${id}`;

test('REST: the agent closes its conversation once; a repeat answers it; follow-ups get 410', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url, { message: 'hello' });
  const other = await openConversation(service.url, { message: 'someone else' });
  const close = (id: string, token: string) => request(service.url, 'POST', `${base(id)}/close`, { token });
  assert.equal((await close(conversation.id, other.token)).status, 403, "another conversation's credential");
  assert.equal((await close(conversation.id, 'f'.repeat(64))).status, 401);
  const badlySigned = await request(service.url, 'POST', `${base(conversation.id)}/close`, {
    token: conversation.token,
    headers: { 'signature-input': 'sig1=("@authority");tag="web-bot-auth"', signature: 'sig1=:AA==:' },
  });
  assert.equal(badlySigned.body.error?.reason, 'signature_malformed', 'a close passes the signed guard');
  const closed = await close(conversation.id, conversation.token);
  assert.equal(closed.status, 200, closed.text);
  assert.deepEqual([closed.body.status, closed.body.closed_by], ['closed', 'agent']);
  const again = await close(conversation.id, conversation.token);
  assert.deepEqual([again.status, again.body.closed_by, again.body.last_seq], [200, 'agent', 1], 'as it is');
  const followUp = await request(service.url, 'POST', `${base(conversation.id)}/messages`, {
    token: conversation.token,
    key: newKey(),
    json: { message: 'after the close' },
  });
  assert.equal(followUp.status, 410);
  assert.equal(followUp.body.error.reason, 'conversation_closed');
  const record = await request(service.url, 'GET', base(conversation.id), { token: conversation.token });
  assert.equal(record.body.closed_by, 'agent', 'still readable');
  assert.equal((await request(service.url, 'GET', base(other.id), { token: other.token })).body.closed_by, null);
  assert.equal((await runOwner(service.dbPath, ['close', other.id])).code, 0);
  const byOwner = await close(other.id, other.token);
  assert.deepEqual([byOwner.status, byOwner.body.closed_by], [200, 'owner'], "the owner's close stays the owner's");
});

test('the owner sees the close in inbox, show, watch and the notifier; may reply, then reopen', async (t) => {
  const dir = tempDir(t);
  const notifier = path.join(dir, 'notify.sh');
  const told = path.join(dir, 'told.txt');
  writeFileSync(notifier, `#!/bin/sh\necho "$EVENT|$MESSAGE_SEQ|$CONVERSATION_ID" >> "${told}"\n`, { mode: 0o755 });
  const service = await startTestService(t, { dir, env: { NOTIFY_COMMAND: notifier } });
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching/);
  const conversation = await openConversation(service.url, { message: 'hello' });
  await request(service.url, 'POST', `${base(conversation.id)}/close`, { token: conversation.token });
  await request(service.url, 'POST', `${base(conversation.id)}/close`, { token: conversation.token }); // a repeat
  await watch.waitFor(new RegExp(`${conversation.id} {2}closed by the agent`));
  const owner = async (...args: string[]) => {
    const ran = await runOwner(service.dbPath, args);
    assert.equal(ran.code, 0, `${args.join(' ')}: ${ran.stderr}`);
    return ran.stdout;
  };
  assert.match(await owner('reply', conversation.id, 'Seen, thanks.'), /as seq 2/);
  const later = await openConversation(service.url, { message: 'after the last word' });
  await watch.waitFor(new RegExp(`${later.id} {2}#1`));
  await watch.interrupt();
  const closes = watch.output().split('\n').filter((line) => line.includes('closed by the agent'));
  assert.equal(closes.length, 1, "the owner's last word is not a second close");
  assert.match(await owner('inbox', '--all'), new RegExp(`${conversation.id} {2}closed by the agent`));
  assert.match(await owner('show', conversation.id), /status +closed \(by the agent\)/);
  // Notifications run in order: once the next conversation's is told, a repeat close's would have been.
  const next = await openConversation(service.url, { message: 'the next one' });
  await waitUntil(() => readFileSync(told, 'utf8').includes(next.id), "the next conversation's notification");
  assert.deepEqual(readFileSync(told, 'utf8').trim().split('\n'), [
    `message|1|${conversation.id}`,
    `closed||${conversation.id}`,
    `message|1|${later.id}`,
    `message|1|${next.id}`,
  ]);
  const record = await request(service.url, 'GET', base(conversation.id), { token: conversation.token });
  assert.deepEqual([record.body.status, record.body.latest_owner_seq], ['closed', 2], 'a last word; still closed');
  await owner('reopen', conversation.id);
  const reopened = await request(service.url, 'GET', base(conversation.id), { token: conversation.token });
  assert.deepEqual([reopened.body.status, reopened.body.closed_by], ['answered', null]);
  await owner('close', conversation.id);
  const byOwner = await runOwner(service.dbPath, ['reply', conversation.id, 'Closed by me: reopen first.']);
  assert.equal(byOwner.code, 1, 'the owner reopens what the owner closed before replying');
});

test('MCP close_conversation and A2A CancelTask close as the agent; webhook and push name it', async (t) => {
  const hook = await receiver(t);
  const push = await receiver(t);
  const allowed = [hook.url, push.url].map((url) => new URL(url).host).join(',');
  const timing = { tickMs: 20, retryAfterMs: [50], giveUpAfterMs: 60_000 };
  const service = await startTestService(t, { env: { OUTBOUND_ALLOWED_HOSTS: allowed }, deliveryTiming: timing });
  const viaMcp = (await mcp.tool(service, 'open_conversation', { message: 'Hello over MCP.' })).ok;
  const credentials = { conversation_id: viaMcp.id, access_token: viaMcp.access_token };
  const registered = (await mcp.tool(service, 'set_webhook', { ...credentials, url: hook.url })).ok;
  assert.equal((await mcp.tool(service, 'get_webhook', credentials)).ok.url, hook.url);
  assert.equal((await mcp.tool(service, 'get_webhook', credentials)).ok.secret, undefined, 'shown once');
  const closed = await mcp.tool(service, 'close_conversation', credentials);
  assert.deepEqual([closed.ok.status, closed.ok.closed_by], ['closed', 'agent']);
  await waitUntil(() => hook.received.length === 1, 'the webhook is told of the close');
  const signed = hook.received[0]!;
  const event = new Webhook(registered.secret).verify(signed.body, signed.headers as Record<string, string>) as {
    type: string;
    data: { closed_by: string };
  };
  assert.deepEqual([event.type, event.data.closed_by], ['conversation.closed', 'agent']);
  assert.deepEqual((await mcp.tool(service, 'delete_webhook', credentials)).ok, {});
  assert.equal((await mcp.tool(service, 'get_webhook', credentials)).refused?.reason, 'no_webhook');
  const refused = await mcp.tool(service, 'set_webhook', { ...credentials, url: 'http://10.1.2.3/hook' });
  assert.equal(refused.refused?.reason, 'url_refused', 'the outbound rules, as on REST');

  const opened = await a2a.rpc(service, 'SendMessage', {
    ...a2a.message('Hello over A2A.'),
    configuration: { taskPushNotificationConfig: { url: push.url } },
  });
  const task = opened.body.result.task;
  const token = task.metadata.accessToken as string;
  const notItsTask = await a2a.rpc(service, 'CancelTask', { id: viaMcp.id }, a2a.bearer(token));
  assert.equal(notItsTask.body.error?.code, -32001, 'another task is not found, and nothing is closed');
  assert.equal((await request(service.url, 'GET', base(task.id), { token })).body.status, 'open');
  const canceled = await a2a.rpc(service, 'CancelTask', { id: task.id }, a2a.bearer(token));
  assert.equal(canceled.body.result.status.state, 'TASK_STATE_CANCELED', canceled.text);
  assert.match(canceled.body.result.status.message.parts[0].text, /^You closed this conversation/);
  const again = await a2a.rpc(service, 'CancelTask', { id: task.id }, a2a.bearer(token));
  assert.equal(again.body.result.status.state, 'TASK_STATE_CANCELED', 'as it is');
  await waitUntil(() => push.received.length === 1, 'the push config is told of the close, once');
  assert.equal(JSON.parse(push.received[0]!.body).statusUpdate.status.state, 'TASK_STATE_CANCELED');
  const followUp = await a2a.rpc(service, 'SendMessage', a2a.message('After.'), a2a.bearer(token));
  assert.equal(followUp.body.error.data[0].metadata.reason, 'conversation_closed');
  const viaRest = await request(service.url, 'GET', base(task.id), { token });
  assert.equal(viaRest.body.closed_by, 'agent', 'a close through one door is the same through the others');
});

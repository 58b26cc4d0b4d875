// The official A2A JavaScript SDK, unchanged, holds whole conversations with the owner over
// both bindings: the opening and its one-time credential, follow-ups with and without the
// task id, the owner's reply through the owner script, a push to a loopback receiver,
// close, reopen and block; and the credential works on REST too.
// Covers: src/doors/a2a/, src/rules/conversations.ts, src/rules/closing.ts, src/rules/blocks.ts, src/rules/push.ts,
// src/rules/access.ts.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Task,
} from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, type Client, type RequestOptions } from '@a2a-js/sdk/client';
import { request, runOwner, startTestService, waitUntil, type TestService } from '../../helpers.ts';

const send = (text: string, extra: Record<string, unknown> = {}, messageId: string = randomUUID()) =>
  SendMessageRequest.fromJSON({
    message: { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra },
    metadata: { agent_name: 'sdk-agent', framework: '@a2a-js/sdk' },
  });
const textOf = (task: Task) =>
  task.status?.message?.parts[0]?.content?.$case === 'text' ? task.status.message.parts[0].content.value : '';

async function pushReceiver(t: TestContext) {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/a2a-push`, received };
}

type Receiver = Awaited<ReturnType<typeof pushReceiver>>;

/** Opens a conversation: the answer comes at once with the task, its credential and how to use it. */
async function openAndTakeCredential(client: Client) {
  const started = Date.now();
  const opened = (await client.sendMessage(send('Hello over A2A.'))) as Task;
  assert.ok(Date.now() - started < 2_000, 'the opening answers at once: a human answers later');
  assert.equal(opened.status?.state, TaskState.TASK_STATE_WORKING);
  assert.equal(opened.id, opened.contextId);
  const token = opened.metadata?.accessToken as string;
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.match(textOf(opened), new RegExp(`Authorization: Bearer ${token}`));
  assert.equal(opened.history[0]?.parts[0]?.content?.value, 'Hello over A2A.');
  const auth: RequestOptions = { serviceParameters: { Authorization: `Bearer ${token}` } };
  return { opened, token, auth };
}

async function registerPush(client: Client, taskId: string, receiver: Receiver, auth: RequestOptions) {
  const pushConfig = TaskPushNotificationConfig.fromJSON({
    taskId,
    url: receiver.url,
    token: 'receiver-token',
    authentication: { scheme: 'Bearer', credentials: 'push-secret' },
  });
  const created = await client.createTaskPushNotificationConfig(pushConfig, auth);
  assert.equal(created.url, receiver.url);
  assert.equal(created.authentication?.credentials ?? '', '', 'never shown back');
}

/** The owner replies: the task asks for input again, and the push says so without any of the content. */
async function ownerReplies(
  service: TestService,
  client: Client,
  taskId: string,
  receiver: Receiver,
  auth: RequestOptions,
) {
  assert.equal((await runOwner(service.dbPath, ['reply', taskId, 'The owner answers.'])).code, 0);
  const answered = await client.getTask(GetTaskRequest.fromJSON({ id: taskId }), auth);
  assert.equal(answered.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  assert.equal(textOf(answered), 'The owner answers.');
  assert.equal(answered.history.at(-1)?.role, 2, 'ROLE_AGENT');
  await waitUntil(() => receiver.received.length === 1, 'the push for the reply arrived');
  const push = JSON.parse(receiver.received[0]!.body);
  assert.deepEqual(push.statusUpdate.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(receiver.received[0]!.headers.authorization, 'Bearer push-secret');
  assert.equal(receiver.received[0]!.headers['x-a2a-notification-token'], 'receiver-token');
  assert.doesNotMatch(receiver.received[0]!.body, /The owner answers|Hello over|[0-9a-f]{64}/);
}

/** The owner closes (no more messages; a cancel answers the task as it is) and reopens; each change is pushed. */
async function ownerClosesAndReopens(
  service: TestService,
  client: Client,
  taskId: string,
  receiver: Receiver,
  auth: RequestOptions,
) {
  assert.equal((await runOwner(service.dbPath, ['close', taskId])).code, 0);
  const closed = await client.getTask(GetTaskRequest.fromJSON({ id: taskId, historyLength: 1 }), auth);
  assert.equal(closed.status?.state, TaskState.TASK_STATE_COMPLETED);
  assert.equal(closed.history.length, 1);
  await assert.rejects(client.sendMessage(send('After the close.'), auth), { name: 'UnsupportedOperationError' });
  const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }), auth);
  assert.equal(canceled.status?.state, TaskState.TASK_STATE_COMPLETED, 'closed by the owner: as it is');
  assert.equal((await runOwner(service.dbPath, ['reopen', taskId])).code, 0);
  const reopened = await client.listTasks(ListTasksRequest.fromJSON({}), auth);
  assert.equal(reopened.tasks[0]?.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  await waitUntil(() => receiver.received.length === 3, 'pushes for the close and the reopen arrived');
}

const BINDINGS = [
  ['JSON-RPC', new ClientFactory()],
  [
    'HTTP+JSON',
    new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
    ),
  ],
] as const;

for (const [binding, factory] of BINDINGS) {
  test(`${binding}: the SDK's client holds a whole conversation with the owner`, async (t) => {
    const receiver = await pushReceiver(t);
    const service = await startTestService(t, {
      env: { POLL_INTERVAL_SECONDS: '0', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' },
      deliveryTiming: { tickMs: 20, retryAfterMs: [50], giveUpAfterMs: 60_000 },
    });
    const client = await factory.createFromUrl(service.url);
    assert.equal(client.transport.protocolName, binding === 'JSON-RPC' ? 'JSONRPC' : 'HTTP+JSON');

    const { opened, token, auth } = await openAndTakeCredential(client);
    const rest = await request(service.url, 'GET', `/api/v1/conversations/${opened.id}`, { token });
    assert.equal(rest.body.metadata.agent_name, 'sdk-agent', 'the same conversation, read over REST');
    await registerPush(client, opened.id, receiver, auth);

    const withTask = (await client.sendMessage(send('A follow-up.', { taskId: opened.id }), auth)) as Task;
    assert.equal(withTask.metadata?.lastSeq, 2);
    const retryId = randomUUID();
    await client.sendMessage(send('Sent once.', {}, retryId), auth); // no task id: its credential's task
    const retried = (await client.sendMessage(send('Sent once.', {}, retryId), auth)) as Task;
    assert.equal(retried.metadata?.duplicate, true);
    assert.equal(retried.metadata?.lastSeq, 3, 'the retry wrote nothing');

    await ownerReplies(service, client, opened.id, receiver, auth);
    await ownerClosesAndReopens(service, client, opened.id, receiver, auth);

    const stream = client.sendMessageStream(send('Through the streaming call.'), auth);
    const events = [];
    for await (const event of stream) events.push(event);
    assert.equal(events.length, 1, 'no streaming: one answer, the task');
    await assert.rejects(async () => {
      for await (const _ of client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: opened.id }), auth)) void _;
    }, /not supported|UnsupportedOperation/);

    assert.equal((await runOwner(service.dbPath, ['block', opened.id])).code, 0);
    await assert.rejects(client.getTask(GetTaskRequest.fromJSON({ id: opened.id }), auth), /blocked/);
    const logged = JSON.stringify(service.logs);
    assert.ok(!logged.includes(token) && !logged.includes('Hello over A2A') && !logged.includes('push-secret'));
  });
}

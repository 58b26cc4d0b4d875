// The A2A door under the service rules: framing, paging, the poll clock and limits,
// origins, push configs and a fuzz run.
// Covers: src/doors/a2a/, src/doors/jsonrpc.ts, src/outbound/task-state.ts, src/rules/rates.ts, src/rules/quotas.ts,
// src/rules/push.ts, src/http/origins.ts.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { test } from 'node:test';
import { openConversation, request, startTestService } from '../../helpers.ts';
import { seededRandom } from '../../random.ts';
import { bearer, message, openOverA2a, rpc, V } from './calls.ts';
import { owner } from '../../owner-run.ts';

test('JSON-RPC framing: parse error, batch, unknown method, notification, GET; the HTTP+JSON statuses', async (t) => {
  const service = await startTestService(t);
  const raw = (body: string) =>
    request(service.url, 'POST', '/a2a', { body, headers: { ...V, 'content-type': 'application/json' } });
  assert.equal((await raw('{')).body.error.code, -32700);
  assert.equal((await raw('[]')).body.error.code, -32600);
  const legacy = await raw(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'message/send', params: {} }));
  assert.equal(legacy.body.error.code, -32601);
  assert.equal(legacy.body.id, 3);
  const notified = await raw(
    JSON.stringify({ jsonrpc: '2.0', method: 'SendMessage', params: message('never stored') }),
  );
  assert.equal(notified.status, 202);
  assert.equal(service.store.messageCount(), 0, 'a notification does nothing');
  const get = await request(service.url, 'GET', '/a2a', { headers: V });
  assert.equal(get.status, 405);
  const a2aType = await request(service.url, 'POST', '/a2a/message:send', {
    body: JSON.stringify(message('as application/a2a+json')),
    headers: { ...V, 'content-type': 'application/a2a+json' },
  });
  assert.equal(a2aType.status, 200);
  assert.equal(a2aType.headers.get('content-type'), 'application/a2a+json');
  assert.equal(a2aType.headers.get('cache-control'), 'no-store');
  const textType = await request(service.url, 'POST', '/a2a/message:send', {
    body: '{}',
    headers: { ...V, 'content-type': 'text/plain' },
  });
  assert.equal(textType.status, 400);
  assert.equal(textType.body.error.details[0].reason, 'CONTENT_TYPE_NOT_SUPPORTED');
});

test('GetTask and ListTasks: historyLength, the filters, the page size', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openOverA2a(service);
  await rpc(service, 'SendMessage', message('two'), bearer(token));
  const task = async (params: Record<string, unknown>) =>
    (await rpc(service, 'GetTask', { id, ...params }, bearer(token))).body;
  assert.equal((await task({})).result.history.length, 2);
  assert.equal((await task({ historyLength: 0 })).result.history.length, 0);
  assert.deepEqual(
    (await task({ historyLength: 1 })).result.history.map((m: { parts: { text: string }[] }) => m.parts[0]!.text),
    ['two'],
  );
  assert.equal((await task({ historyLength: -1 })).error.code, -32602);
  const list = async (params: Record<string, unknown>) => (await rpc(service, 'ListTasks', params, bearer(token))).body;
  const all = (await list({ status: 'UNRECOGNIZED' })).result;
  assert.deepEqual([all.tasks.length, all.nextPageToken, all.pageSize, all.totalSize], [1, '', 50, 1]);
  assert.equal((await list({ status: 'TASK_STATE_COMPLETED' })).result.totalSize, 0);
  assert.equal((await list({ contextId: randomUUID() })).result.totalSize, 0);
  assert.equal((await list({ pageSize: 101 })).error.code, -32602);
  assert.equal((await list({ pageToken: 'next' })).error.code, -32602);
  const http = await request(service.url, 'GET', '/a2a/tasks?pageSize=10&status=TASK_STATE_WORKING', {
    headers: { ...V, ...bearer(token) },
  });
  assert.deepEqual([http.body.tasks.length, http.body.pageSize], [1, 10]);
});

test("a task's status has the time of its last change, and the owner's reply whatever the history asked", async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openOverA2a(service);
  const status = async (historyLength: number) =>
    (await rpc(service, 'GetTask', { id, historyLength }, bearer(token))).body.result.status;
  const timeOf = (seq: number) => service.store.messageBySeq(id, seq)?.created_at;
  assert.equal((await status(0)).timestamp, timeOf(1));
  assert.equal((await owner(service, ['reply', id, 'The owner answers.'])).code, 0);
  for (const historyLength of [0, 1, 5]) {
    const answered = await status(historyLength);
    assert.equal(answered.state, 'TASK_STATE_INPUT_REQUIRED');
    assert.equal(answered.message.parts[0].text, 'The owner answers.', `historyLength ${historyLength}`);
    assert.equal(answered.message.messageId, `${id}:2`);
    assert.equal(answered.timestamp, timeOf(2));
  }
  const before = Date.now();
  assert.equal((await owner(service, ['close', id])).code, 0);
  const closed = await status(0);
  assert.equal(closed.state, 'TASK_STATE_COMPLETED');
  assert.ok(Date.parse(closed.timestamp) >= before, 'the close is the last change');
  assert.equal((await owner(service, ['reopen', id])).code, 0);
  const reopened = await status(0);
  assert.equal(reopened.message.parts[0].text, 'The owner answers.', 'answered again: the reply is the status');
  assert.ok(reopened.timestamp >= closed.timestamp);
});

test("polls share the conversation's one clock with REST, and the daily and opening limits answer 429", async (t) => {
  const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '3', CREATE_LIMIT_PER_HOUR: '2' } });
  const { id, token } = await openOverA2a(service);
  assert.equal((await request(service.url, 'GET', `/api/v1/conversations/${id}/updates`, { token })).status, 200);
  const tooSoon = await rpc(service, 'GetTask', { id }, bearer(token));
  assert.equal(tooSoon.status, 429);
  assert.ok(Number(tooSoon.headers.get('retry-after')) > 0);
  assert.equal(tooSoon.body.error.data[0].reason, 'POLL_TOO_SOON');
  assert.equal(tooSoon.body.error.data[1]['@type'], 'type.googleapis.com/google.rpc.RetryInfo');
  await openOverA2a(service); // the second opening of the hour, the second message of the day
  const opening = await rpc(service, 'SendMessage', message('a third opening'));
  assert.equal(opening.status, 429);
  assert.equal(opening.body.error.data[0].reason, 'OPENING_LIMIT');
  await rpc(service, 'SendMessage', message('third of the day'), bearer(token));
  const daily = await request(service.url, 'POST', '/a2a/message:send', {
    json: message('fourth'),
    headers: { ...V, ...bearer(token) },
  });
  assert.equal(daily.status, 429);
  assert.equal(daily.body.error.status, 'RESOURCE_EXHAUSTED');
  assert.equal(daily.body.error.details[0].reason, 'DAILY_LIMIT');
});

test('a foreign Origin or Host gets 403; a preflight gets 204, with CORS only for an allowed origin', async (t) => {
  const service = await startTestService(t, { env: { A2A_ALLOWED_ORIGINS: 'https://app.example.org' } });
  const foreign = await rpc(service, 'GetTask', { id: 'x' }, { origin: 'https://evil.example' });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.body.error.code, 403);
  const host = await rawPost(
    service.url,
    '/a2a',
    { host: 'evil.example', ...V, 'content-type': 'application/json' },
    '{}',
  );
  assert.equal(host.status, 403, 'fetch cannot send a foreign Host: node:http can');
  assert.match(host.text, /"code":403/);
  const allowed = await request(service.url, 'OPTIONS', '/a2a', { headers: { origin: 'https://app.example.org' } });
  assert.equal(allowed.status, 204);
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example.org');
  assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /A2A-Version/);
  const other = await request(service.url, 'OPTIONS', '/a2a', { headers: { origin: 'https://evil.example' } });
  assert.equal(other.status, 204);
  assert.equal(other.headers.get('access-control-allow-origin'), null);
});

test('push configs: at most 5 a task, a private address refused unless allowed, the token never shown', async (t) => {
  const service = await startTestService(t, { env: { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' } });
  const { id, token } = await openOverA2a(service);
  const create = (url: string) =>
    rpc(service, 'CreateTaskPushNotificationConfig', { taskId: id, url, token: 'tok' }, bearer(token));
  const refused = await create('https://10.0.0.1/push');
  assert.equal(refused.body.error.code, -32602);
  assert.match(refused.body.error.message, /private|not public|does not call/);
  for (let i = 0; i < 5; i++) assert.ok((await create(`http://127.0.0.1:9/push/${i}`)).body.result.id);
  assert.equal((await create('http://127.0.0.1:9/push/6')).body.error.code, -32602);
  const listed = await rpc(service, 'ListTaskPushNotificationConfigs', { taskId: id }, bearer(token));
  assert.equal(listed.body.result.configs.length, 5);
  assert.ok(!listed.text.includes('tok"'), 'the token is never shown back');
  const one = listed.body.result.configs[0].id;
  assert.equal(
    (await rpc(service, 'GetTaskPushNotificationConfig', { taskId: id, id: one }, bearer(token))).body.result.id,
    one,
  );
  assert.deepEqual(
    (await rpc(service, 'DeleteTaskPushNotificationConfig', { taskId: id, id: one }, bearer(token))).body.result,
    {},
  );
  assert.equal(
    (await rpc(service, 'GetTaskPushNotificationConfig', { taskId: id, id: one }, bearer(token))).body.error.code,
    -32001,
  );
});

test(`a fuzz run on /a2a gets no 5xx and logs no unexpected error`, async (t) => {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0', DAILY_MESSAGE_LIMIT: '0' } });
  const { id, token } = await openConversation(service.url);
  const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
  const values = [
    deep,
    '"x"',
    '1',
    '-1',
    'null',
    'true',
    '{}',
    '[]',
    '"' + 'a'.repeat(5000) + '"',
    `"${id}"`,
    '{"text": 1}',
  ];
  const methods = [
    'SendMessage',
    'GetTask',
    'ListTasks',
    'CancelTask',
    'CreateTaskPushNotificationConfig',
    'GetTaskPushNotificationConfig',
    'DeleteTaskPushNotificationConfig',
    'X',
  ];
  for (let i = 0; i < 300; i++) {
    const params =
      `{"id": ${pick(values)}, "taskId": ${pick(values)}, ` +
      `"message": {"messageId": ${pick(values)}, "role": ${pick(values)}, ` +
      `"parts": [{"text": ${pick(values)}, "mediaType": ${pick(values)}}], "taskId": ${pick(values)}}, ` +
      `"historyLength": ${pick(values)}, "metadata": ${pick(values)}, "url": ${pick(values)}, ` +
      `"configuration": ${pick(values)}}`;
    const body =
      random() < 0.5
        ? `{"jsonrpc": "2.0", "id": ${pick(['1', '"a"', deep])}, "method": "${pick(methods)}", "params": ${params}}`
        : params;
    const path = body.startsWith('{"jsonrpc"')
      ? '/a2a'
      : pick(['/a2a/message:send', `/a2a/tasks/${id}/pushNotificationConfigs`, `/a2a/tasks/${id}:cancel`]);
    const headers = {
      ...V,
      'content-type': pick(['application/json', 'application/a2a+json']),
      ...(random() < 0.7 ? bearer(token) : {}),
    };
    const answer = await request(service.url, 'POST', path, { body, headers });
    assert.ok(answer.status < 500, `seed ${seed}, case ${i}: ${answer.status} ${answer.text.slice(0, 200)}`);
  }
  assert.deepEqual(
    service.logs.filter((entry) => entry.level === 'error'),
    [],
    `seed ${seed}: no unexpected error`,
  );
});

/** A POST with headers fetch will not send (a foreign Host). */
function rawPost(base: string, path: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

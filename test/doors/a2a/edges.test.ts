// The A2A door at its edges: retries that carry a push config, config ids per task, paths and
// preflights the door answers in its own way, tenants, paging and filters, and its wording.
// Covers: src/doors/a2a/, src/rules/push.ts, src/rules/conversations.ts, src/outbound/task-state.ts.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { request, startTestService, type TestService } from '../../helpers.ts';
import { bearer, message, openOverA2a, rpc, V } from './calls.ts';

const receiver = 'http://127.0.0.1:9/hooks'; // never called here: no owner writes in these tests
const withPush = { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' };

async function configIds(service: TestService, id: string, token: string): Promise<string[]> {
  const listed = await rpc(service, 'ListTaskPushNotificationConfigs', { taskId: id }, bearer(token));
  return listed.body.result.configs.map((config: { id: string }) => config.id);
}

test('an identical SendMessage retry that carries a push config is a duplicate and registers nothing', async (t) => {
  const service = await startTestService(t, { env: withPush });
  const { id, token } = await openOverA2a(service);
  const retried = {
    ...message('the same follow-up', { taskId: id }),
    configuration: { taskPushNotificationConfig: { url: receiver } },
  };
  const first = await rpc(service, 'SendMessage', retried, bearer(token));
  assert.equal(first.body.result.task.metadata.duplicate, undefined);
  for (let retry = 0; retry < 6; retry++) {
    const again = await rpc(service, 'SendMessage', retried, bearer(token));
    assert.equal(again.body.result?.task.metadata.duplicate, true, JSON.stringify(again.body));
  }
  assert.equal((await configIds(service, id, token)).length, 1, 'the first send registered the one config');
  assert.equal(service.store.messageCount(), 2);
});

test('a push config id names a config within its task: two tasks may use the same one', async (t) => {
  const service = await startTestService(t, { env: withPush });
  const [a, b] = [await openOverA2a(service), await openOverA2a(service)];
  for (const task of [a, b]) {
    const created = await rpc(
      service,
      'CreateTaskPushNotificationConfig',
      {
        taskId: task.id,
        id: 'cfg-1',
        url: `${receiver}/${task.id}`,
        token: 'secret-token',
        authentication: { scheme: 'Bearer', credentials: 'secret-credentials' },
      },
      bearer(task.token),
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual([created.body.result.id, created.body.result.taskId], ['cfg-1', task.id]);
  }
  const get = (task: { id: string; token: string }) =>
    rpc(service, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'cfg-1' }, bearer(task.token));
  const readBack = (await get(b)).body.result;
  assert.equal(readBack.url, `${receiver}/${b.id}`);
  assert.ok(!('token' in readBack), 'no token member at all: never shown again, not shown empty');
  assert.deepEqual(readBack.authentication, { scheme: 'Bearer' }, 'the scheme only');
  await rpc(service, 'DeleteTaskPushNotificationConfig', { taskId: a.id, id: 'cfg-1' }, bearer(a.token));
  assert.deepEqual(await configIds(service, a.id, a.token), []);
  assert.deepEqual(await configIds(service, b.id, b.token), ['cfg-1'], "the other task's config stays");
  assert.ok(!service.logs.some((entry) => entry.level === 'error'), 'no unexpected error');
});

test('the door answers its unknown paths, large bodies and preflights itself, as /mcp does', async (t) => {
  const origins = { A2A_ALLOWED_ORIGINS: 'https://app.example.org', MCP_ALLOWED_ORIGINS: 'https://app.example.org' };
  const service = await startTestService(t, { env: origins });
  for (const path of ['/a2a/tasks/x/nothing', '/a2a/message:foo', '/a2a/']) {
    const unknown = await request(service.url, 'POST', path, { headers: V, json: {} });
    assert.equal(unknown.status, 404, path);
    assert.equal(unknown.body.error.status, 'NOT_FOUND');
    assert.equal(unknown.body.error.details[0].reason, 'METHOD_NOT_FOUND');
    assert.equal(unknown.headers.get('cache-control'), 'no-store');
    assert.equal(unknown.headers.get('access-control-allow-origin'), null, 'CORS only to allowed origins');
  }
  const huge = JSON.stringify(message('x'.repeat(200_000)));
  const tooLarge = await request(service.url, 'POST', '/a2a/message:send', {
    headers: { ...V, 'content-type': 'application/json' },
    body: huge,
  });
  assert.equal(tooLarge.status, 413);
  assert.equal(tooLarge.headers.get('connection'), 'close', 'the unread rest of the body is not drained');
  for (const path of ['/a2a/message:send', '/mcp']) {
    const preflight = (origin: string) => request(service.url, 'OPTIONS', path, { headers: { origin } });
    const foreign = await preflight('https://evil.example');
    assert.equal(foreign.status, 204);
    const cors = [...foreign.headers.keys()].filter((name) => name.startsWith('access-control-'));
    assert.deepEqual(cors, [], `${path}: a foreign origin learns nothing`);
    const allowed = await preflight('https://app.example.org');
    assert.ok(allowed.headers.get('access-control-allow-methods')?.includes('POST'), path);
  }
});

test('a tenant is refused by every operation; pageSize is 1 to 100; status is one of the task states', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openOverA2a(service);
  const call = (method: string, params: Record<string, unknown>) => rpc(service, method, params, bearer(token));
  for (const [method, params] of [
    ['ListTaskPushNotificationConfigs', { taskId: id }],
    ['GetTaskPushNotificationConfig', { taskId: id, id: 'x' }],
    ['DeleteTaskPushNotificationConfig', { taskId: id, id: 'x' }],
    ['SendStreamingMessage', message('streamed')],
    ['GetExtendedAgentCard', {}],
  ] as const) {
    const refused = await call(method, { ...params, tenant: 'someone' });
    assert.equal(refused.body.error?.code, -32602, `${method}: ${JSON.stringify(refused.body)}`);
    assert.match(refused.body.error.message, /tenant/);
  }
  assert.equal((await call('ListTasks', { pageSize: 0 })).body.error.code, -32602);
  assert.equal((await call('ListTasks', { pageSize: 1 })).body.result.pageSize, 1);
  const running = await call('ListTasks', { status: 'TASK_STATE_RUNNING' });
  assert.equal(running.body.error.code, -32602);
  assert.match(running.body.error.message, /TASK_STATE_WORKING/);
  assert.equal((await call('ListTasks', { status: 'TASK_STATE_FAILED' })).body.result.totalSize, 0);
  assert.equal((await call('ListTasks', { status: 'TASK_STATE_WORKING' })).body.result.totalSize, 1);
});

test('statusTimestampAfter takes tasks changed at that time or later, as a2a.proto says', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openOverA2a(service);
  const task = (await rpc(service, 'GetTask', { id }, bearer(token))).body.result;
  const after = (time: string) =>
    request(service.url, 'GET', `/a2a/tasks?statusTimestampAfter=${encodeURIComponent(time)}`, {
      headers: { ...V, ...bearer(token) },
    });
  assert.equal((await after(task.status.timestamp)).body.totalSize, 1, 'the same instant');
  const later = new Date(Date.parse(task.status.timestamp) + 1).toISOString();
  assert.equal((await after(later)).body.totalSize, 0);
});

test('a bodyless POST is {}; a long historyLength is the most there is; the card takes If-None-Match: *', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openOverA2a(service);
  const cancel = await request(service.url, 'POST', `/a2a/tasks/${id}:cancel`, {
    headers: { ...V, ...bearer(token) },
  });
  assert.equal(cancel.status, 200, 'no Content-Type needed without a body');
  assert.equal(cancel.body.status.state, 'TASK_STATE_CANCELED');
  const long = await request(service.url, 'GET', `/a2a/tasks/${id}?historyLength=1000000000`, {
    headers: { ...V, ...bearer(token) },
  });
  assert.equal(long.status, 200);
  assert.equal(long.body.history.length, 1);
  const logged = service.logs.filter((entry) => entry.route === '/a2a/tasks/:id').map((entry) => entry.a2a_method);
  assert.deepEqual(logged, ['GetTask'], "the log names A2A's method on HTTP+JSON too");
  const card = await request(service.url, 'GET', '/.well-known/agent-card.json', { headers: { 'if-none-match': '*' } });
  assert.equal(card.status, 304);
});

test('refusals name A2A fields: the text part, the messageId, accessToken, and an unknown task', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openOverA2a(service);
  const blank = await rpc(service, 'SendMessage', message('   ', { taskId: id }), bearer(token));
  assert.match(blank.body.error.message, /`message\.parts\[0\]\.text` must not be empty/);
  const numericId = await rpc(
    service,
    'SendMessage',
    { message: { messageId: 12345678, role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
    bearer(token),
  );
  assert.match(numericId.body.error.message, /`message\.messageId`/);
  const wrong = await rpc(service, 'GetTask', { id }, bearer('f'.repeat(64)));
  assert.equal(wrong.status, 401);
  assert.match(wrong.body.error.message, /accessToken/);
  const unknown = await rpc(service, 'GetTask', { id: randomUUID() }, bearer(token));
  assert.equal(unknown.body.error.code, -32001);
  assert.match(unknown.body.error.message, /^Task not found/);
  assert.doesNotMatch(unknown.body.error.message, /another conversation/, 'nothing said of other tasks');
});

test('snake_case members are read as their camelCase names, in every call and again after the first', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openOverA2a(service);
  for (let call = 0; call < 2; call++) {
    const task = (await rpc(service, 'GetTask', { id, history_length: 0 }, bearer(token))).body.result;
    assert.deepEqual(task.history, [], `history_length: 0 shows no history (call ${call + 1})`);
  }
  const sent = await rpc(
    service,
    'SendMessage',
    { message: { message_id: `k-${randomUUID()}`, task_id: id, role: 'ROLE_USER', parts: [{ text: 'snake' }] } },
    bearer(token),
  );
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const history = (await rpc(service, 'GetTask', { id }, bearer(token))).body.result.history;
  assert.deepEqual(
    history.map((entry: { parts: { text: string }[] }) => entry.parts[0]!.text),
    ['Hello.', 'snake'],
    'the follow-up named its task by task_id and its key by message_id',
  );
  const tenant = await rpc(service, 'GetTask', { id, tenant: 'x' }, bearer(token));
  assert.match(tenant.body.error.message, /tenant/, 'a member without capitals is read by its one name');
});

// The A2A door at the wire: the agent card, versions, credentials, every refusal of the error
// table through both bindings, the poll clock and the limits shared with REST, and a fuzz run
// (no 5xx). What the SDK would refuse to send is sent with fetch.
// Covers: src/doors/a2a/, src/rules/access.ts, src/rules/conversations.ts, src/rules/validate.ts, src/rules/rates.ts,
// src/rules/quotas.ts.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { request, startTestService } from '../../helpers.ts';
import { bearer, message, openOverA2a, rpc, V } from './calls.ts';

test('agent card: required fields, both interfaces in order, no security requirement, cached with ETag', async (t) => {
  const service = await startTestService(t, { env: { PUBLIC_BASE_URL: 'https://agents.example.org' } });
  const card = await request(service.url, 'GET', '/.well-known/agent-card.json');
  assert.equal(card.status, 200);
  assert.equal(card.headers.get('cache-control'), 'public, max-age=300');
  assert.equal(card.headers.get('access-control-allow-origin'), '*');
  for (const field of [
    'name',
    'description',
    'supportedInterfaces',
    'version',
    'capabilities',
    'defaultInputModes',
    'defaultOutputModes',
    'skills',
  ]) {
    assert.ok(field in card.body, field);
  }
  assert.deepEqual(card.body.supportedInterfaces, [
    { url: 'https://agents.example.org/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://agents.example.org/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ]);
  assert.deepEqual(card.body.capabilities, { streaming: false, pushNotifications: true, extendedAgentCard: false });
  assert.equal(card.body.securitySchemes.ConversationBearer.httpAuthSecurityScheme.scheme, 'Bearer');
  assert.equal(card.body.securityRequirements, undefined);
  assert.equal(card.body.documentationUrl, 'https://agents.example.org/llms.txt');
  const again = await request(service.url, 'GET', '/.well-known/agent-card.json', {
    headers: { 'if-none-match': card.headers.get('etag')! },
  });
  assert.equal(again.status, 304);
});

test('A2A-Version is required, as a header or in the query; 0.3 or none is refused with -32009', async (t) => {
  const service = await startTestService(t);
  for (const headers of [{ 'a2a-version': '' }, { 'a2a-version': '0.3' }, { 'a2a-version': '2.0' }]) {
    const refused = await request(service.url, 'POST', '/a2a', {
      json: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
      headers,
    });
    assert.equal(refused.status, 200);
    assert.equal(refused.body.error.code, -32009);
    assert.equal(refused.body.id, 1, 'refused before the envelope was needed: its id is still echoed');
    assert.equal(refused.body.error.data[0].metadata.reason, 'protocol_version');
    assert.match(refused.body.error.message, /Send A2A-Version: 1\.0/);
  }
  const http = await request(service.url, 'GET', '/a2a/tasks/x');
  assert.equal(http.status, 400);
  assert.equal(http.body.error.status, 'FAILED_PRECONDITION');
  assert.equal(http.body.error.details[0].reason, 'VERSION_NOT_SUPPORTED');
  const query = await request(service.url, 'POST', '/a2a?A2A-Version=1.0.2', {
    json: { jsonrpc: '2.0', id: 1, ...{ method: 'SendMessage', params: message('by query') } },
  });
  assert.equal(query.body.result.task.status.state, 'TASK_STATE_WORKING');
});

test('credentials: none or a wrong one: 401 + WWW-Authenticate; another task: -32001; token shown once', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const mine = await openOverA2a(service);
  const theirs = await openOverA2a(service);
  const none = await rpc(service, 'GetTask', { id: mine.id });
  assert.equal(none.status, 401);
  assert.equal(none.body.error.code, 401);
  assert.equal(none.headers.get('www-authenticate'), 'Bearer');
  const wrong = await rpc(service, 'GetTask', { id: mine.id }, bearer('f'.repeat(64)));
  assert.equal(wrong.status, 401);
  const malformed = await rpc(service, 'SendMessage', message('a bad header never opens'), {
    authorization: 'Bearer nope',
  });
  assert.equal(malformed.status, 401);
  const other = await rpc(service, 'GetTask', { id: theirs.id }, bearer(mine.token));
  assert.equal(other.body.error.code, -32001);
  const httpOther = await request(service.url, 'GET', `/a2a/tasks/${theirs.id}`, {
    headers: { ...V, ...bearer(mine.token) },
  });
  assert.equal(httpOther.status, 404);
  assert.equal(httpOther.body.error.details[0].reason, 'TASK_NOT_FOUND');
  const later = await rpc(service, 'GetTask', { id: mine.id }, bearer(mine.token));
  assert.ok(!later.text.includes(mine.token), 'no later answer holds the token');
  const rest = await request(service.url, 'GET', `/api/v1/conversations/${mine.id}/messages`, { token: mine.token });
  assert.equal(rest.body.items[0].message, 'Hello.', 'an A2A credential works on REST');
  const inUrl = await request(service.url, 'POST', `/a2a?access_token=${mine.token}`, {
    json: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: mine.id } },
    headers: V,
  });
  assert.equal(inUrl.status, 400);
  assert.equal(inUrl.body.error.code, -32602);
  assert.ok(!service.logs.some((entry) => JSON.stringify(entry).includes(mine.token)), 'no log line holds the token');
});

test('follow-ups: a retry is a duplicate; changed text, reused opening id, foreign contextId: refused', async (t) => {
  const service = await startTestService(t);
  const openingId = randomUUID();
  const opened = await rpc(service, 'SendMessage', {
    message: { messageId: openingId, role: 'ROLE_USER', parts: [{ text: 'First.' }] },
  });
  const token = opened.body.result.task.metadata.accessToken;
  const again = await rpc(service, 'SendMessage', {
    message: { messageId: openingId, role: 'ROLE_USER', parts: [{ text: 'First.' }] },
  });
  assert.equal(again.body.error.code, -32602, 'an opening is never repeated: no second token');
  assert.equal(again.body.error.data[1].fieldViolations[0].reason, 'MESSAGE_ID_REUSED');
  const followId = randomUUID();
  const follow = (text: string, extra = {}) =>
    rpc(
      service,
      'SendMessage',
      { message: { messageId: followId, role: 'ROLE_USER', parts: [{ text }], ...extra } },
      bearer(token),
    );
  assert.equal((await follow('Second.')).body.result.task.metadata.lastSeq, 2);
  assert.equal((await follow('Second.')).body.result.task.metadata.duplicate, true);
  assert.equal((await follow('Changed.')).body.error.code, -32602);
  const sameAsOpening = await rpc(
    service,
    'SendMessage',
    { message: { messageId: openingId, role: 'ROLE_USER', parts: [{ text: 'First.' }] } },
    bearer(token),
  );
  assert.equal(
    sameAsOpening.body.result.task.metadata.duplicate,
    true,
    "the opening's id is this conversation's key too",
  );
  const foreign = await rpc(service, 'SendMessage', message('x', { contextId: randomUUID() }), bearer(token));
  assert.equal(foreign.body.error.code, -32602);
  const foreignTask = await rpc(service, 'SendMessage', message('x', { taskId: randomUUID() }), bearer(token));
  assert.equal(foreignTask.body.error.code, -32001);
  const noCredentialWithTask = await rpc(service, 'SendMessage', message('x', { taskId: randomUUID() }));
  assert.equal(noCredentialWithTask.status, 401);
  assert.equal(service.store.messageCount(), 2);
});

test('what a message may not be is refused with its error, and nothing is written', async (t) => {
  const service = await startTestService(t);
  const cases: [unknown, number][] = [
    [message('x'.repeat(8001)), -32602],
    [message('   '), -32602],
    [message('bell \u0007'), -32602],
    [{ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'a' }, { text: 'b' }] } }, -32602],
    [{ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { a: 1 } }] } }, -32005],
    [
      { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'x', mediaType: 'image/png' }] } },
      -32005,
    ],
    [{ message: { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: 'x' }] } }, -32602],
    [{ message: { messageId: 'seven77', role: 'ROLE_USER', parts: [{ text: 'x' }] } }, -32602],
    [{ ...message('x'), metadata: { model: 'm'.repeat(501) } }, -32602],
    [{ ...message('x'), tenant: 'other' }, -32602],
    [{}, -32602],
  ];
  for (const [params, code] of cases) {
    const answer = await rpc(service, 'SendMessage', params);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.error?.code, code, JSON.stringify(params).slice(0, 80));
  }
  const big = await request(service.url, 'POST', '/a2a', {
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message('x'.repeat(128 * 1024)) }),
    headers: { ...V, 'content-type': 'application/json' },
  });
  assert.equal(big.status, 413);
  assert.equal(service.store.messageCount(), 0);
  assert.equal(service.store.conversationCounts().open, 0);
});

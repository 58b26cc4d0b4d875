// Conversations: opening one, what an opening must hold, and keys that make retries safe.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertRefused, fakeClock, newKey, openConversation, request, startTestService } from '../helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('opening a conversation returns the id, a one-time credential and the links', async (t) => {
  const clock = fakeClock('2026-03-10T12:00:00.000Z');
  const service = await startTestService(t, { now: clock.now, env: { PUBLIC_BASE_URL: 'https://agents.example.org' } });
  const response = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: 'Hello, owner.', metadata: { agent_name: 'scout', model: 'm-1' } },
  });
  assert.equal(response.status, 201);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const body = response.body;
  assert.deepEqual(Object.keys(body), [
    'id',
    'access_token',
    'token_type',
    'expires_at',
    'messages_url',
    'updates_url',
    'privacy',
    'poll_after_seconds',
    'verified_agent',
  ]);
  assert.match(body.id, UUID);
  assert.match(body.access_token, /^[a-f0-9]{64}$/);
  assert.equal(body.token_type, 'Bearer');
  assert.equal(body.expires_at, '2027-03-10T12:00:00.000Z');
  assert.equal(body.messages_url, `https://agents.example.org/api/v1/conversations/${body.id}/messages`);
  assert.equal(body.updates_url, `https://agents.example.org/api/v1/conversations/${body.id}/updates`);
  assert.match(body.privacy, /SHA-256/);
  assert.equal(body.poll_after_seconds, 60);

  const history = await request(service.url, 'GET', `/api/v1/conversations/${body.id}/messages`, {
    token: body.access_token,
  });
  assert.deepEqual(history.body.items, [
    {
      seq: 1,
      author: 'client',
      message: 'Hello, owner.',
      created_at: '2026-03-10T12:00:00.000Z',
      verified_agent: null, // unsigned
    },
  ]);
});

test('the conversation record shows status, sequence numbers and the unverified metadata as sent', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url, { message: 'hi', metadata: { framework: 'fw' } });
  const response = await request(service.url, 'GET', `/api/v1/conversations/${id}`, { token });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'no-store');
  const { created_at, expires_at, ...rest } = response.body;
  assert.match(created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(Date.parse(expires_at) - Date.parse(created_at), 365 * 86_400_000);
  assert.deepEqual(rest, {
    id,
    status: 'open',
    last_seq: 1,
    latest_owner_seq: 0,
    message_count: 1,
    metadata: { framework: 'fw' },
    metadata_verified: false,
    verified_agent: null,
    closed_by: null,
    messages_url: `${service.url}/api/v1/conversations/${id}/messages`,
    updates_url: `${service.url}/api/v1/conversations/${id}/updates`,
    poll_after_seconds: 60,
    question: null, // no question asked (rules/questions.ts)
  });
  for (const metadata of [null, undefined]) {
    const opened = await openConversation(service.url, { message: 'hi', metadata });
    const record = await request(service.url, 'GET', `/api/v1/conversations/${opened.id}`, { token: opened.token });
    assert.deepEqual(record.body.metadata, {});
  }
});

test('invalid opening requests get 400 with a message saying what to fix, and store nothing', async (t) => {
  const service = await startTestService(t);
  const cases: [unknown, RegExp][] = [
    [[], /must be a JSON object/],
    ['text', /must be a JSON object/],
    [null, /must be a JSON object/],
    [{}, /`message` is required/],
    [{ message: 5 }, /`message` must be a string/],
    [{ message: '' }, /must not be empty/],
    [{ message: ' \n\t ' }, /must not be empty/],
    [{ message: 'a'.repeat(8001) }, /at most 8000 characters, got 8001/],
    [{ message: 'é'.repeat(8001) }, /at most 8000 characters, got 8001/], // 16 kB of UTF-8: still under 16 KiB
    [{ message: 'nul \u0000 inside' }, /must not contain control characters \(found \\u0000\)/],
    [{ message: 'escape \u001b[2J' }, /found \\u001b/],
    [{ message: 'c1 \u009b' }, /found \\u009b/],
    [
      { message: 'hi', metadata: { agent_name: 'two\nlines' } },
      /`metadata.agent_name` must not contain control characters \(found \\u000a\)/,
    ],
    [{ message: 'hi', metadata: { model: 'tab\there' } }, /`metadata.model` must not contain control characters/],
    [{ message: 'lone \ud800 surrogate' }, /lone surrogate/],
    [{ message: 'hi', extra: 1 }, /unknown field "extra"/],
    [{ message: 'hi', metadata: 'scout' }, /`metadata` must be an object/],
    [{ message: 'hi', metadata: [] }, /`metadata` must be an object/],
    [{ message: 'hi', metadata: { agent_name: 7 } }, /`metadata.agent_name` must be a string/],
    [
      { message: 'hi', metadata: { model: 'x'.repeat(501) } },
      /`metadata.model` must be at most 500 characters, got 501/,
    ],
    [{ message: 'hi', metadata: { owner: 'me' } }, /unknown metadata key "owner"/],
  ];
  for (const [json, pattern] of cases) {
    const response = await request(service.url, 'POST', '/api/v1/conversations', { key: newKey(), json });
    assertRefused(response, 400, pattern, JSON.stringify(json));
  }
  const raw = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    body: '{"message": "hi", "__proto__": {"admin": true}}',
    headers: { 'content-type': 'application/json' },
  });
  assertRefused(raw, 400, /unknown field "__proto__"/);
  const truncated = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    body: '{"message": "hi"',
    headers: { 'content-type': 'application/json' },
  });
  assertRefused(truncated, 400, /not valid JSON/);
  const latin1 = await fetch(`${service.url}/api/v1/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': newKey() },
    body: Buffer.from([0x7b, 0x22, 0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]),
  });
  assert.equal(latin1.status, 400);
  assert.equal(service.store.messageCount(), 0);
  assert.equal(({} as Record<string, unknown>).admin, undefined);
});

test('messages and metadata at their length limits are accepted', async (t) => {
  const service = await startTestService(t);
  // 8000 code points in 16000 UTF-8 bytes... under 16 KiB of JSON
  const message = '😀'.repeat(4000) + 'a'.repeat(4000);
  const opened = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: {
      message: 'a'.repeat(8000),
      metadata: { agent_name: 'n'.repeat(500), model: '', framework: 'é'.repeat(500) },
    },
  });
  assert.equal(opened.status, 201);
  const emoji = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: '😀'.repeat(2000) },
  });
  assert.equal(emoji.status, 201);
  const history = await request(service.url, 'GET', `/api/v1/conversations/${emoji.body.id}/messages`, {
    token: emoji.body.access_token,
  });
  assert.equal(history.body.items[0].message, '😀'.repeat(2000), 'the text comes back whole');
  assert.equal(Number(history.headers.get('content-length')), Buffer.byteLength(history.text), 'length in bytes');
  assert.ok(message.length > 8000, 'code points, not UTF-16 units, are counted');
});

test('the Idempotency-Key is required, checked, and accepted in its quoted form', async (t) => {
  const service = await startTestService(t);
  const json = { message: 'hi' };
  const missing = await request(service.url, 'POST', '/api/v1/conversations', { json });
  assertRefused(missing, 400, /Idempotency-Key header is required/);
  for (const key of ['short', 'x'.repeat(129), 'has space ok', 'slash/key-1', 'ümlaut-key-1', '"quoted"x']) {
    const response = await request(service.url, 'POST', '/api/v1/conversations', { key, json });
    assertRefused(response, 400, /Idempotency-Key/, key);
  }
  for (const key of ['abcd1234', 'x'.repeat(128), 'A.b:c_d-e', '"quoted-key-1"']) {
    const response = await request(service.url, 'POST', '/api/v1/conversations', { key, json });
    assert.equal(response.status, 201, key);
  }
  const unquotedAgain = await request(service.url, 'POST', '/api/v1/conversations', { key: 'quoted-key-1', json });
  assert.equal(unquotedAgain.status, 409, 'the quoted form is the same key');
});

test('a JSON content type is required (415) and the body is limited to 16 KiB (413)', async (t) => {
  const service = await startTestService(t);
  for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
    const response = await request(service.url, 'POST', '/api/v1/conversations', {
      key: newKey(),
      body: '{"message":"hi"}',
      headers: type ? { 'content-type': type } : {},
    });
    assertRefused(response, 415, /Content-Type: application\/json/, String(type));
  }
  const charset = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    body: '{"message":"hi"}',
    headers: { 'content-type': 'Application/JSON; charset=utf-8' },
  });
  assert.equal(charset.status, 201);

  const padded = JSON.stringify({ message: 'a'.repeat(10) }).replace('{', `{${' '.repeat(16384)}`);
  const tooLarge = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    body: padded,
    headers: { 'content-type': 'application/json' },
  });
  assertRefused(tooLarge, 413, /at most 16384 bytes/);
  const validLengthTooManyBytes = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: '😀'.repeat(5000) },
  });
  assertRefused(validLengthTooManyBytes, 413, /at most 16384 bytes/);
  const chunked = await fetch(`${service.url}/api/v1/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': newKey() },
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(1024)));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  assert.equal(chunked.status, 413);
  const exactly = JSON.stringify({ message: 'a' }).replace('{', `{${' '.repeat(16384 - 15)}`);
  assert.equal(Buffer.byteLength(exactly), 16384);
  const atLimit = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    body: exactly,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(atLimit.status, 201);
  assert.equal(service.store.messageCount(), 2);
});

test('a reused creation key gets 409 without a credential, whatever the body', async (t) => {
  const service = await startTestService(t);
  const key = newKey();
  const first = await request(service.url, 'POST', '/api/v1/conversations', { key, json: { message: 'first' } });
  assert.equal(first.status, 201);
  for (const json of [{ message: 'first' }, { message: 'something else' }]) {
    const again = await request(service.url, 'POST', '/api/v1/conversations', { key, json });
    assertRefused(again, 409, /never issued again/);
    assert.ok(!again.text.includes(first.body.access_token));
    assert.ok(!again.text.includes('access_token'));
  }
  assert.equal(service.store.conversationCounts().open, 1);
});

test('a refused request does not use up its key: a corrected retry is judged afresh', async (t) => {
  const service = await startTestService(t);
  const key = newKey();
  const bad = await request(service.url, 'POST', '/api/v1/conversations', { key, json: { message: '' } });
  assertRefused(bad, 400, /`message` must not be empty/);
  const good = await request(service.url, 'POST', '/api/v1/conversations', { key, json: { message: 'fixed' } });
  assert.equal(good.status, 201);

  const { id, token } = good.body && { id: good.body.id, token: good.body.access_token };
  const followKey = newKey();
  const wrongType = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: followKey,
    body: '{"message":"x"}',
    headers: { 'content-type': 'text/plain' },
  });
  assertRefused(wrongType, 415, /Content-Type: application\/json/);
  const retried = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: followKey,
    json: { message: 'x' },
  });
  assert.equal(retried.status, 201);
});

test('identical openings sent at once create exactly one conversation', async (t) => {
  const service = await startTestService(t);
  const key = newKey();
  const responses = await Promise.all(
    Array.from({ length: 10 }, () =>
      request(service.url, 'POST', '/api/v1/conversations', { key, json: { message: 'race' } }),
    ),
  );
  const statuses = responses.map((response) => response.status).sort();
  assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
  assert.equal(service.store.messageCount(), 1);
});

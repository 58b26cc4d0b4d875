import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { ownerReply as reply } from '../src/conversations.ts';
import type { Store } from '../src/store.ts';
import {
  assertRefused,
  fakeClock,
  newKey,
  openConversation,
  request,
  startServerProcess,
  startTestService,
} from './helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const OTHER_ID = '7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11';

/** The owner's reply, written the way the owner script writes it. */
function ownerReply(store: Store, id: string, message: string) {
  return reply(store, id, message, { at: Date.now(), dailyMaximum: 0 });
}

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
    { seq: 1, author: 'client', message: 'Hello, owner.', created_at: '2026-03-10T12:00:00.000Z' },
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
    messages_url: `${service.url}/api/v1/conversations/${id}/messages`,
    updates_url: `${service.url}/api/v1/conversations/${id}/updates`,
    poll_after_seconds: 60,
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
    [{ message: 'hi', metadata: { agent_name: 'two\nlines' } }, /`metadata.agent_name` must not contain control characters \(found \\u000a\)/],
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
  const message = '😀'.repeat(4000) + 'a'.repeat(4000); // 8000 code points in 16000 UTF-8 bytes... under 16 KiB of JSON
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

test('bearer authentication: 401 with WWW-Authenticate, 403 for another id, 400 for a bad id', async (t) => {
  const service = await startTestService(t);
  const mine = await openConversation(service.url);
  const theirs = await openConversation(service.url);
  const paths = (id: string) =>
    [
      ['GET', `/api/v1/conversations/${id}`],
      ['GET', `/api/v1/conversations/${id}/messages`],
      ['GET', `/api/v1/conversations/${id}/updates`],
      ['POST', `/api/v1/conversations/${id}/messages`],
    ] as const;
  const badHeaders = [
    undefined,
    `Basic ${mine.token}`,
    'Bearer',
    `Bearer ${mine.token.toUpperCase()}`,
    `Bearer ${mine.token.slice(1)}`,
    `Bearer ${mine.token}x`,
    `Bearer ${'0'.repeat(64)}`,
  ];
  for (const [method, path] of paths(mine.id)) {
    for (const authorization of badHeaders) {
      const response = await request(service.url, method, path, {
        headers: authorization === undefined ? {} : { authorization },
        key: newKey(),
        json: { message: 'x' },
      });
      assertRefused(
        response,
        401,
        authorization === `Bearer ${'0'.repeat(64)}`
          ? /matches no conversation/
          : /Send exactly one header Authorization: Bearer/,
        `${method} ${path} ${authorization}`,
      );
      assert.equal(response.headers.get('www-authenticate'), 'Bearer', `${method} ${path} ${authorization}`);
      assert.equal(response.headers.get('cache-control'), 'no-store');
    }
    const other = await request(service.url, method, path.replace(mine.id, theirs.id), {
      token: mine.token,
      key: newKey(),
      json: { message: 'x' },
    });
    assertRefused(other, 403, /belongs to another conversation/);
    assert.equal(other.headers.get('cache-control'), 'no-store');
    const notUuid = await request(service.url, method, path.replace(mine.id, 'not-a-uuid'), {
      token: mine.token,
      key: newKey(),
      json: { message: 'x' },
    });
    assertRefused(notUuid, 400, /must be a UUID/);
    const inQuery = await request(service.url, method, `${path}?access_token=${mine.token}`, {
      key: newKey(),
      json: { message: 'x' },
    });
    assertRefused(inQuery, 400, /Never put the credential in a URL/);
    assert.ok(!inQuery.text.includes(mine.token));
  }
  const upper = await request(service.url, 'GET', `/api/v1/conversations/${mine.id.toUpperCase()}`, {
    token: mine.token,
  });
  assert.equal(upper.status, 200, 'ids compare case-insensitively');
  const scheme = await request(service.url, 'GET', `/api/v1/conversations/${mine.id}`, {
    headers: { authorization: `bearer ${mine.token}` },
  });
  assert.equal(scheme.status, 200, 'the scheme name is case-insensitive');
  assert.equal(service.store.messageCount(), 2, 'no refused follow-up was stored');
});

test('a credential issued by another server on the same database is accepted, and an unknown one still is not', async (t) => {
  // As during a restart that overlaps the old process: each server keeps its own record
  // of which credentials exist, and must learn of the other's openings.
  const service = await startTestService(t);
  const mine = await openConversation(service.url);
  assert.equal(
    (await request(service.url, 'GET', `/api/v1/conversations/${mine.id}`, { token: mine.token })).status,
    200,
  );
  const other = await startServerProcess(t, { DB_PATH: service.dbPath, CREATE_LIMIT_PER_HOUR: '0' });
  const theirs = await openConversation(other.url);
  const seen = await request(service.url, 'GET', `/api/v1/conversations/${theirs.id}/messages`, {
    token: theirs.token,
  });
  assert.equal(seen.status, 200);
  assert.equal(seen.body.items[0].message, 'Hello, owner.');
  const unknown = await request(service.url, 'GET', `/api/v1/conversations/${theirs.id}`, {
    token: theirs.token.replace(/^./, (c) => (c === '0' ? '1' : '0')),
  });
  assertRefused(unknown, 401, /matches no conversation/);
  assert.equal(
    (await request(other.url, 'GET', `/api/v1/conversations/${mine.id}`, { token: mine.token })).status,
    200,
  );
});

test('a credential past expires_at gets 410 on every conversation endpoint', async (t) => {
  const clock = fakeClock('2026-03-10T12:00:00.000Z');
  const service = await startTestService(t, { now: clock.now });
  const { id, token } = await openConversation(service.url);
  clock.set('2027-03-10T11:59:59.999Z');
  assert.equal((await request(service.url, 'GET', `/api/v1/conversations/${id}`, { token })).status, 200);
  clock.set('2027-03-10T12:00:00.000Z');
  for (const [method, path] of [
    ['GET', ''],
    ['GET', '/messages'],
    ['GET', '/updates'],
    ['POST', '/messages'],
  ]) {
    const response = await request(service.url, method as string, `/api/v1/conversations/${id}${path}`, {
      token,
      key: newKey(),
      json: { message: 'late' },
    });
    assertRefused(response, 410, /expired at 2027-03-10T12:00:00.000Z/);
  }
});

test('a conversation the owner blocked answers 403 saying so', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  service.store.setBlocked(id, true);
  const response = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token });
  assertRefused(response, 403, /owner has blocked/);
  service.store.setBlocked(id, false);
  assert.equal((await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token })).status, 200);
});

test('history pages with after and limit, has_more and next_after', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url, { message: 'm1' });
  for (let i = 2; i <= 5; i++) {
    await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: `m${i}` },
    });
  }
  ownerReply(service.store, id, 'o6');
  const page = (query: string) =>
    request(service.url, 'GET', `/api/v1/conversations/${id}/messages${query}`, { token });

  const all = await page('');
  assert.deepEqual(
    all.body.items.map((m: { seq: number }) => m.seq),
    [1, 2, 3, 4, 5, 6],
  );
  assert.deepEqual(
    all.body.items.map((m: { author: string }) => m.author),
    ['client', 'client', 'client', 'client', 'client', 'owner'],
  );
  assert.equal(all.body.has_more, false);
  assert.equal(all.body.next_after, 6);

  const first = await page('?limit=2');
  assert.deepEqual(
    first.body.items.map((m: { message: string }) => m.message),
    ['m1', 'm2'],
  );
  assert.equal(first.body.has_more, true);
  assert.equal(first.body.next_after, 2);
  const middle = await page('?after=2&limit=3');
  assert.deepEqual(
    middle.body.items.map((m: { seq: number }) => m.seq),
    [3, 4, 5],
  );
  assert.equal(middle.body.has_more, true);
  const last = await page('?after=5&limit=3');
  assert.deepEqual(
    last.body.items.map((m: { seq: number }) => m.seq),
    [6],
  );
  assert.equal(last.body.has_more, false);
  assert.equal(last.body.next_after, 6);
  const exactlyTheRest = await page('?after=2&limit=4'); // 3, 4, 5 and 6: nothing after them
  assert.deepEqual(
    exactlyTheRest.body.items.map((m: { seq: number }) => m.seq),
    [3, 4, 5, 6],
  );
  assert.equal(exactlyTheRest.body.has_more, false, 'exactly `limit` messages remained: none is left');
  assert.equal((await page('?after=1&limit=4')).body.has_more, true, 'one more than `limit` remained');
  const past = await page('?after=99');
  assert.deepEqual(past.body, { items: [], has_more: false, next_after: 99 });

  for (const [query, pattern] of [
    ['?limit=0', /`limit` must be a whole number from 1 to 100/],
    ['?limit=101', /`limit`/],
    ['?after=-1', /`after` must be a whole number 0 or greater/],
    ['?after=1.5', /`after`/],
    ['?after=x', /`after`/],
    ['?after=1&after=2', /repeated/],
  ] as const) {
    assertRefused(await page(query), 400, pattern, query);
  }
});

test('a follow-up is stored as the next seq; an identical retry returns the original with duplicate true', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const key = newKey();
  const created = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key,
    json: { message: 'second' },
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('cache-control'), 'no-store');
  assert.equal(created.body.duplicate, false);
  assert.deepEqual(Object.keys(created.body.message), ['seq', 'author', 'message', 'created_at']);
  assert.equal(created.body.message.seq, 2);
  assert.equal(created.body.message.author, 'client');

  const retry = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key,
    json: { message: 'second' },
  });
  assert.equal(retry.status, 200);
  assert.deepEqual(retry.body, { message: created.body.message, duplicate: true });

  const changed = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key,
    json: { message: 'changed' },
  });
  assertRefused(changed, 409, /already used for a different message/);

  const history = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token });
  assert.deepEqual(
    history.body.items.map((m: { message: string }) => m.message),
    ['Hello, owner.', 'second'],
  );
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(service.store.usage.count(today, 'all'), 2, 'the duplicate was counted nowhere');
});

test('follow-up keys are scoped to their conversation', async (t) => {
  const service = await startTestService(t);
  const a = await openConversation(service.url);
  const b = await openConversation(service.url);
  const key = newKey();
  for (const { id, token } of [a, b]) {
    const response = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key,
      json: { message: 'same' },
    });
    assert.equal(response.status, 201);
  }
});

test('identical follow-ups sent at once are stored once', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const key = newKey();
  const responses = await Promise.all(
    Array.from({ length: 10 }, () =>
      request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, { token, key, json: { message: 'once' } }),
    ),
  );
  assert.deepEqual(responses.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  assert.ok(responses.every((r) => r.body.message.seq === 2));
  const history = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token });
  assert.equal(history.body.items.length, 2);
});

test('status moves open → answered → open, and a closed conversation is readable but takes no follow-up', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const status = async () => (await request(service.url, 'GET', `/api/v1/conversations/${id}`, { token })).body.status;
  assert.equal(await status(), 'open');
  ownerReply(service.store, id, 'An answer.');
  assert.equal(await status(), 'answered');
  const key = newKey();
  await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key,
    json: { message: 'thanks' },
  });
  assert.equal(await status(), 'open');

  service.store.setStatus(id, 'closed', new Date().toISOString());
  assert.equal(await status(), 'closed');
  const refused = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: newKey(),
    json: { message: 'more' },
  });
  assertRefused(refused, 410, /closed this conversation/);
  const replay = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key,
    json: { message: 'thanks' },
  });
  assert.equal(replay.status, 200, 'an identical retry is answered from its record even when closed');
  assert.equal(replay.body.duplicate, true);
  const history = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token });
  assert.equal(history.body.items.length, 3);

  service.store.setStatus(id, 'open', new Date().toISOString());
  const reopened = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: newKey(),
    json: { message: 'more' },
  });
  assert.equal(reopened.status, 201);
});

test('updates signal owner replies after the given seq', async (t) => {
  const clock = fakeClock();
  const service = await startTestService(t, { now: clock.now });
  const { id, token } = await openConversation(service.url);
  const poll = async (query = '') => {
    clock.advance(60_000);
    return request(service.url, 'GET', `/api/v1/conversations/${id}/updates${query}`, { token });
  };
  const before = await poll();
  assert.equal(before.headers.get('cache-control'), 'no-store');
  assert.deepEqual(before.body, {
    id,
    status: 'open',
    last_seq: 1,
    latest_owner_seq: 0,
    new_reply: false,
    poll_after_seconds: 60,
  });
  ownerReply(service.store, id, 'Reply one.');
  const after = await poll();
  assert.deepEqual(after.body, {
    id,
    status: 'answered',
    last_seq: 2,
    latest_owner_seq: 2,
    new_reply: true,
    poll_after_seconds: 60,
  });
  assert.equal((await poll('?after=1')).body.new_reply, true);
  assert.equal((await poll('?after=2')).body.new_reply, false);
  await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: newKey(),
    json: { message: 'ok' },
  });
  const followed = await poll('?after=2');
  assert.deepEqual(followed.body, {
    id,
    status: 'open',
    last_seq: 3,
    latest_owner_seq: 2,
    new_reply: false,
    poll_after_seconds: 60,
  });
  assertRefused(await poll('?after=-5'), 400, /`after`/);
});

test('polling sooner than the interval gets 429 with an accurate Retry-After; waiting the interval never does', async (t) => {
  const clock = fakeClock();
  const service = await startTestService(t, { now: clock.now });
  const { id, token } = await openConversation(service.url);
  const other = await openConversation(service.url);
  const poll = (conversation = { id, token }, query = '') =>
    request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/updates${query}`, {
      token: conversation.token,
    });

  assert.equal((await poll()).status, 200, 'the first poll is always accepted');
  const early = await poll();
  assertRefused(early, 429, /at most once every 60 seconds/);
  assert.equal(early.headers.get('retry-after'), '55');
  assert.equal((await poll(other)).status, 200, 'each conversation has its own interval');
  clock.advance(30_000);
  assert.equal((await poll()).headers.get('retry-after'), '25');
  clock.advance(24_500);
  assert.equal((await poll()).headers.get('retry-after'), '1', 'never below 1');
  assertRefused(await poll({ id, token }, '?after=x'), 400, /`after`/, 'validation comes before the limit');
  clock.advance(500);
  assert.equal((await poll()).status, 200, 'accepted at interval minus 5 s');
  for (let i = 0; i < 5; i++) {
    clock.advance(60_000);
    assert.equal((await poll()).status, 200, 'a client that waits poll_after_seconds never sees 429');
  }
});

test('POLL_INTERVAL_SECONDS=0 turns off the poll limit', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openConversation(service.url);
  for (let i = 0; i < 3; i++) {
    const response = await request(service.url, 'GET', `/api/v1/conversations/${id}/updates`, { token });
    assert.equal(response.status, 200);
    assert.equal(response.body.poll_after_seconds, 0);
  }
});

test('checks run in the contract order, so one request never gets two answers', async (t) => {
  const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '2' } });
  const { id, token } = await openConversation(service.url);
  const post = (options: Parameters<typeof request>[3]) =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, options);
  const huge = JSON.stringify({ message: 'x' }).replace('{', `{${' '.repeat(17000)}`);

  assertRefused(await post({ body: huge, headers: { 'content-type': 'text/plain' } }), 401, /Authorization: Bearer/); // auth before anything
  assertRefused(await post({ token, body: huge, headers: { 'content-type': 'text/plain' } }), 415, /Content-Type/); // type before size
  assertRefused(
    await post({ token, body: huge, headers: { 'content-type': 'application/json' } }),
    413,
    /at most 16384 bytes/,
  ); // size before JSON
  assertRefused(
    await post({ token, body: '{', headers: { 'content-type': 'application/json' } }),
    400,
    /not valid JSON/,
  );
  assertRefused(
    await request(service.url, 'POST', `/api/v1/conversations/${OTHER_ID}/messages`, { token, json: { message: 'x' } }),
    403,
    /belongs to another conversation/,
  );

  const key = newKey();
  assert.equal((await post({ token, key, json: { message: 'second' } })).status, 201); // reaches the daily maximum of 2
  assertRefused(
    await post({ token, key: newKey(), json: { message: 'third' } }),
    429,
    /shared maximum of 2 messages per UTC day/,
  );
  assert.equal((await post({ token, key, json: { message: 'second' } })).status, 200, 'replay beats the limit');
  assertRefused(await post({ token, key, json: { message: 'changed' } }), 409, /already used for a different message/); // idempotency before limits
  service.store.setStatus(id, 'closed', new Date().toISOString());
  assertRefused(await post({ token, key: newKey(), json: { message: 'third' } }), 410, /closed this conversation/); // state before limits
});

test('two Authorization headers get 401, even when both carry the right credential', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const { hostname, port } = new URL(service.url);
  const answer = await new Promise<string>((resolve) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.end(
        `GET /api/v1/conversations/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
          `Authorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      ),
    );
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => resolve(received));
  });
  assert.match(answer, /^HTTP\/1\.1 401 /);
  assert.match(answer, /www-authenticate: Bearer/i);
  assert.match(answer, /Send exactly one header Authorization/);
});

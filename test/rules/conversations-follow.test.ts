// Conversations: follow-ups, status changes, updates and the poll clock,
// and the one order of checks.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownerReply as reply } from '../../src/rules/conversations.ts';
import type { Store } from '../../src/store/store.ts';
import { assertRefused, fakeClock, newKey, openConversation, request, startTestService } from '../helpers.ts';

const OTHER_ID = '7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11';

/** The owner's reply, written the way the owner script writes it. */
function ownerReply(store: Store, id: string, message: string) {
  return reply(store, id, message, { at: Date.now(), dailyMaximum: 0 });
}

test('a follow-up is stored as the next seq; an identical retry gets the original with duplicate true', async (t) => {
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
  assert.deepEqual(Object.keys(created.body.message), ['seq', 'author', 'message', 'created_at', 'verified_agent']);
  assert.equal(created.body.message.verified_agent, null, 'unsigned');
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
  assert.equal(service.store.quotaCounts.count(today, 'all'), 2, 'the duplicate was counted nowhere');
});

test('follow-up keys are scoped to their conversation', async (t) => {
  const service = await startTestService(t);
  const a = await openConversation(service.url);
  const b = await openConversation(service.url);
  const key = newKey();
  for (const [{ id, token }, text] of [[a, 'in a'], [b, 'in b']] as const) {
    const response = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key,
      json: { message: text },
    });
    assert.equal(response.status, 201, `${text}: the same key is new in another conversation`);
    assert.equal(response.body.duplicate, false);
  }
  // Each conversation stored its own message under the key, not the other's.
  for (const [{ id, token }, text] of [[a, 'in a'], [b, 'in b']] as const) {
    const history = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token });
    assert.deepEqual(
      history.body.items.map((m: { seq: number; message: string }) => [m.seq, m.message]),
      [[1, 'Hello, owner.'], [2, text]],
    );
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

test('status goes open → answered → open; a closed conversation is readable but takes no follow-up', async (t) => {
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
    question: null,
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
    question: null,
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
    question: null,
  });
  assertRefused(await poll('?after=-5'), 400, /`after`/);
});

test('polling too soon gets 429 with an accurate Retry-After; waiting the interval never does', async (t) => {
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

  // auth before anything
  assertRefused(await post({ body: huge, headers: { 'content-type': 'text/plain' } }), 401, /Authorization: Bearer/);
  // type before size
  assertRefused(await post({ token, body: huge, headers: { 'content-type': 'text/plain' } }), 415, /Content-Type/);
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
  // idempotency before limits
  assertRefused(await post({ token, key, json: { message: 'changed' } }), 409, /already used for a different message/);
  service.store.setStatus(id, 'closed', new Date().toISOString());
  // state before limits
  assertRefused(await post({ token, key: newKey(), json: { message: 'third' } }), 410, /closed this conversation/);
});

// Conversations, who may read what: the credential, its expiry, blocks,
// and reading the history page by page.

import assert from 'node:assert/strict';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import { ownerReply as reply } from '../../src/rules/conversations.ts';
import type { Store } from '../../src/store/store.ts';
import {
  assertRefused,
  fakeClock,
  newKey,
  openConversation,
  request,
  startServerProcess,
  startTestService,
} from '../helpers.ts';

/** The owner's reply, written the way the owner script writes it. */
function ownerReply(store: Store, id: string, message: string) {
  return reply(store, id, message, { at: Date.now(), dailyMaximum: 0 });
}

/** Every conversation endpoint of this id; POST sends a follow-up. */
const endpoints = (id: string) =>
  [
    ['GET', `/api/v1/conversations/${id}`],
    ['GET', `/api/v1/conversations/${id}/messages`],
    ['GET', `/api/v1/conversations/${id}/updates`],
    ['POST', `/api/v1/conversations/${id}/messages`],
  ] as const;

test('bearer authentication: 401 with WWW-Authenticate for a missing, malformed or unknown credential', async (t) => {
  const service = await startTestService(t);
  const mine = await openConversation(service.url);
  const badHeaders = [
    undefined,
    `Basic ${mine.token}`,
    'Bearer',
    `Bearer ${mine.token.toUpperCase()}`,
    `Bearer ${mine.token.slice(1)}`,
    `Bearer ${mine.token}x`,
    `Bearer ${'0'.repeat(64)}`,
  ];
  for (const [method, path] of endpoints(mine.id)) {
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
  }
  assert.equal(service.store.messageCount(), 1, 'no refused follow-up was stored');
});

test('bearer authentication: 403 for another id, 400 for a bad id or a credential in the URL', async (t) => {
  const service = await startTestService(t);
  const mine = await openConversation(service.url);
  const theirs = await openConversation(service.url);
  for (const [method, path] of endpoints(mine.id)) {
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
  assert.equal(service.store.messageCount(), 2, 'no refused follow-up was stored');
});

test('bearer authentication: the id and the scheme name are case-insensitive', async (t) => {
  const service = await startTestService(t);
  const mine = await openConversation(service.url);
  const upper = await request(service.url, 'GET', `/api/v1/conversations/${mine.id.toUpperCase()}`, {
    token: mine.token,
  });
  assert.equal(upper.status, 200, 'ids compare case-insensitively');
  const scheme = await request(service.url, 'GET', `/api/v1/conversations/${mine.id}`, {
    headers: { authorization: `bearer ${mine.token}` },
  });
  assert.equal(scheme.status, 200, 'the scheme name is case-insensitive');
});

test('a credential another server issued on the same database is accepted; an unknown one still is not', async (t) => {
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

/** A conversation of five client messages and an owner's reply; returns how to read a page of it. */
async function pagesOfSixMessages(t: TestContext) {
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
  return (query: string) => request(service.url, 'GET', `/api/v1/conversations/${id}/messages${query}`, { token });
}

test('history pages with after and limit, has_more and next_after', async (t) => {
  const page = await pagesOfSixMessages(t);
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
});

test('history refuses a bad after or limit with 400', async (t) => {
  const page = await pagesOfSixMessages(t);
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

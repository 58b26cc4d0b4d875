// Slow, vanished and hostile clients, and database faults: bounded, refused cleanly, nothing half-stored.

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';
import {
  assertRefused,
  newKey,
  openConversation,
  request,
  SHORT_TIMEOUTS,
  startTestService,
  upsertListingsAsOwner,
  waitUntil,
} from '../helpers.ts';

/** Opens a raw connection, writes `payload`, and resolves with all it receives until the server closes it. */
function rawExchange(url: string, payload: string): Promise<{ answer: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(payload));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
    socket.on('error', reject);
  });
}

test('a client that never finishes its headers gets 408 and the connection is closed', async (t) => {
  const service = await startTestService(t, { timeouts: SHORT_TIMEOUTS });
  const { answer } = await rawExchange(service.url, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  assert.match(answer, /^HTTP\/1\.1 408 /);
  assert.match(
    answer,
    new RegExp(
      '\\{"error":\\{"code":408,"reason":"request_timeout",' +
        '"message":"The request took too long to arrive; send it again\\."\\}\\}\\n$',
    ),
  );
});

test('a body that arrives too slowly or never finishes is cut off and stores nothing', async (t) => {
  const service = await startTestService(t, { timeouts: SHORT_TIMEOUTS });
  const body = JSON.stringify({ message: 'never completed' });
  const headers =
    `POST /api/v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
    `Idempotency-Key: ${newKey()}\r\nContent-Length: ${body.length}\r\n\r\n`;
  const { answer, closedAfterMs } = await rawExchange(service.url, headers + body.slice(0, 10));
  assert.ok(closedAfterMs < 5000, `closed after ${closedAfterMs} ms`);
  assert.ok(answer === '' || /^HTTP\/1\.1 408 /.test(answer), answer);
  assert.equal(service.store.messageCount(), 0);
  assert.equal((await request(service.url, 'GET', '/api/v1/health')).status, 200, 'the server still answers');
});

test('a client that connects and never sends a byte is dropped by the headers timeout', async (t) => {
  const service = await startTestService(t, { timeouts: SHORT_TIMEOUTS });
  const { answer, closedAfterMs } = await rawExchange(service.url, '');
  assert.ok(answer === '' || /^HTTP\/1\.1 408 /.test(answer), answer);
  assert.ok(closedAfterMs < 3000, `closed after ${closedAfterMs} ms`);
});

test('shutdown finishes a request in flight, then closes connections that never sent a request', async (t) => {
  const service = await startTestService(t, { timeouts: SHORT_TIMEOUTS });
  const { hostname, port } = new URL(service.url);
  const silent = net.connect(Number(port), hostname);
  await new Promise((resolve) => silent.on('connect', resolve));
  const silentClosed = new Promise((resolve) => silent.on('close', resolve));
  // A request whose body is still on its way when close() is called.
  const body = JSON.stringify({ message: 'during shutdown' });
  const busy = net.connect(Number(port), hostname);
  await new Promise((resolve) => busy.on('connect', resolve));
  let answer = '';
  busy.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  busy.write(
    `POST /api/v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
      `Idempotency-Key: ${newKey()}\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  // the request is in flight
  await waitUntil(() => answer.startsWith('HTTP/1.1 100 Continue'), 'the server is reading the body');
  const started = Date.now();
  const closed = service.close();
  busy.end(body);
  await closed;
  await silentClosed;
  assert.match(answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /, 'the request in flight was answered');
  assert.ok(Date.now() - started < 3000, `closed in ${Date.now() - started} ms`);
});

test('an idle kept-alive connection is closed after the keep-alive timeout', async (t) => {
  const service = await startTestService(t, { timeouts: SHORT_TIMEOUTS });
  const { answer, closedAfterMs } = await rawExchange(service.url, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 200 /);
  assert.ok(closedAfterMs < 3000, `closed after ${closedAfterMs} ms`);
});

test('a client that disconnects mid-body leaves nothing behind and the server carries on', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const { hostname, port } = new URL(service.url);
  const socket = net.connect(Number(port), hostname);
  await new Promise((resolve) => socket.on('connect', resolve));
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  socket.write(
    `POST /api/v1/conversations/${id}/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nIdempotency-Key: ${newKey()}\r\n` +
      `Content-Length: 200\r\nExpect: 100-continue\r\n\r\n`,
  );
  await waitUntil(() => answer.startsWith('HTTP/1.1 100 Continue'), 'the server is reading the body');
  socket.write('{"message": "half');
  socket.destroy();
  await waitUntil(() => service.logs.some((entry) => entry.aborted === true), 'the aborted request was logged');
  const history = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token });
  assert.equal(history.body.items.length, 1);
  assert.equal(
    service.logs.filter((entry) => entry.level === 'error').length,
    0,
    'a vanished client is not a server error',
  );
  const line = service.logs.find(
    (entry) => entry.route === '/api/v1/conversations/:id/messages' && entry.method === 'POST',
  );
  assert.deepEqual([line?.status, line?.aborted], [null, true], 'the request is still logged, as aborted');
});

test('a write lock held past the busy timeout refuses the POST with Retry-After; the server recovers', async (t) => {
  const service = await startTestService(t, { busyTimeoutMs: 100 });
  const { id, token } = await openConversation(service.url);
  const other = new DatabaseSync(service.dbPath);
  t.after(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  const key = newKey();
  const post = () =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key,
      json: { message: 'during the lock' },
    });
  const refused = await post();
  assertRefused(refused, 500, /database is busy\. Nothing was stored; retry shortly with the same Idempotency-Key/);
  assert.equal(refused.body.error.reason, 'database_busy');
  assert.equal(refused.headers.get('retry-after'), '2');
  assert.equal(
    (await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token })).status,
    200,
    'reads still work',
  );
  other.exec('ROLLBACK');
  const retried = await post();
  assert.equal(retried.status, 201, 'the same key works once the lock is gone');
  assert.equal(retried.body.message.seq, 2);
  const errors = service.logs.filter((entry) => entry.level === 'error');
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.request_id, refused.headers.get('x-request-id'), 'logged once, with the id the client got');
});

test('a full disk refuses the POST without acknowledging it; the server recovers when space returns', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const pages = (service.store.db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  service.store.db.exec(`PRAGMA max_page_count = ${pages}`); // SQLite now answers SQLITE_FULL on growth
  const key = newKey();
  const post = () =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key,
      json: { message: 'x'.repeat(8000) },
    });
  let refused = await post();
  for (let i = 0; i < 20 && refused.status === 201; i++)
    refused = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: 'y'.repeat(8000) },
    });
  assertRefused(refused, 500, /cannot store anything right now\. Nothing was stored/);
  assert.equal(refused.body.error.reason, 'database_unavailable');
  assert.equal(refused.headers.get('retry-after'), '30');
  service.store.db.exec('PRAGMA max_page_count = 1073741823');
  const retried = await post();
  assert.ok(retried.status === 201 || retried.status === 200);
  const history = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages?limit=100`, { token });
  const seqs = history.body.items.map((m: { seq: number }) => m.seq);
  assert.deepEqual(
    seqs,
    seqs.map((_: number, i: number) => i + 1),
    'no gap and no half-written message',
  );
});

test('a read-only database refuses the POST with Retry-After and keeps serving reads', async (t) => {
  // Root ignores file modes, so the read-only state is made inside SQLite instead.
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  service.store.db.exec('PRAGMA query_only = ON');
  const refused = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: 'hi' },
  });
  assertRefused(refused, 500, /cannot store anything right now/);
  assert.equal(refused.headers.get('retry-after'), '30');
  assert.equal((await request(service.url, 'GET', `/api/v1/conversations/${id}`, { token })).status, 200);
  assert.equal((await request(service.url, 'GET', '/api/v1/directory')).status, 200);
  service.store.db.exec('PRAGMA query_only = OFF');
  assert.equal(
    (await request(service.url, 'POST', '/api/v1/conversations', { key: newKey(), json: { message: 'hi' } })).status,
    201,
  );
});

test('SQL and LIKE metacharacters in q, category and slug give exact results', async (t) => {
  const service = await startTestService(t);
  const base = {
    kind: 'tool',
    description: 'd',
    url: 'https://x.example',
    docs_url: 'https://x.example/d',
    tags: 't',
    details: {},
    verified_at: '2026-01-01',
    status: 'documented',
  };
  upsertListingsAsOwner(service.dbPath, [
    { ...base, slug: 'pct', name: "100% O'Reilly \\ _under_", category: "cat%_'\\" },
    { ...base, slug: 'plain', name: '100 OReilly under', category: 'cat' },
  ]);
  const slugsFor = async (query: string) =>
    (await request(service.url, 'GET', `/api/v1/directory?${query}`)).body.items.map((i: { slug: string }) => i.slug);
  assert.deepEqual(await slugsFor(`q=${encodeURIComponent('100%')}`), ['pct', 'zeta-forum']); // "100% cotton" too
  assert.deepEqual(await slugsFor(`q=${encodeURIComponent("0% o'r")}`), ['pct']); // two words, % literal
  assert.deepEqual(await slugsFor(`q=${encodeURIComponent('_under_')}`), ['pct']);
  assert.deepEqual(await slugsFor(`q=${encodeURIComponent("O'Reilly \\")}`), ['pct']);
  assert.deepEqual(await slugsFor(`q=${encodeURIComponent("' OR 1=1 --")}`), []);
  assert.deepEqual(await slugsFor(`category=${encodeURIComponent("cat%_'\\")}`), ['pct']);
  assert.deepEqual(await slugsFor(`category=${encodeURIComponent('cat%')}`), []);
  assert.deepEqual(await slugsFor(`category=${encodeURIComponent('cat_')}`), []);
  for (const slug of ['%', '_', "pct' OR '1'='1", 'pct%', 'pc_']) {
    assertRefused(
      await request(service.url, 'GET', `/api/v1/directory/${encodeURIComponent(slug)}`),
      404,
      /No listing has this slug/,
      slug,
    );
  }
  assert.equal((await request(service.url, 'GET', '/api/v1/directory/pct')).status, 200);
});

// The HTTP layer: routes matched exactly, 404 and 405 with the error body, HEAD, CORS, caching headers.

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { BOUNDS } from '../../src/base/contract.ts';
import { assertRefused, request, startTestService } from '../helpers.ts';

/** Sends raw bytes and returns the raw answer (the server closes the connection). */
/** Sends `payload` on a raw socket; `afterContinue` is sent once the server says 100 Continue. */
function rawRequest(url: string, payload: string, afterContinue?: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(payload));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
      if (afterContinue !== undefined && answer.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        socket.write(afterContinue);
        afterContinue = undefined;
      }
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

test('an unknown route gets 404 with the error body', async (t) => {
  const service = await startTestService(t);
  for (const path of [
    '/nothing',
    '/api/v1',
    '/api/v2/directory',
    '/api/v1/nothing',
    '/api/v1/directory/a/b',
    '/listings/a/b',
  ]) {
    const response = await request(service.url, 'GET', path);
    assertRefused(response, 404, /There is no GET route at this path/, path);
  }
});

test('paths match exactly: a trailing slash or different case is not found', async (t) => {
  const service = await startTestService(t);
  for (const path of ['/api/v1/directory/', '/api/v1/health/', '/API/v1/health', '/api/v1//directory']) {
    const response = await request(service.url, 'GET', path);
    assertRefused(response, 404, /There is no GET route at this path/, path);
  }
});

test('another method on a known path gets 405 with Allow and the error body', async (t) => {
  const service = await startTestService(t);
  const cases: [string, string, string][] = [
    ['DELETE', '/api/v1/health', 'GET, HEAD, OPTIONS'],
    ['POST', '/api/v1/directory', 'GET, HEAD, OPTIONS'],
    ['PUT', '/api/v1/directory/alpha-api', 'GET, HEAD, OPTIONS'],
    ['GET', '/api/v1/conversations', 'POST, OPTIONS'],
    ['DELETE', '/api/v1/conversations/7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11/messages', 'GET, HEAD, POST, OPTIONS'],
    ['PATCH', '/api/v1/conversations/7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11', 'GET, HEAD, OPTIONS'],
  ];
  for (const [method, path, allow] of cases) {
    const response = await request(service.url, method, path);
    assertRefused(response, 405, new RegExp(`${method} is not allowed`), `${method} ${path}`);
    assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
  }
});

test('CORS: every answer allows any origin, and preflights get 204 with methods and headers', async (t) => {
  const service = await startTestService(t);
  const ok = await request(service.url, 'GET', '/api/v1/health');
  assert.equal(ok.headers.get('access-control-allow-origin'), '*');
  const error = await request(service.url, 'GET', '/api/v1/nowhere');
  assert.equal(error.headers.get('access-control-allow-origin'), '*');
  const preflight = await request(
    service.url,
    'OPTIONS',
    '/api/v1/conversations/7d1f0b8e-1c1e-4c33-9d2c-0d8f6c1e2a11/messages',
    {
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' },
    },
  );
  assert.equal(preflight.status, 204);
  assert.equal(preflight.text, '');
  assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, OPTIONS');
  assert.equal(preflight.headers.get('access-control-allow-headers'), 'Authorization, Content-Type, Idempotency-Key');
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
});

test('every answer carries an X-Request-Id that the log line names', async (t) => {
  const service = await startTestService(t);
  const response = await request(service.url, 'GET', '/api/v1/directory?limit=1');
  const id = response.headers.get('x-request-id');
  assert.match(id ?? '', /^[0-9a-f]{8}-[0-9a-z]+$/, 'a random prefix per start, then a count');
  const next = (await request(service.url, 'GET', '/api/v1/directory?limit=1')).headers.get('x-request-id');
  assert.notEqual(next, id, 'unique per request');
  const line = service.logs.find((entry) => entry.request_id === id);
  assert.equal(line?.route, '/api/v1/directory');
  assert.equal(line?.status, 200);
  assert.equal(line?.method, 'GET');
  assert.equal(typeof line?.duration_ms, 'number');
});

test('health answers ok after a real database query', async (t) => {
  const service = await startTestService(t);
  const response = await request(service.url, 'GET', '/api/v1/health');
  assert.equal(response.status, 200);
  assert.equal(response.body.status, 'ok');
  assert.equal(response.body.database, 'ok');
  assert.equal(response.body.listings, 12);
});

test('health gets 500 with the error body when the database cannot answer', async (t) => {
  const service = await startTestService(t);
  service.store.db.exec('DROP TABLE listings'); // the query health runs now fails
  const response = await request(service.url, 'GET', '/api/v1/health');
  const message = assertRefused(response, 500, /could not complete this request\. Nothing was stored/);
  assert.equal(response.body.error.reason, 'internal');
  assert.doesNotMatch(message, /SQL|listings|no such table/i);
  assert.equal(service.logs.filter((entry) => entry.level === 'error').length, 1);
});

test('contact-info gives the protocol steps, every limit as numbers and the privacy statement', async (t) => {
  const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '77', CREATE_LIMIT_PER_HOUR: '5' } });
  const response = await request(service.url, 'GET', '/api/v1/contact-info');
  assert.equal(response.status, 200);
  const { protocol, limits, privacy } = response.body;
  assert.ok(protocol.length >= 4);
  protocol.forEach((step: string, index: number) => assert.match(step, new RegExp(`^${index + 1}\\. `)));
  assert.deepEqual(limits, {
    json_body_max_bytes: 16384,
    message_min_chars: 1,
    message_max_chars: 8000,
    metadata_value_max_chars: 500,
    idempotency_key_min_length: 8,
    idempotency_key_max_length: 128,
    credential_lifetime_days: 365,
    daily_message_maximum: 77,
    daily_conversation_share: 50,
    daily_address_share: 0, // 100 would not bind: agents may store 70 of the 77
    daily_agent_share: 23, // the verified pool's by default
    daily_verified_share: 23, // a third of the 70 by default
    daily_unverified_share: 23,
    daily_owner_reserve: 7, // a tenth of the maximum at most
    poll_after_seconds: 60,
    updates_wait_max_seconds: 55,
    openings_per_address_per_hour: 5,
    requests_per_address_per_minute: 0,
    directory_q_max_chars: 120,
    directory_limit_default: 30,
    directory_limit_max: 100,
    directory_offset_max: 10000,
    history_limit_default: 50,
    history_limit_max: 100,
    question_choices_min: 2,
    question_choices_max: 8,
    choice_max_chars: 100,
    reply_by_min_seconds: 60,
    reply_by_max_days: 30,
  });
  assert.equal(limits.json_body_max_bytes, BOUNDS.bodyBytes);
  const creation = await request(service.url, 'POST', '/api/v1/conversations', {
    key: 'contact-info-key-1',
    json: { message: 'hi' },
  });
  assert.equal(privacy, creation.body.privacy);
});

test('malformed HTTP still gets the error body', async (t) => {
  const service = await startTestService(t);
  const bad = await rawRequest(service.url, 'GARBAGE\r\n\r\n');
  assert.match(bad, /^HTTP\/1\.1 400 /);
  assert.match(
    bad,
    /\{"error":\{"code":400,"reason":"malformed_http","message":"The request is not valid HTTP\/1\.1\."\}\}\n$/,
  );
  const huge = await rawRequest(
    service.url,
    `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`,
  );
  assert.match(huge, /^HTTP\/1\.1 431 /);
  assert.match(huge, /"code":431,"reason":"headers_too_large"/);
});

test('a missing or repeated Host and an unknown Expect get the error body, and a log line', async (t) => {
  const service = await startTestService(t);
  const health = (version: string, headers: string) =>
    rawRequest(service.url, `GET /api/v1/health HTTP/${version}\r\n${headers}Connection: close\r\n\r\n`);
  const noHost = await health('1.1', '');
  assert.match(noHost, /^HTTP\/1\.1 400 /);
  assert.match(noHost, /\{"error":\{"code":400,"reason":"host_header","message":"Send exactly one Host header/);
  assert.match(await health('1.1', 'Host: a\r\nHost: b\r\n'), /^HTTP\/1\.1 400 /, 'two Host headers');
  assert.match(await health('1.0', ''), /^HTTP\/1\.1 200 /, 'HTTP/1.0 needs no Host');
  const expect = await rawRequest(
    service.url,
    'POST /api/v1/conversations HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n' +
      'Content-Type: application/json\r\nContent-Length: 5\r\n\r\n',
  );
  assert.match(expect, /^HTTP\/1\.1 417 /);
  assert.match(expect, /"message":"Only Expect: 100-continue is understood/);
  const door = await rawRequest(
    service.url,
    'POST /a2a HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n',
  );
  const restBody = /^HTTP\/1\.1 417 [^]*\{"error":\{"code":417,"reason":"expectation_failed","message":"Only Expect/;
  assert.match(door, restBody, 'a door answers it as HTTP too');
  assert.deepEqual(
    service.logs.filter((entry) => entry.refusal !== undefined).map((entry) => [entry.status, entry.refusal]),
    [
      [400, 'host_header'],
      [400, 'host_header'],
      [417, 'expectation_failed'],
      [417, 'expectation_failed'],
    ],
  );
});

test('CONNECT gets 405 with Allow and the error body, not a dropped connection', async (t) => {
  const service = await startTestService(t);
  const answer = await rawRequest(service.url, 'CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 405 /);
  assert.match(answer, /\r\nallow: GET, HEAD, POST, PUT, DELETE, OPTIONS\r\n/i);
  assert.match(
    answer,
    new RegExp(
      '\\{"error":\\{"code":405,"reason":"method_not_allowed","message":"CONNECT is not allowed on this server; ' +
        'use GET, HEAD, POST, PUT, DELETE, OPTIONS\\."\\}\\}\\n$',
    ),
  );
});

test('Expect: 100-continue with a body over the limit gets 413 at once, never 100 Continue', async (t) => {
  const service = await startTestService(t);
  const head =
    'POST /api/v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
    'Idempotency-Key: expect-test-key-1\r\nExpect: 100-continue\r\nContent-Length: 20000\r\n\r\n';
  const answer = await rawRequest(service.url, head);
  assert.doesNotMatch(answer, /100 Continue/);
  assert.match(answer, /^HTTP\/1\.1 413 /);
  assert.match(answer, /"message":"The body must be at most 16384 bytes of JSON\."/);
  const fits = await rawRequest(
    service.url,
    head.replace('20000', '2').replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'),
    '{}',
  );
  assert.match(
    fits,
    /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /,
    'a body within the limit is asked for, then judged',
  );
});

test('HEAD works wherever GET does, with the same status and headers and no body', async (t) => {
  const service = await startTestService(t);
  const created = await request(service.url, 'POST', '/api/v1/conversations', {
    key: 'head-test-key-1',
    json: { message: 'hi' },
  });
  const { id, access_token: token } = created.body;
  for (const [path, options] of [
    ['/api/v1/health', {}],
    ['/api/v1/contact-info', {}],
    ['/api/v1/directory/alpha-api', {}],
    [`/api/v1/conversations/${id}`, { token }],
    [`/api/v1/conversations/${id}/messages`, { token }],
    ['/llms.txt', {}],
  ] as const) {
    const get = await request(service.url, 'GET', path, options);
    const head = await request(service.url, 'HEAD', path, options);
    assert.equal(head.status, get.status, path);
    assert.equal(head.text, '', path);
    assert.equal(head.headers.get('content-type'), get.headers.get('content-type'), path);
    assert.equal(head.headers.get('content-length'), get.headers.get('content-length'), path);
  }
  const unauthenticated = await request(service.url, 'HEAD', `/api/v1/conversations/${id}`);
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.headers.get('www-authenticate'), 'Bearer');
});

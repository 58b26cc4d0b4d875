// The limits: the shared daily maximum across the UTC day, openings per address, the request bucket, and the
// network an address counts as (src/rules/rates.ts networkOf).

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { ownerReply } from '../../src/rules/conversations.ts';
import { createPollClock, createRequestBuckets, networkOf } from '../../src/rules/rates.ts';
import {
  assertRefused,
  fakeClock,
  newKey,
  openConversation,
  request,
  startTestService,
  waitUntil,
} from '../helpers.ts';

test('the shared daily maximum counts openings, follow-ups and owner replies, and resets at 00:00 UTC', async (t) => {
  const clock = fakeClock('2026-03-10T23:59:00.000Z');
  const service = await startTestService(t, {
    now: clock.now,
    env: { DAILY_MESSAGE_LIMIT: '4', POLL_INTERVAL_SECONDS: '35' },
  });
  const { id, token } = await openConversation(service.url); // 1
  const post = (key: string, message: string) =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, { token, key, json: { message } });
  const firstKey = newKey();
  assert.equal((await post(firstKey, 'two')).status, 201); // 2
  ownerReply(service.store, id, 'three', { at: clock.now(), dailyMaximum: 4 }); // 3: owner replies count
  assert.equal((await post(newKey(), 'four')).status, 201); // 4
  assert.equal(service.store.quotaCounts.count('2026-03-10', 'all'), 4);

  clock.set('2026-03-10T23:59:30.250Z');
  const refusedKey = newKey();
  const refused = await post(refusedKey, 'five');
  assertRefused(refused, 429, /shared maximum of 4 messages per UTC day/);
  assert.equal(refused.headers.get('retry-after'), '30', 'seconds until 00:00 UTC, rounded up');
  const opening = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: 'new' },
  });
  assertRefused(opening, 429, /shared maximum of 4 messages per UTC day/);
  assert.equal(opening.headers.get('retry-after'), '30');
  // Another 429 with the same Retry-After in the same second (35 s less the 5 s grace) says what it is about.
  assert.equal((await request(service.url, 'GET', `/api/v1/conversations/${id}/updates`, { token })).status, 200);
  const pollTooSoon = await request(service.url, 'GET', `/api/v1/conversations/${id}/updates`, { token });
  assertRefused(pollTooSoon, 429, /Poll this conversation at most once every 35 seconds/);
  assert.equal(pollTooSoon.headers.get('retry-after'), '30');
  assert.throws(() => ownerReply(service.store, id, 'x', { at: clock.now(), dailyMaximum: 4 }), {
    reason: 'owner_daily_maximum',
  });
  assert.equal((await post(firstKey, 'two')).status, 200, 'an identical retry is answered at the maximum');
  assert.equal(service.store.quotaCounts.count('2026-03-10', 'all'), 4, 'refusals and duplicates count nothing');

  clock.set('2026-03-11T00:00:00.000Z');
  const afterMidnight = await post(refusedKey, 'five');
  assert.equal(afterMidnight.status, 201, 'the refused key is judged afresh after the reset');
  assert.equal(afterMidnight.body.message.seq, 5);
  assert.equal(service.store.quotaCounts.count('2026-03-11', 'all'), 1);
});

test('DAILY_MESSAGE_LIMIT=0 means unlimited: no maximum, and no share or reserve beneath it', async (t) => {
  // Shares of 2 would refuse the third message if 0 were read as the default maximum of 500.
  const env = { DAILY_MESSAGE_LIMIT: '0', DAILY_CONVERSATION_SHARE: '2', DAILY_ADDRESS_SHARE: '2' };
  const clock = fakeClock('2026-03-10T12:00:00.000Z');
  const service = await startTestService(t, { now: clock.now, env });
  const { id, token } = await openConversation(service.url);
  for (let i = 0; i < 5; i++) {
    const response = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: `m${i}` },
    });
    assert.equal(response.status, 201, `message ${i + 2} of the conversation`);
  }
  assert.equal((await openConversation(service.url)).id.length, 36, 'a second opening from the same address');
  assert.equal(service.store.quotaCounts.count('2026-03-10', 'all'), 7, 'each stored message was counted');
  const info = await request(service.url, 'GET', '/api/v1/contact-info');
  assert.equal(info.body.limits.daily_message_maximum, 0);
  assert.equal(info.body.limits.daily_conversation_share, 0, 'no share is published either');
});

test('openings per address are limited over a sliding hour; Retry-After says when the oldest leaves it', async (t) => {
  const clock = fakeClock('2026-03-10T12:00:00.000Z');
  const service = await startTestService(t, { now: clock.now, env: { CREATE_LIMIT_PER_HOUR: '2' } });
  const open = (key = newKey(), json: unknown = { message: 'hi' }) =>
    request(service.url, 'POST', '/api/v1/conversations', { key, json });
  assert.equal((await open()).status, 201);
  // refused openings are not counted
  assertRefused(await open(newKey(), { message: '' }), 400, /`message` must not be empty/);
  clock.advance(20 * 60_000);
  assert.equal((await open()).status, 201);
  clock.advance(10 * 60_000);
  const key = newKey();
  const refused = await open(key);
  assertRefused(refused, 429, /At most 2 conversations may be opened per hour from one address/);
  assert.equal(refused.headers.get('retry-after'), String(30 * 60), 'until the first opening is an hour old');
  assertRefused(await open(), 429, /At most 2 conversations may be opened per hour/);
  clock.advance(30 * 60_000);
  assert.equal((await open(key)).status, 201, 'the refused key is judged afresh');
});

test('requests per address are limited by a token bucket; health is exempt', async (t) => {
  const clock = fakeClock();
  const service = await startTestService(t, { now: clock.now, env: { REQUEST_LIMIT_PER_MINUTE: '6' } });
  for (let i = 0; i < 6; i++)
    assert.equal((await request(service.url, 'GET', '/api/v1/directory?limit=1')).status, 200);
  const refused = await request(service.url, 'GET', '/api/v1/directory?limit=1');
  assertRefused(refused, 429, /Too many requests from your address/);
  assert.equal(refused.headers.get('retry-after'), '10', 'one token returns every 60/6 seconds');
  // counted before routing
  assertRefused(await request(service.url, 'GET', '/api/v1/nowhere'), 429, /Too many requests from your address/);
  assert.equal((await request(service.url, 'GET', '/api/v1/health')).status, 200);
  clock.advance(10_000);
  assert.equal((await request(service.url, 'GET', '/api/v1/directory?limit=1')).status, 200);
  assertRefused(
    await request(service.url, 'GET', '/api/v1/directory?limit=1'),
    429,
    /Too many requests from your address/,
  );
});

test('TRUST_PROXY=1 takes the client address from the last X-Forwarded-For hop; 0 ignores the header', async (t) => {
  const proxied = await startTestService(t, { env: { REQUEST_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '1' } });
  const from = (service: { url: string }, forwarded: string) =>
    request(service.url, 'GET', '/api/v1/contact-info', { headers: { 'x-forwarded-for': forwarded } });
  assert.equal((await from(proxied, 'spoofed, 203.0.113.1')).status, 200);
  assertRefused(await from(proxied, 'other-spoof, 203.0.113.1'), 429, /Too many requests/); // same last hop
  assert.equal((await from(proxied, '203.0.113.1, 198.51.100.7')).status, 200);
  assert.equal(proxied.logs.at(-1)?.client, '198.51.100.7');

  const direct = await startTestService(t, { env: { REQUEST_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '0' } });
  assert.equal((await from(direct, '203.0.113.1')).status, 200);
  assertRefused(await from(direct, '198.51.100.7'), 429, /Too many requests/); // the socket address is what counts
});

test('behind a proxy, a hop written with a port, brackets or a zone is the same sender as without them', async (t) => {
  const service = await startTestService(t, { env: { REQUEST_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '1' } });
  const from = (forwarded: string) =>
    request(service.url, 'GET', '/api/v1/contact-info', { headers: { 'x-forwarded-for': forwarded } });
  const spellings = [
    ['3.3.3.3', '3.3.3.3:1234', 'proxy, 3.3.3.3:5678'],
    ['2001:db8::1', '[2001:db8::1]:443', '[2001:db8::1]'],
    ['fe80::1%eth0', 'fe80::1%eth1', 'fe80::1'],
  ];
  for (const [first, ...others] of spellings) {
    assert.equal((await from(first as string)).status, 200, first);
    for (const other of others) assertRefused(await from(other), 429, /Too many requests/, `${other} is ${first}`);
  }
  // A hop that is no address is ignored: the proxy's own address (the socket's) counts.
  assert.equal((await from('unknown')).status, 200);
  assertRefused(await from('999.1.1.1:80'), 429, /Too many requests/, 'not an address: the socket counts');
  assertRefused(await request(service.url, 'GET', '/api/v1/contact-info'), 429, /Too many/, 'as without a header');
  assert.equal(service.logs.at(-1)?.client, '127.0.0.1');
});

test('the request rate counts an IPv6 client as its /64, an IPv4-mapped one as its IPv4 address', async (t) => {
  const service = await startTestService(t, { env: { REQUEST_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '1' } });
  const from = (forwarded: string) =>
    request(service.url, 'GET', '/api/v1/contact-info', { headers: { 'x-forwarded-for': forwarded } });
  assert.equal((await from('2001:db8:1:2::1')).status, 200);
  assertRefused(await from('2001:db8:1:2:ffff::9'), 429, /Too many requests/, 'another address of the /64');
  assert.equal((await from('2001:db8:1:3::1')).status, 200, 'the next /64');
  assert.equal((await from('203.0.113.5')).status, 200);
  assertRefused(await from('::ffff:203.0.113.5'), 429, /Too many requests/, 'the mapped form');
});

test('a request the rate refuses is answered at once, on /mcp too: no wait for its body, no socket kept', async (t) => {
  const service = await startTestService(t, { env: { REQUEST_LIMIT_PER_MINUTE: '1' } });
  assert.equal((await request(service.url, 'GET', '/api/v1/contact-info')).status, 200);
  const { hostname, port } = new URL(service.url);
  const socket = net.connect(Number(port), hostname);
  t.after(() => socket.destroy());
  let answer = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
  // A JSON-RPC body announced and never sent: the refusal must not wait for it to echo its id.
  socket.write('POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n');
  let closed = false;
  socket.on('close', () => (closed = true)).on('error', () => {});
  await waitUntil(() => answer.includes('too_many_requests'), 'the 429, before any body');
  assert.match(answer, /^HTTP\/1\.1 429 /);
  assert.match(answer, /\r\nconnection: close\r\n/i);
  assert.match(answer, /"id":null/);
  await waitUntil(() => closed, 'the server closes the socket whose body it will not read');
});

test('the request rate drops buckets that have refilled, so idle clients cost no memory', () => {
  const buckets = createRequestBuckets(60);
  buckets.take('a', 0);
  buckets.take('b', 0);
  buckets.sweep(500);
  assert.equal(buckets.size, 2);
  buckets.sweep(1000);
  assert.equal(buckets.size, 0);
});

test('the poll clock remembers news it told, through a plain poll and a sweep: asked again, a plain poll', () => {
  const clock = createPollClock(60); // a gap of 55 s
  const news = '2 open';
  const wait = { waitSeconds: 55, held: false, answersWithNews: true, news }; // the owner already wrote
  const plain = { waitSeconds: 0, held: false, answersWithNews: true, news };
  assert.equal(clock.take('c', 0, wait), 0, 'new news: counted as the wait it asked for');
  assert.equal(clock.take('c', 0, plain), 0, 'a plain poll right after is let in, and remembers the news');
  assert.equal(clock.take('c', 1_000, wait), 54, 'asked again for the same news: the gap runs');
  clock.sweep(56_000);
  assert.equal(clock.take('c', 56_000, wait), 0, 'after the gap, accepted: counted as a plain poll');
  assert.ok(clock.take('c', 56_000, plain) > 0, 'so the next one waits the gap');
});

test('the poll clock never refuses a poll with news it has not told; one with nothing new keeps the gap', () => {
  const clock = createPollClock(60); // a gap of 55 s
  const poll = (news: string) => ({ waitSeconds: 0, held: false, answersWithNews: false, news });
  assert.equal(clock.take('c', 0, poll('0 open')), 0, 'the first poll');
  assert.equal(clock.take('c', 1_000, poll('0 open')), 54, 'nothing new: the gap runs');
  assert.equal(clock.take('c', 2_000, poll('3 open')), 0, 'the owner replied since: answered at once');
  assert.equal(clock.take('c', 3_000, poll('3 open')), 54, 'told; nothing new again');
  assert.equal(clock.take('c', 4_000, poll('3 closed')), 0, 'a close is news');
  assert.equal(clock.take('c', 5_000, poll('3 open')), 0, 'and so is a reopen');
  assert.equal(clock.take('c', 6_000, poll('3 open')), 54);
});

test('an address counts as itself when IPv4, as its /64 when IPv6; what is no address stays as it is', () => {
  const table: [address: string, network: string][] = [
    ['203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['unknown', 'unknown'],
    ['2001:db8::zz', '2001:db8::zz'],
  ];
  for (const [address, network] of table) assert.equal(networkOf(address), network, address);
});

test('an IPv6 client counts as its /64 for every per-address limit, an IPv4-mapped one as its IPv4', async (t) => {
  const service = await startTestService(t, { env: { TRUST_PROXY: '1', CREATE_LIMIT_PER_HOUR: '2' } });
  const open = (address: string) =>
    request(service.url, 'POST', '/api/v1/conversations', {
      key: newKey(),
      json: { message: 'from a /64' },
      headers: { 'x-forwarded-for': address },
    });
  assert.equal((await open('2001:db8:1:2::1')).status, 201);
  assert.equal((await open('2001:db8:1:2:aaaa::4')).status, 201);
  assertRefused(await open('2001:0db8:0001:0002:0:0:0:9'), 429, /opened per hour/, 'another address of the same /64');
  assert.equal((await open('2001:db8:1:3::1')).status, 201, 'the next /64 is another sender');
  assert.equal((await open('203.0.113.9')).status, 201);
  assert.equal((await open('::ffff:203.0.113.9')).status, 201);
  assertRefused(await open('203.0.113.9'), 429, /opened per hour/, 'the mapped form counted as the IPv4 address');
  assert.equal(service.logs.at(-1)?.client, '203.0.113.9', 'the log keeps the address itself');
});

test('an IPv4 address mapped into IPv6, written in hex, counts as the IPv4 address', () => {
  assert.equal(networkOf('::ffff:0102:0304'), '1.2.3.4');
  assert.equal(networkOf('::FFFF:10.0.0.1'), '10.0.0.1');
  assert.equal(networkOf('2001:0db8:0001:0002:0:0:0:9'), '2001:db8:1:2::/64');
});

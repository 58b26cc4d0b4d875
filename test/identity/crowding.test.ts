// Nothing crowds out verification or delivery (src/identity/key-directory.ts, the key directories'
// own lookup budget in runtime/verified-agents.ts), black-box over HTTP: one address naming fresh
// tarpit key directories holds at most two fetches while a known agent, and a new one elsewhere, are
// verified; a flood of instantly refused directories does not push out a known one; names that never
// resolve hold only the key directories' own lookup, so webhooks are still registered and delivered;
// a key rotated in is found within a minute, and a directory that answers 404 withdraws its keys;
// naming a page of an agent's host that is not a directory does not make that host's agents wait.

import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { fakeClock, newKey, request, runOwner, waitUntil, type TestService } from '../helpers.ts';
import { receiver } from '../receiver.ts';
import {
  agentKey,
  jwkSet,
  resolve,
  signedHeaders,
  startKeyDirectory,
  startVerifyingService,
  TEST_HOSTS,
} from './agents.ts';
import type { Signing } from './agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';

async function openFrom(service: TestService, address: string, signing: Signing) {
  const headers = { 'x-forwarded-for': address, ...(await signedHeaders(service, 'POST', OPEN, signing)) };
  return request(service.url, 'POST', OPEN, { key: newKey(), json: { message: 'Hello.' }, headers });
}

/** A tarpit: accepts every connection and never answers; counts them. */
async function tarpit(t: TestContext) {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer(() => {});
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port, connections: () => sockets.size };
}

test('one address naming fresh tarpit directories holds two fetches; known and new agents are verified', async (t) => {
  const known = await startKeyDirectory(t, [KEY]);
  const fresh = await startKeyDirectory(t, [KEY], 'site8.test');
  const trap = await tarpit(t);
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1', REQUEST_LIMIT_PER_MINUTE: '0' } });
  assert.equal((await openFrom(service, '10.0.0.9', { key: KEY, agent: known.origin })).status, 201);

  const hosts = TEST_HOSTS.filter((host) => host.startsWith('site') && host !== 'site8.test');
  const flood = hosts.map((host) => openFrom(service, '10.6.6.6', { key: KEY, agent: `http://${host}:${trap.port}` }));
  await waitUntil(() => trap.connections() === 2, "the attacker's two fetches reach the tarpit");
  const held = await openFrom(service, '10.6.6.6', { key: KEY, agent: `http://a.agent.test:${trap.port}` });
  assert.equal(held.status, 503, held.text);
  assert.match(held.body.error.message, /fetched at once \(or from your address\)/);
  for (let i = 0; i < 3; i++) {
    assert.equal((await openFrom(service, '10.0.0.9', { key: KEY, agent: known.origin })).status, 201, 'known');
  }
  assert.equal((await openFrom(service, '10.0.0.8', { key: KEY, agent: fresh.origin })).status, 201, 'a new agent');
  assert.equal(trap.connections(), 2, 'the tarpit saw two fetches, no more');
  const answers = await Promise.race([Promise.all(flood), new Promise((done) => setTimeout(done, 10, null))]);
  assert.equal(answers, null, 'the two held requests still wait for the tarpit');
});

test("a flood of refused key directories does not push out a known agent's", async (t) => {
  const known = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1', REQUEST_LIMIT_PER_MINUTE: '0' } });
  assert.equal((await openFrom(service, '10.0.0.9', { key: KEY, agent: known.origin })).status, 201);
  for (let i = 0; i < 1_100; i++) {
    const agent = `https://10.${(i >> 8) & 255}.${i & 255}.1/${'k'.repeat(1_500)}`;
    const refused = await openFrom(service, `10.7.${(i >> 8) & 255}.${i & 255}`, { key: KEY, agent });
    assert.equal(refused.status, 503);
  }
  assert.equal((await openFrom(service, '10.0.0.9', { key: KEY, agent: known.origin })).status, 201);
  assert.equal(known.fetched.length, 1, 'still held: never fetched again');
});

test("names that never resolve hold only key directories' lookup: webhooks registered and delivered", async (t) => {
  const hook = await receiver(t);
  const port = new URL(hook.url).port;
  const stalled: string[] = [];
  const resolver = (host: string): Promise<readonly LookupAddress[]> => {
    if (host.startsWith('stall')) {
      stalled.push(host);
      return new Promise(() => {}); // a name whose DNS server never answers
    }
    return host === 'hooks.test' ? Promise.resolve([{ address: '127.0.0.1', family: 4 }]) : resolve(host);
  };
  const env = { TRUST_PROXY: '1', REQUEST_LIMIT_PER_MINUTE: '0', OUTBOUND_ALLOWED_HOSTS: `hooks.test:${port}` };
  const timing = { tickMs: 20, retryAfterMs: [50], giveUpAfterMs: 60_000 };
  const service = await startVerifyingService(t, {
    env,
    lookups: { resolve: resolver, lookupTimeoutMs: 100 },
    deliveryTiming: timing,
  });
  const opened = await request(service.url, 'POST', OPEN, { key: newKey(), json: { message: 'Hello.' } });
  for (let i = 0; i < 20; i++) {
    const answer = await openFrom(service, `10.8.0.${i}`, { key: KEY, agent: `https://stall${i}.example` });
    assert.equal(answer.status, 503, answer.text);
  }
  assert.equal(stalled.length, 1, 'one lookup of their own, held; the others were refused at once');
  const webhook = `http://hooks.test:${port}/hooks`;
  for (let i = 0; i < 5; i++) {
    const registered = await request(service.url, 'PUT', `${OPEN}/${opened.body.id}/webhook`, {
      token: opened.body.access_token,
      json: { url: webhook },
    });
    assert.ok([200, 201].includes(registered.status), registered.text);
  }
  assert.equal((await runOwner(service.dbPath, ['reply', opened.body.id, 'Here is my answer.'])).code, 0);
  await waitUntil(() => hook.received.length === 1, 'the reply is delivered');
  assert.match(hook.received[0]!.body, /conversation\.replied/);
});

test('a key rotated in is found within a minute; a directory that answers 404 withdraws its keys', async (t) => {
  const clock = fakeClock('2026-11-28T12:00:00.000Z');
  const [A, B] = [KEY, agentKey()];
  const directory = await startKeyDirectory(t, [A]);
  const service = await startVerifyingService(t, { now: clock.now });
  const at = (signing: Signing) => ({ ...signing, now: clock.now() });
  assert.equal((await openFrom(service, '127.0.0.1', at({ key: A, agent: directory.origin }))).status, 201);
  directory.answer = jwkSet([A, B]); // the operator adds a key
  const early = await openFrom(service, '127.0.0.1', at({ key: B, agent: directory.origin }));
  assert.equal(early.status, 401, 'within a minute of the last fetch, an unknown key');
  clock.advance(61_000);
  assert.equal((await openFrom(service, '127.0.0.1', at({ key: B, agent: directory.origin }))).status, 201);
  assert.equal(directory.fetched.length, 2, 'one fetch for the rotation');

  directory.answer = (_req, res) => void res.writeHead(404).end();
  clock.advance(3_600_000); // the directory's hour is over
  const withdrawn = await openFrom(service, '127.0.0.1', at({ key: A, agent: directory.origin }));
  assert.equal(withdrawn.status, 503, withdrawn.text);
  assert.match(withdrawn.body.error.message, /answered 404: its keys are withdrawn/);
});

test("naming a page of an agent's host that is not a key directory keeps none of its agents waiting", async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const real = directory.answer;
  directory.answer = (req, res) => {
    if (req.url === '/.well-known/http-message-signatures-directory') return real(req, res);
    if (req.url === '/gone') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a page</html>');
  };
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1' } });
  for (const page of ['/gone', '/about']) {
    const poisoned = await openFrom(service, '10.6.6.6', { key: KEY, agent: `${directory.origin}${page}` });
    assert.equal(poisoned.status, 503, poisoned.text);
    assert.equal(poisoned.body.error.reason, 'key_directory_unavailable');
  }
  const agent = await openFrom(service, '10.0.0.9', { key: KEY, agent: directory.origin });
  assert.equal(agent.status, 201, agent.text);
  assert.equal(agent.body.verified_agent, directory.origin);
  assert.deepEqual(directory.fetched, ['/gone', '/about', '/.well-known/http-message-signatures-directory']);
});

// The day's limits with verified agents: unsigned senders from any number of addresses stop at the
// unverified pool while a verified agent and the owner still write; a verified agent stops at its
// share whatever address it writes from; no number of requests in flight passes either.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertRefused,
  newKey,
  request,
  runOwner,
  statuses,
  type ApiResponse,
  type TestService,
} from '../helpers.ts';
import { heldRequest } from '../held-request.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from './agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';
const from = (address: string) => ({ 'x-forwarded-for': address });

/** Opens a conversation from `address`, signed when `signing` is given. */
async function openFrom(service: TestService, address: string, signing?: Signing) {
  const signature = signing ? await signedHeaders(service, 'POST', OPEN, signing) : {};
  const headers = { ...from(address), ...signature };
  return request(service.url, 'POST', OPEN, { key: newKey(), json: { message: 'Hello.' }, headers });
}

/** Follow-ups from `address` until one is refused; the refusal. */
async function writeUntilRefused(service: TestService, opened: ApiResponse, address: string, signing?: Signing) {
  const path = `${OPEN}/${opened.body.id}/messages`;
  for (let sent = 0; sent < 100; sent++) {
    const signature = signing ? await signedHeaders(service, 'POST', path, signing) : {};
    const answer = await request(service.url, 'POST', path, {
      token: opened.body.access_token,
      key: newKey(),
      json: { message: `number ${sent}` },
      headers: { ...from(address), ...signature },
    });
    if (answer.status !== 201) return answer;
  }
  throw new Error('no limit was met');
}

test('unsigned senders from many addresses stop at the pool; a verified agent and the owner still write', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  // 40 a day: 4 kept for the owner, 36 for clients, of which 18 is the unverified pool.
  const env = { TRUST_PROXY: '1', DAILY_MESSAGE_LIMIT: '40', DAILY_ADDRESS_SHARE: '6' };
  const service = await startVerifyingService(t, { env });
  for (const address of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
    const opened = await openFrom(service, address);
    assert.equal(opened.status, 201, address);
    assertRefused(await writeUntilRefused(service, opened, address), 429, /share of 6 messages/, address);
  }
  const fourth = await openFrom(service, '10.0.0.4');
  assertRefused(fourth, 429, /Unsigned requests from all agents together have stored their 18 messages/);
  assert.equal(fourth.body.error.reason, 'unverified_pool');

  const signing = { key: KEY, agent: directory.origin };
  const verified = await openFrom(service, '10.0.0.1', signing); // an address whose share is used
  assert.equal(verified.status, 201, verified.text);
  const reply = await runOwner(service.dbPath, ['reply', verified.body.id, 'Welcome.']);
  assert.equal(reply.code, 0, reply.stderr);
  const stats = JSON.parse((await runOwner(service.dbPath, ['stats', '--json'])).stdout);
  assert.deepEqual(stats.unverified_today, { count: 18, pool: 18 });
});

test('a verified agent stops at its share from every address, while others still write', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const otherKey = agentKey();
  const otherDirectory = await startKeyDirectory(t, [otherKey]);
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1', DAILY_AGENT_SHARE: '5' } });
  const signing = { key: KEY, agent: directory.origin };
  const opened = await openFrom(service, '10.0.0.1', signing);
  const refused = await writeUntilRefused(service, opened, '10.0.0.2', signing);
  assertRefused(refused, 429, /Your agent .* has stored its share of 5 messages/);
  assert.equal(refused.body.error.reason, 'agent_share');
  assertRefused(await openFrom(service, '10.0.0.3', signing), 429, /share of 5/, 'a third address changes nothing');
  assert.equal((await openFrom(service, '10.0.0.1')).status, 201, 'unsigned, its address still has its share');
  const another = await openFrom(service, '10.0.0.1', { key: otherKey, agent: otherDirectory.origin });
  assert.equal(another.status, 201, 'another verified agent has a share of its own');
  assert.equal(service.store.messageCount(), 7);
});

/** Requests held past every check made before the body, then their bodies sent together. */
async function inFlightTogether(requests: ReturnType<typeof heldRequest>[]) {
  await Promise.all(requests.map((held) => held.continued));
  return Promise.all(requests.map((held) => held.send()));
}

test('30 signed follow-ups in flight at once store exactly the agent share', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { env: { DAILY_AGENT_SHARE: '6' } });
  const signing = { key: KEY, agent: directory.origin };
  const opened = await openFrom(service, '127.0.0.1', signing); // the first of its 6
  const path = `${OPEN}/${opened.body.id}/messages`;
  const headers = await signedHeaders(service, 'POST', path, signing);
  const token = opened.body.access_token;
  const held = Array.from({ length: 30 }, (_, i) =>
    heldRequest(service.url, path, { token, key: newKey(), json: { message: `m${i}` }, headers }),
  );
  assert.deepEqual(statuses(await inFlightTogether(held)), { 201: 5, 429: 25 });
  assert.equal(service.store.messageCount(), 6);
});

test('30 unsigned openings from 30 addresses in flight at once store exactly the pool', async (t) => {
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1', DAILY_UNVERIFIED_SHARE: '7' } });
  const held = Array.from({ length: 30 }, (_, i) =>
    heldRequest(service.url, OPEN, { key: newKey(), json: { message: `m${i}` }, headers: from(`10.0.1.${i}`) }),
  );
  const answers = await inFlightTogether(held);
  assert.deepEqual(statuses(answers), { 201: 7, 429: 23 });
  for (const refused of answers.filter((answer) => answer.status === 429)) {
    assert.equal(refused.body.error.reason, 'unverified_pool');
  }
  assert.equal(service.store.messageCount(), 7);
});

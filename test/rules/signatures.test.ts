// A signature authorizes one write (src/rules/signatures.ts), on every door: a captured signature
// replayed with another write is refused 401 signature_replayed and stores nothing, however many are
// in flight; the idempotent retry of the first write is still answered as its duplicate; reads are not
// limited. The kept signatures are forgotten when they expire, and bounded when the maximum is off.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_USED_SIGNATURES, refuseUsedSignature } from '../../src/rules/signatures.ts';
import { Refusal } from '../../src/refusals/refusal.ts';
import { Store } from '../../src/store/store.ts';
import * as a2a from '../doors/a2a/calls.ts';
import * as mcp from '../doors/mcp/calls.ts';
import { fakeClock, newKey, request, statuses, type TestService } from '../helpers.ts';
import { heldRequest } from '../held-request.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, stored } from '../identity/agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';

async function setUp(t: import('node:test').TestContext) {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  return { service, signing: { key: KEY, agent: directory.origin } };
}

function post(
  service: TestService,
  path: string,
  headers: Record<string, string>,
  options: { token?: string; key?: string; message?: string } = {},
) {
  const json = { message: options.message ?? 'Hello.' };
  return request(service.url, 'POST', path, { token: options.token, key: options.key ?? newKey(), json, headers });
}

test('REST: a replayed signature opens and sends nothing; the duplicate retry and reads still answer', async (t) => {
  const { service, signing } = await setUp(t);
  const captured = await signedHeaders(service, 'POST', OPEN, signing);
  const opened = await post(service, OPEN, captured);
  assert.equal(opened.status, 201, opened.text);
  const replayed = await post(service, OPEN, captured, { message: "The attacker's own words." });
  assert.equal(replayed.status, 401, replayed.text);
  assert.equal(replayed.body.error.reason, 'signature_replayed');
  assert.match(replayed.body.error.message, /authorizes one write\. Nothing was stored\. Sign each write anew/);

  const token = opened.body.access_token as string;
  const messages = `${OPEN}/${opened.body.id}/messages`;
  const followUp = await signedHeaders(service, 'POST', messages, signing);
  const key = newKey();
  assert.equal((await post(service, messages, followUp, { token, key })).status, 201);
  const retry = await post(service, messages, followUp, { token, key });
  assert.equal(retry.status, 200, 'the same write again is its duplicate, whatever signs it');
  assert.equal(retry.body.duplicate, true);
  const other = await post(service, messages, followUp, { token, message: 'Another write.' });
  assert.equal(other.body.error.reason, 'signature_replayed', "the opening's signature, too, is spent");
  const opening = await post(service, messages, captured, { token, message: "With the opening's signature." });
  assert.equal(opening.body.error.reason, 'signature_replayed');
  for (let i = 0; i < 3; i++) {
    const read = await request(service.url, 'GET', messages, { token, headers: followUp });
    assert.equal(read.status, 200, 'reads are not limited by it');
  }
  assert.deepEqual(stored(service), { conversations: 1, messages: 2 });
});

test('REST: 30 writes in flight with one captured signature store exactly one', async (t) => {
  const { service, signing } = await setUp(t);
  const opened = await post(service, OPEN, await signedHeaders(service, 'POST', OPEN, signing));
  const messages = `${OPEN}/${opened.body.id}/messages`;
  const headers = await signedHeaders(service, 'POST', messages, signing);
  const token = opened.body.access_token as string;
  const held = Array.from({ length: 30 }, (_, i) =>
    heldRequest(service.url, messages, { token, key: newKey(), json: { message: `m${i}` }, headers }),
  );
  await Promise.all(held.map((request) => request.continued));
  assert.deepEqual(statuses(await Promise.all(held.map((request) => request.send()))), { 201: 1, 401: 29 });
  assert.deepEqual(stored(service), { conversations: 1, messages: 2 });
});

test('a write checked before its signature expired and stored after is refused: no replay outlives it', async (t) => {
  const clock = fakeClock('2026-11-28T12:00:00.000Z');
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { now: clock.now });
  const created = Math.floor(clock.now() / 1000) - 5;
  const signing = { key: KEY, agent: directory.origin, now: clock.now(), created, expires: created + 60 };
  const headers = await signedHeaders(service, 'POST', OPEN, signing);
  const held = Array.from({ length: 3 }, (_, i) =>
    heldRequest(service.url, OPEN, { key: newKey(), json: { message: `m${i}` }, headers }),
  );
  await Promise.all(held.map((request) => request.continued)); // each passed the signature check
  clock.advance(120_000); // the bodies arrive once the signature has expired
  const answers = await Promise.all(held.map((request) => request.send()));
  assert.deepEqual(statuses(answers), { 401: 3 });
  for (const answer of answers) {
    assert.equal(answer.body.error.reason, 'signature_invalid');
    assert.match(answer.body.error.message, /expired at 2026-11-28T12:00:55\.000Z, before its write was stored/);
  }
  assert.deepEqual(stored(service), { conversations: 0, messages: 0 });
});

test('MCP: a replayed signature is the tool error REST would answer, and stores nothing', async (t) => {
  const { service, signing } = await setUp(t);
  const headers = await signedHeaders(service, 'POST', '/mcp', signing);
  const open = (message: string) =>
    mcp.rpc(service, mcp.call('tools/call', { name: 'open_conversation', arguments: { message } }), { headers });
  const first = await open('Hello over MCP.');
  assert.equal(first.body.result.isError, false, first.text);
  assert.equal(first.body.result.structuredContent.verified_agent, signing.agent, 'the opening says it counted');
  const again = await open('Replayed.');
  assert.equal(again.body.result.isError, true);
  const error = JSON.parse(again.body.result.content[0].text).error;
  assert.deepEqual([error.code, error.reason], [401, 'signature_replayed']);
  assert.deepEqual(stored(service), { conversations: 1, messages: 1 });
});

test('A2A: a replayed signature is refused, and stores nothing', async (t) => {
  const { service, signing } = await setUp(t);
  const headers = await signedHeaders(service, 'POST', '/a2a', signing);
  const first = await a2a.rpc(service, 'SendMessage', a2a.message('Hello over A2A.'), headers);
  assert.equal(first.body.result.task.metadata.verifiedAgent, signing.agent, first.text);
  const again = await a2a.rpc(service, 'SendMessage', a2a.message('Replayed.'), headers);
  assert.equal(again.status, 401, again.text);
  assert.match(again.body.error.message, /already authorized a stored message/);
  assert.deepEqual(stored(service), { conversations: 1, messages: 1 });
});

test('used signatures are forgotten once expired, and bounded when the maximum is off', () => {
  const store = new Store(':memory:');
  const at = Date.UTC(2026, 10, 28);
  const use = (digest: string, expiresAt = at + 60_000) => ({ digest, expiresAt });
  store.transaction(() => {
    const insert = store.db.prepare('INSERT INTO used_signatures VALUES (unhex(?), ?, ?, ?)');
    for (let i = 0; i < MAX_USED_SIGNATURES; i++) insert.run(i.toString(16).padStart(64, '0'), at + 1000 + i, 'c', i);
  });
  const refusal = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      return err instanceof Refusal ? err : undefined;
    }
    return undefined;
  };
  const full = refusal(() => refuseUsedSignature(store, use('ab'.repeat(32)), at, 0));
  assert.equal(full?.reason, 'signatures_full');
  assert.equal(full?.headers['retry-after'], '1', 'until the soonest one expires');
  assert.equal(
    refusal(() => refuseUsedSignature(store, use('ab'.repeat(32)), at, 500)),
    undefined,
    'a maximum bounds them',
  );
  assert.equal(
    refusal(() => refuseUsedSignature(store, use('ab'.repeat(32)), at + 1000 + 10, 0)),
    undefined,
  );
  assert.equal(store.usedSignatures.held().count, MAX_USED_SIGNATURES - 11, 'the expired ones are forgotten');
  store.close();
});

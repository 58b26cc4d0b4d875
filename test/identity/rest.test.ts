// Verified agents over REST, end to end: requests signed by another author's RFC 9421 library,
// keys read from a key directory served over HTTP, each outcome of the decision's table with its
// status and reason, and nothing stored for a refused request.
// Covers: src/identity/signed-request.ts, src/identity/key-directory.ts, src/runtime/verified-agents.ts,
// src/service/guards.ts.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { assertRefused, newKey, request, runOwner, type TestService } from '../helpers.ts';
import {
  agentKey,
  signedHeaders,
  startKeyDirectory,
  startVerifyingService,
  stored,
  verifiedAgentOf,
  type Signing,
} from './agents.ts';

const KEY = agentKey();
const OTHER_KEY = agentKey();
const OPEN = '/api/v1/conversations';
const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

/** Opens a conversation with the headers `signing` makes (unsigned without it). */
async function open(service: TestService, signing?: Signing, message = 'Hello, owner.') {
  const headers = signing ? await signedHeaders(service, 'POST', OPEN, signing) : {};
  const json = { message, metadata: { agent_name: 'scout' } };
  return request(service.url, 'POST', OPEN, { key: newKey(), json, headers });
}

/** Sends a follow-up with the headers `signing` makes (unsigned without it). */
async function followUp(service: TestService, opened: { id: string; token: string }, signing?: Signing) {
  const path = `${OPEN}/${opened.id}/messages`;
  const headers = signing ? await signedHeaders(service, 'POST', path, signing) : {};
  const json = { message: 'More.' };
  return request(service.url, 'POST', path, { token: opened.token, key: newKey(), json, headers });
}

test('a signed opening is verified as the origin of its key directory, which is read once', async (t) => {
  const directory = await startKeyDirectory(t, [OTHER_KEY, KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: directory.origin };
  const opened = await open(service, signing);
  assert.equal(opened.status, 201, opened.text);
  assert.equal(await verifiedAgentOf(service, opened), directory.origin);
  const conversation = { id: opened.body.id as string, token: opened.body.access_token as string };

  const signedFollowUp = await followUp(service, conversation, signing);
  assert.equal(signedFollowUp.status, 201, signedFollowUp.text);
  assert.equal(signedFollowUp.body.message.verified_agent, directory.origin);
  const unsigned = await followUp(service, conversation);
  assert.equal(unsigned.status, 201, 'the credential alone still authorizes the conversation');
  assert.equal(unsigned.body.message.verified_agent, null);
  await runOwner(service.dbPath, ['reply', conversation.id, 'Hello, scout.']);

  const read = await request(service.url, 'GET', `${OPEN}/${conversation.id}/messages`, { token: conversation.token });
  const shown = read.body.items.map((m: Record<string, unknown>) => [m.author, m.verified_agent]);
  assert.deepEqual(shown, [
    ['client', directory.origin],
    ['client', directory.origin],
    ['client', null],
    ['owner', undefined], // the owner's messages carry no verified_agent at all
  ]);
  const record = await request(service.url, 'GET', `${OPEN}/${conversation.id}`, { token: conversation.token });
  assert.equal(record.body.verified_agent, directory.origin, 'the conversation keeps the identity of its opening');
  assert.deepEqual(directory.fetched, [WELL_KNOWN], 'the directory was read once and kept');
});

test('an unsigned opening is served as before, and its conversation is unverified', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const opened = await open(service);
  assert.equal(opened.status, 201);
  assert.equal(await verifiedAgentOf(service, opened), null);
  assert.deepEqual(directory.fetched, []);
});

test('refused before any fetch: 400 malformed; 401 expired, not yet valid, another alg', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const agent = directory.origin;
  const cases: Array<[string, Signing, number, string, RegExp]> = [
    ['no keyid', { key: KEY, agent, params: ['created', 'expires', 'tag'] }, 400, 'signature_malformed', /keyid/],
    ['expired', { key: KEY, agent, now: Date.now() - 3_600_000 }, 401, 'signature_invalid', /expired/],
    ['not yet valid', { key: KEY, agent, now: Date.now() + 600_000 }, 401, 'signature_invalid', /ahead of this/],
    ['wrong alg', { key: KEY, agent, paramValues: { alg: 'rsa-pss-sha512' } }, 401, 'signature_invalid', /ed25519/],
  ];
  for (const [label, signing, status, reason, says] of cases) {
    const answer = await open(service, signing);
    assertRefused(answer, status, says, label);
    assert.equal(answer.body.error.reason, reason, label);
  }
  const garbled = await request(service.url, 'POST', OPEN, {
    key: newKey(),
    json: { message: 'Hello.' },
    headers: { 'signature-input': 'sig1=("@authority";tag="web-bot-auth"', signature: 'sig1=:AA==:' },
  });
  assertRefused(garbled, 400, /Signature-Input/, 'a header that does not parse');
  assert.equal(garbled.body.error.reason, 'signature_malformed');
  assert.deepEqual(directory.fetched, [], 'no refusal above needed the directory');
  assert.deepEqual(stored(service), { conversations: 0, messages: 0 });
});

test('with the directory read: 401 for an unknown key, another authority, a signature that fails', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const agent = directory.origin;
  const unknownKey = await open(service, { key: OTHER_KEY, agent });
  assertRefused(unknownKey, 401, /key/, 'a key its directory does not hold');
  const elsewhere = await open(service, { key: KEY, agent, url: `https://elsewhere.example${OPEN}` });
  assertRefused(elsewhere, 401, /does not verify/, 'signed for another site');
  const headers = await signedHeaders(service, 'POST', OPEN, { key: KEY, agent });
  headers.signature = headers.signature!.replace(/:(.)/, (_, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
  const tampered = await request(service.url, 'POST', OPEN, { key: newKey(), json: { message: 'Hi.' }, headers });
  assertRefused(tampered, 401, /does not verify/, 'a signature changed on the way');
  for (const answer of [unknownKey, elsewhere, tampered]) assert.equal(answer.body.error.reason, 'signature_invalid');
  assert.deepEqual(stored(service), { conversations: 0, messages: 0 });
  assert.equal((await open(service, { key: KEY, agent })).status, 201, 'the same key still verifies when used right');
});

test("a signature for another site is refused though Host names that site: @authority is this service's", async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const headers = await signedHeaders(service, 'POST', OPEN, {
    key: KEY,
    agent: directory.origin,
    url: `http://elsewhere.example${OPEN}`,
  });
  const body = JSON.stringify({ message: 'Replayed from elsewhere.' });
  const status = await new Promise<number>((resolve, reject) => {
    const json = { 'content-type': 'application/json', 'idempotency-key': newKey() };
    const sent = http.request(`${service.url}${OPEN}`, {
      method: 'POST',
      headers: { ...headers, ...json, host: 'elsewhere.example' },
    });
    sent.on('response', (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject);
    sent.end(body);
  });
  assert.equal(status, 401);
  assert.deepEqual(stored(service), { conversations: 0, messages: 0 });
});

test('a signed follow-up that is refused stores nothing, and the conversation goes on', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const opened = await open(service);
  const conversation = { id: opened.body.id as string, token: opened.body.access_token as string };
  const refused = await followUp(service, conversation, { key: OTHER_KEY, agent: directory.origin });
  assertRefused(refused, 401, /key/);
  assert.deepEqual(stored(service), { conversations: 1, messages: 1 });
  assert.equal((await followUp(service, conversation)).status, 201);
});

test('public reads ignore signatures, however broken; the conversation routes all judge them', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const broken = { 'signature-input': 'sig1=(;tag="web-bot-auth"', signature: '!' };
  for (const path of ['/api/v1/directory', '/api/v1/contact-info', '/llms.txt', '/', '/.well-known/agent-card.json']) {
    assert.equal((await request(service.url, 'GET', path, { headers: broken })).status, 200, path);
  }
  const opened = await open(service);
  const { id, access_token: token } = opened.body;
  for (const [method, path] of [
    ['GET', `${OPEN}/${id}`],
    ['GET', `${OPEN}/${id}/messages`],
    ['GET', `${OPEN}/${id}/updates`],
    ['GET', `${OPEN}/${id}/webhook`],
    ['DELETE', `${OPEN}/${id}/webhook`],
  ] as const) {
    const answer = await request(service.url, method, path, { token, headers: broken });
    assertRefused(answer, 400, /Signature-Input/, `${method} ${path}`);
  }
  assert.deepEqual(directory.fetched, []);
});

test('nothing is fetched for a request the per-address limit refuses, signed or not', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { env: { REQUEST_LIMIT_PER_MINUTE: '1' } });
  assert.equal((await open(service)).status, 201);
  const limited = await open(service, { key: KEY, agent: directory.origin });
  assertRefused(limited, 429, /requests/);
  assert.deepEqual(directory.fetched, [], 'the limit is judged before the signature');
});

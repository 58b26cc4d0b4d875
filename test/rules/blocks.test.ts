// The owner's blocks (src/rules/blocks.ts), through the owner script as a child process: a sender or a
// site block refuses its openings and follow-ups everywhere, blocks every conversation it opened, ends
// the polls held on them and gives their day back, so that one command undoes a flood; lifting it
// unblocks exactly those and counts their day again. However an agent spells its key directory, one
// block holds it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { assertRefused, newKey, request, runOwner, waitUntil, type TestService } from '../helpers.ts';
import { heldRequest } from '../held-request.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from '../identity/agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';
const from = (address: string) => ({ 'x-forwarded-for': address });

async function open(service: TestService, signing?: Signing, headers: Record<string, string> = {}) {
  const signature = signing ? await signedHeaders(service, 'POST', OPEN, signing) : {};
  const json = { message: 'Hello, owner.', metadata: { agent_name: 'scout' } };
  const answer = await request(service.url, 'POST', OPEN, {
    key: newKey(),
    json,
    headers: { ...headers, ...signature },
  });
  return { ...answer, id: answer.body?.id as string, token: answer.body?.access_token as string };
}

async function followUp(service: TestService, opened: { id: string; token: string }, signing?: Signing, headers = {}) {
  const messages = `${OPEN}/${opened.id}/messages`;
  const signature = signing ? await signedHeaders(service, 'POST', messages, signing) : {};
  const json = { message: 'And another thing.' };
  return request(service.url, 'POST', messages, {
    token: opened.token,
    key: newKey(),
    json,
    headers: { ...headers, ...signature },
  });
}

async function owner(service: TestService, ...args: string[]) {
  const result = await runOwner(service.dbPath, args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

test('one block undoes a flood of ten conversations: their day comes back, and others write again', async (t) => {
  const env = { TRUST_PROXY: '1', DAILY_MESSAGE_LIMIT: '100', DAILY_UNVERIFIED_SHARE: '20', DAILY_ADDRESS_SHARE: '50' };
  const service = await startVerifyingService(t, { env });
  const flood = [];
  for (let i = 0; i < 10; i++) {
    const opened = await open(service, undefined, from('10.0.0.1'));
    assert.equal((await followUp(service, opened, undefined, from('10.0.0.1'))).status, 201);
    flood.push(opened);
  }
  const other = await open(service, undefined, from('10.0.0.2'));
  assert.equal(other.body.error.reason, 'unverified_pool', 'the flood took the unverified pool');

  const blocked = await owner(service, 'block', flood[3]!.id, '--sender');
  const others = flood.filter((_, i) => i !== 3).map((opened) => opened.id.slice(0, 8));
  assert.equal(
    blocked,
    `Blocked ${flood[3]!.id} and its sender, its address (by its keyed hash); this also refuses 9 conversations: ` +
      `${others.join(', ')} (an address may be shared: a NAT, a cloud host).\n`,
  );
  assert.equal((await open(service, undefined, from('10.0.0.2'))).status, 201, 'the day was given back');
  const inbox = await owner(service, 'inbox');
  assert.equal(inbox.match(/^BLOCKED /gm)?.length, 10, inbox);
  assertRefused(await followUp(service, flood[0]!, undefined, from('10.0.0.3')), 403, /blocked this conversation/);

  const again = await owner(service, 'block', flood[5]!.id, '--sender');
  assert.match(again, /^The sender of .*, its address \(by its keyed hash\), is already blocked\.$/m, 'exit 0');
  const lifted = await owner(service, 'unblock', flood[0]!.id, '--sender');
  assert.match(lifted, /^Unblocked the sender of .*; unblocked with it: 10 conversations: /);
  assert.equal(
    (await open(service, undefined, from('10.0.0.2'))).body.error.reason,
    'unverified_pool',
    'counted again',
  );
});

test('a sender block answers the polls held on every conversation of that sender', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: directory.origin };
  const first = await open(service, signing);
  const second = await open(service, signing);
  const updates = `${OPEN}/${second.id}/updates?after=1&wait=55`;
  const waiting = request(service.url, 'GET', updates, { token: second.token });
  await waitUntil(() => service.waitingPolls() === 1, 'the poll on the second conversation is held');
  assert.match(await owner(service, 'block', first.id, '--sender'), /this also refuses 1 conversation: /);
  await waitUntil(() => service.waitingPolls() === 0, 'the block answers the held poll');
  assert.equal((await waiting).status, 403);
});

test('block --sender refuses a verified agent everywhere; unblock lifts exactly what it blocked', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { env: { DAILY_SITE_SHARE: '4' } });
  const signing = { key: KEY, agent: directory.origin };
  const first = await open(service, signing);
  for (const _ of [1, 2]) assert.equal((await followUp(service, first, signing)).status, 201);
  const second = await open(service, signing);
  const unsigned = await open(service);
  assertRefused(await followUp(service, second, signing), 429, /share of 4/, 'the site used its share');
  await owner(service, 'block', second.id);

  const blocked = await owner(service, 'block', first.id, '--sender');
  assert.equal(blocked, `Blocked ${first.id} and its sender, the verified agent ${directory.origin}.\n`);
  for (const answer of [await followUp(service, unsigned, signing), await open(service, signing)]) {
    assertRefused(answer, 403, /blocked you as a sender/);
    assert.equal(answer.body.error.reason, 'sender_blocked');
  }
  assert.equal((await followUp(service, unsigned)).status, 201, 'unsigned, from the same address: another sender');
  assert.match(await owner(service, 'agents'), /\(BLOCKED\)/);

  const lifted = await owner(service, 'unblock', first.id, '--sender');
  assert.match(lifted, /unblocked with it: 1 conversation: /);
  assert.match(await owner(service, 'show', second.id), /status +open \(blocked\)/, 'blocked alone, it stays blocked');
  // The first conversation's 3 count again; the second, still blocked alone, stays given back.
  assert.equal((await followUp(service, first, signing)).status, 201);
  assertRefused(await followUp(service, first, signing), 429, /share of 4/, 'the first conversation counts again');
});

test('block --site blocks every verified agent of a site and what they opened; no subdomain is a site', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const port = new URL(directory.origin).port;
  const service = await startVerifyingService(t);
  const agent = (sub: string) => ({ key: KEY, agent: `http://${sub}.agent.test:${port}` });
  const a = await open(service, agent('a'));
  const b = await open(service, agent('b'));
  const other = await startKeyDirectory(t, [KEY], 'site1.test');
  const elsewhere = await open(service, { key: KEY, agent: other.origin });

  const wrong = await runOwner(service.dbPath, ['block', '--site', 'a.agent.test']);
  assert.equal(wrong.code, 1);
  assert.equal(wrong.stderr, 'error: a.agent.test is not a site: the site it belongs to is agent.test\n');
  const blocked = await owner(service, 'block', '--site', 'agent.test');
  assert.equal(
    blocked,
    `Blocked the site agent.test, every verified agent of it; blocked with it: 2 conversations: ` +
      `${a.id.slice(0, 8)}, ${b.id.slice(0, 8)}.\n`,
  );
  assertRefused(await open(service, agent('c')), 403, /blocked you as a sender/);
  assertRefused(await followUp(service, a), 403, /blocked this conversation/);
  assert.equal((await followUp(service, elsewhere, { key: KEY, agent: other.origin })).status, 201, 'another site');
  assert.match(await owner(service, 'show', a.id), /status +open \(blocked with the site agent\.test\)/);
  assert.match(await owner(service, 'block', '--site', 'agent.test'), /^The site agent\.test is already blocked\.$/m);

  assert.match(
    await owner(service, 'unblock', '--site', 'agent.test'),
    /^Unblocked the site agent\.test; unblocked with it/,
  );
  assert.equal((await open(service, agent('c'))).status, 201);
  const again = await runOwner(service.dbPath, ['unblock', '--site', 'agent.test']);
  assert.deepEqual([again.code, again.stderr], [1, 'error: the site agent.test is not blocked\n']);
});

test('lifting one block leaves blocked what another block still covers, until that one is lifted too', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: `http://a.agent.test:${new URL(directory.origin).port}` };
  const a = await open(service, signing);
  assert.match(await owner(service, 'block', a.id, '--sender'), /and its sender, the verified agent/);
  assert.match(await owner(service, 'block', '--site', 'agent.test'), /^Blocked the site agent\.test/);
  assert.doesNotMatch(await owner(service, 'unblock', a.id, '--sender'), /unblocked with it/);
  assert.match(await owner(service, 'show', a.id), /status +open \(blocked with the site agent\.test\)/);
  const read = { token: a.token };
  assertRefused(await request(service.url, 'GET', `${OPEN}/${a.id}`, read), 403, /blocked this conversation/);
  assert.match(await owner(service, 'unblock', '--site', 'agent.test'), /unblocked with it: 1 conversation/);
  assert.equal((await request(service.url, 'GET', `${OPEN}/${a.id}`, read)).status, 200);
  assert.equal((await followUp(service, a, signing)).status, 201);
});

test('every spelling of one key directory is one sender: a block of one refuses them all', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const port = new URL(directory.origin).port;
  const service = await startVerifyingService(t);
  const origin = await open(service, { key: KEY, agent: `http://agent.test:${port}` });
  await owner(service, 'block', origin.id, '--sender');
  const wellKnown = '/.well-known/http-message-signatures-directory';
  for (const spelling of [
    `http://AGENT.test:${port}/`,
    `http://agent.test:${port}${wellKnown}`,
    `http://agent.test:${port}${wellKnown}/`,
  ]) {
    assertRefused(await open(service, { key: KEY, agent: spelling }), 403, /blocked you as a sender/, spelling);
  }
  const jwks = await open(service, { key: KEY, agent: `http://agent.test:${port}/keys/~scout/jwks` });
  await owner(service, 'block', jwks.id, '--sender');
  for (const spelling of ['/keys/~scout/jwks/', '/keys/%7Escout/jwks', '/keys/%7escout/%6Awks?v=2']) {
    const signing = { key: KEY, agent: `http://agent.test:${port}${spelling}` };
    assertRefused(await open(service, signing), 403, /blocked you as a sender/, spelling);
  }
});

test('a sender block stops follow-ups of its other conversations already in flight', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: directory.origin };
  const first = await open(service, signing);
  const second = await open(service);
  const messages = `${OPEN}/${second.id}/messages`;
  const held = await Promise.all(
    Array.from({ length: 10 }, async (_, i) => {
      const headers = await signedHeaders(service, 'POST', messages, signing);
      return heldRequest(service.url, messages, {
        token: second.token,
        key: newKey(),
        json: { message: `late ${i}` },
        headers,
      });
    }),
  );
  await Promise.all(held.map((request) => request.continued));
  await owner(service, 'block', first.id, '--sender');
  for (const answer of await Promise.all(held.map((request) => request.send()))) {
    assertRefused(answer, 403, /blocked you as a sender/);
  }
  assert.equal(service.store.messageCount(), 2);
});

test('a block gives each sender back its own messages of the day; an unblock takes each its own again', async (t) => {
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1', DAILY_ADDRESS_SHARE: '6' } });
  const opened = await open(service, undefined, from('10.0.0.1')); // A: 1
  const messages = `${OPEN}/${opened.id}/messages`;
  const send = (token: string, path: string, address: string) =>
    request(service.url, 'POST', path, { token, key: newKey(), json: { message: 'More.' }, headers: from(address) });
  for (let i = 0; i < 5; i++) assert.equal((await send(opened.token, messages, '10.0.0.2')).status, 201); // B: 5

  await owner(service, 'block', opened.id);
  const fromB = await open(service, undefined, from('10.0.0.2')); // B: 1, its 5 given back
  const toB = `${OPEN}/${fromB.id}/messages`;
  for (let i = 0; i < 5; i++) assert.equal((await send(fromB.token, toB, '10.0.0.2')).status, 201);
  assertRefused(await send(fromB.token, toB, '10.0.0.2'), 429, /share of 6/);

  await owner(service, 'unblock', opened.id); // A: 1 again, B: 11
  assert.equal((await open(service, undefined, from('10.0.0.1'))).status, 201, "A's count holds only its own message");
  assertRefused(await open(service, undefined, from('10.0.0.2')), 429, /share of 6/);
  assert.ok(!readFileSync(service.dbPath).includes('10.0.0.1'), 'no address is stored in clear');
});

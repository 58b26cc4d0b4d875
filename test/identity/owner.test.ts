// What the owner sees of verified agents and does about them, through the owner script as a child
// process: every view says `verified: <host>` or `(unverified)`, the notifier is told who wrote,
// `agents` lists them, and `block --sender` stops a sender everywhere and gives its day back.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  assertRefused,
  newKey,
  request,
  runOwner,
  tempDir,
  waitUntil,
  type TestService,
} from '../helpers.ts';
import { heldRequest } from '../held-request.ts';
import { startWatch } from '../owner-run.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from './agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';

async function open(service: TestService, signing?: Signing, headers: Record<string, string> = {}) {
  const signature = signing ? await signedHeaders(service, 'POST', OPEN, signing) : {};
  const json = { message: 'Hello, owner.', metadata: { agent_name: 'scout' } };
  const all = { ...headers, ...signature };
  const answer = await request(service.url, 'POST', OPEN, { key: newKey(), json, headers: all });
  return { ...answer, id: answer.body.id as string, token: answer.body.access_token as string };
}

async function followUp(service: TestService, opened: { id: string; token: string }, signing?: Signing) {
  const messages = `${OPEN}/${opened.id}/messages`;
  const headers = signing ? await signedHeaders(service, 'POST', messages, signing) : {};
  const json = { message: 'And another thing.' };
  return request(service.url, 'POST', messages, { token: opened.token, key: newKey(), json, headers });
}

async function owner(service: TestService, ...args: string[]) {
  const result = await runOwner(service.dbPath, args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

test('inbox, show, export, watch and the notifier say who is verified, and agents lists them', async (t) => {
  const dir = tempDir(t);
  const notifier = path.join(dir, 'notify.sh');
  const told = path.join(dir, 'told.txt');
  writeFileSync(notifier, `#!/bin/sh\necho "$SENDER|$VERIFIED_AGENT|$AGENT_NAME" >> "${told}"\n`, { mode: 0o755 });
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { dir, env: { NOTIFY_COMMAND: notifier } });
  const host = directory.origin.replace('http://', '');
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching/);
  const signing = { key: KEY, agent: directory.origin };
  const verified = await open(service, signing);
  assert.equal((await followUp(service, verified)).status, 201);
  await open(service);

  await watch.waitFor(new RegExp(`scout \\(verified: ${host}\\)`));
  const inbox = await owner(service, 'inbox');
  assert.match(inbox, new RegExp(`${verified.id} .* scout \\(verified: ${host}\\)`));
  assert.match(inbox, /scout \(unverified\)/);
  const shown = await owner(service, 'show', verified.id);
  assert.match(shown, new RegExp(`from +scout \\(verified: ${host}\\)`));
  assert.match(shown, new RegExp(`#1 {2}client \\(verified: ${host}\\)`));
  assert.match(shown, /#2 {2}client \(unverified\)/, 'an unsigned follow-up is shown unverified');
  const exported = (await owner(service, 'export', verified.id)).trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(exported[0].verified_agent, directory.origin);
  assert.deepEqual(
    exported[0].messages.map((m: { verified_agent: unknown }) => m.verified_agent),
    [directory.origin, null],
  );
  const agents = await owner(service, 'agents');
  assert.ok(agents.startsWith(`        ${directory.origin}  1 conversation, 1 message, 1 of 225 today`), agents);

  await waitUntil(() => readFileSync(told, 'utf8').trim().split('\n').length === 3, 'three notifications');
  assert.deepEqual(readFileSync(told, 'utf8').trim().split('\n'), [
    `scout (verified: ${host})|${directory.origin}|scout`,
    'scout (unverified)||scout',
    'scout (unverified)||scout',
  ]);
  await watch.interrupt();
});

test('block --sender refuses a verified agent in its other conversations and new ones; unblock lifts it', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t, { env: { DAILY_AGENT_SHARE: '4' } });
  const signing = { key: KEY, agent: directory.origin };
  const first = await open(service, signing);
  for (const _ of [1, 2]) assert.equal((await followUp(service, first, signing)).status, 201);
  const second = await open(service, signing);
  assertRefused(await followUp(service, second, signing), 429, /share of 4/, 'the agent used its share');

  const blocked = await owner(service, 'block', first.id, '--sender');
  assert.ok(blocked.endsWith(`and its sender, the verified agent ${directory.origin}.\n`), blocked);
  const refused = [
    await followUp(service, second, signing),
    await followUp(service, second), // unsigned, to a conversation the blocked agent opened
    await open(service, signing),
  ];
  for (const answer of refused) {
    assertRefused(answer, 403, /blocked you as a sender/);
    assert.equal(answer.body.error.reason, 'sender_blocked');
  }
  assert.equal((await open(service)).status, 201, 'unsigned from the same address: another sender');
  assert.match(await owner(service, 'agents'), /^BLOCKED /);

  await owner(service, 'unblock', first.id, '--sender');
  // The block gave the day back while it held; the unblock counts the first conversation again.
  assertRefused(await followUp(service, second, signing), 429, /share of 4/);
  await owner(service, 'block', first.id);
  assert.equal((await followUp(service, second, signing)).status, 201, 'a plain block gives its day back too');
});

test('block --sender of an unsigned conversation refuses its address, not others', async (t) => {
  const service = await startVerifyingService(t, { env: { TRUST_PROXY: '1' } });
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const first = await open(service, undefined, from('10.0.0.1'));
  assert.match(await owner(service, 'block', first.id, '--sender'), /its address \(by its keyed hash\)/);
  assertRefused(await open(service, undefined, from('10.0.0.1')), 403, /blocked you as a sender/);
  assert.equal((await open(service, undefined, from('10.0.0.2'))).status, 201);
  const db = readFileSync(service.dbPath);
  assert.ok(!db.includes('10.0.0.1'), 'no address is stored in clear');
});

test('a sender block stops follow-ups of its other conversations already in flight', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: directory.origin };
  const first = await open(service, signing);
  const second = await open(service);
  const messages = `${OPEN}/${second.id}/messages`;
  const headers = await signedHeaders(service, 'POST', messages, signing);
  const held = Array.from({ length: 10 }, (_, i) =>
    heldRequest(service.url, messages, { token: second.token, key: newKey(), json: { message: `late ${i}` }, headers }),
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
  const from = (address: string) => ({ 'x-forwarded-for': address });
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
});

test('stats fills in the shares a server of the previous release did not record', async (t) => {
  const service = await startVerifyingService(t);
  const recorded = JSON.parse(service.store.setting('quotas')!) as Record<string, number>;
  const { agentShare: _agent, unverifiedPool: _pool, ...older } = recorded;
  service.store.transaction(() => service.store.recordSetting('quotas', JSON.stringify(older)));
  const stats = JSON.parse(await owner(service, 'stats', '--json'));
  assert.equal(stats.busiest_verified_agent_today.share, 225);
  assert.deepEqual(stats.unverified_today, { count: 0, pool: 225 });
  assert.match(await owner(service, 'stats'), /busiest verified agent: 0 of its share of 225/);
});

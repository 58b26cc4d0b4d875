// The limits on writes, decided inside the rules: no number of requests in flight passes
// one, a flood from one sender leaves the day to the others and to the owner, and the
// counts survive a restart and end with the UTC day.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownerReply } from '../../src/rules/conversations.ts';
import {
  assertRefused,
  fakeClock,
  newKey,
  openConversation,
  request,
  runOwner,
  startTestService,
  statuses,
  tempDir,
} from '../helpers.ts';
import { heldRequest } from '../held-request.ts';

test('40 openings in flight at once, bodies arriving late, store exactly CREATE_LIMIT_PER_HOUR of them', async (t) => {
  const service = await startTestService(t, { env: { CREATE_LIMIT_PER_HOUR: '5' } });
  const held = Array.from({ length: 40 }, () =>
    heldRequest(service.url, '/api/v1/conversations', { key: newKey(), json: { message: 'hello' } }),
  );
  await Promise.all(held.map((request) => request.continued)); // every one past the checks made before its body
  const responses = await Promise.all(held.map((request) => request.send()));
  assert.deepEqual(statuses(responses), { 201: 5, 429: 35 });
  const refused = responses.find((response) => response.status === 429)!;
  assertRefused(refused, 429, /At most 5 conversations may be opened per hour from one address/);
  assert.equal(service.store.conversationCounts().open, 5);
  assert.equal(service.store.quotaCounts.count(new Date().toISOString().slice(0, 10), 'all'), 5);
});

test("30 follow-ups in flight at once store exactly the conversation's share of the day", async (t) => {
  const service = await startTestService(t, { env: { DAILY_CONVERSATION_SHARE: '6' } });
  const { id, token } = await openConversation(service.url); // the first of its 6
  const held = Array.from({ length: 30 }, (_, i) =>
    heldRequest(service.url, `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: `m${i}` },
    }),
  );
  await Promise.all(held.map((request) => request.continued));
  const responses = await Promise.all(held.map((request) => request.send()));
  assert.deepEqual(statuses(responses), { 201: 5, 429: 25 });
  assertRefused(
    responses.find((response) => response.status === 429)!,
    429,
    /This conversation has stored its share of 6 messages for this UTC day/,
  );
  assert.equal(service.store.messageCount(), 6);
});

test('a block by the owner stops follow-ups already in flight: none is stored, counted or told', async (t) => {
  const dir = tempDir(t);
  const notified = `${dir}/notified.txt`;
  const service = await startTestService(t, { dir, env: { NOTIFY_COMMAND: `tee -a ${notified}` } });
  const { id, token } = await openConversation(service.url);
  const held = Array.from({ length: 20 }, (_, i) =>
    heldRequest(service.url, `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: `in flight ${i}` },
    }),
  );
  await Promise.all(held.map((request) => request.continued)); // authenticated before the block
  const blocked = await runOwner(service.dbPath, ['block', id]);
  assert.equal(blocked.code, 0, blocked.stderr);
  const responses = await Promise.all(held.map((request) => request.send()));
  for (const response of responses) assertRefused(response, 403, /The owner has blocked this conversation/);
  assert.equal(service.store.messageCount(), 1);
  // The block gave the day back too: the opening no longer counts either.
  assert.equal(service.store.quotaCounts.count(new Date().toISOString().slice(0, 10), 'all'), 0);
  assert.doesNotMatch(await readIfThere(notified), /in flight/);
});

test('a close and an expiry stop follow-ups already in flight', async (t) => {
  const clock = fakeClock();
  const service = await startTestService(t, { now: clock.now });
  const closing = await openConversation(service.url);
  const expiring = await openConversation(service.url);
  const hold = (conversation: { id: string; token: string }) =>
    heldRequest(service.url, `/api/v1/conversations/${conversation.id}/messages`, {
      token: conversation.token,
      key: newKey(),
      json: { message: 'late' },
    });
  const toClosing = hold(closing);
  const toExpiring = hold(expiring);
  await Promise.all([toClosing.continued, toExpiring.continued]);
  assert.equal((await runOwner(service.dbPath, ['close', closing.id])).code, 0);
  assertRefused(await toClosing.send(), 410, /The owner closed this conversation/);
  clock.advance(366 * 86_400_000);
  assertRefused(await toExpiring.send(), 410, /This credential expired at/);
  assert.equal(service.store.messageCount(), 2);
});

test('a flood from one conversation and one address leaves the day to another agent and to the owner', async (t) => {
  const service = await startTestService(t, { env: { TRUST_PROXY: '1' } }); // defaults: 500, shares 50 and 100
  const from = (address: string) => ({ 'x-forwarded-for': address });
  const open = (address: string) =>
    request(service.url, 'POST', '/api/v1/conversations', {
      key: newKey(),
      json: { message: 'flood' },
      headers: from(address),
    });
  const flooder = (await open('203.0.113.9')).body;
  const follow = (id: string, token: string) =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: 'again' },
      headers: from('203.0.113.9'),
    });
  for (let i = 1; i < 50; i++) assert.equal((await follow(flooder.id, flooder.access_token)).status, 201);
  assertRefused(
    await follow(flooder.id, flooder.access_token),
    429,
    /This conversation has stored its share of 50 messages for this UTC day/,
  );
  let opened = 50;
  while (opened < 100) {
    const response = await open('203.0.113.9');
    assert.equal(response.status, 201, response.text);
    opened += 1;
  }
  const overShare = await open('203.0.113.9');
  assertRefused(overShare, 429, /Your address has stored its share of 100 messages for this UTC day/);
  assert.ok(Number(overShare.headers.get('retry-after')) > 0);

  const other = await open('198.51.100.4');
  assert.equal(other.status, 201, 'another agent still gets in');
  const reply = await runOwner(service.dbPath, ['reply', flooder.id, 'Please slow down.']);
  assert.equal(reply.code, 0, `the owner replies without --force: ${reply.stderr}`);
});

test('the reserve keeps the end of the day for the owner, across a restart, until 00:00 UTC', async (t) => {
  const dir = tempDir(t);
  const clock = fakeClock('2026-03-10T23:00:00.000Z');
  const env = {
    DAILY_MESSAGE_LIMIT: '20',
    DAILY_OWNER_RESERVE: '5', // at most a tenth is kept: 2
    DAILY_CONVERSATION_SHARE: '0',
    DAILY_ADDRESS_SHARE: '0',
    DAILY_UNVERIFIED_SHARE: '0', // no pool either: the reserve alone is under test
  };
  let service = await startTestService(t, { dir, now: clock.now, env });
  const { id, token } = await openConversation(service.url);
  const follow = () =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: 'more' },
    });
  for (let i = 1; i < 10; i++) assert.equal((await follow()).status, 201);
  await service.close();
  service = await startTestService(t, { dir, now: clock.now, env }); // the counts are in the database
  for (let i = 10; i < 18; i++) assert.equal((await follow()).status, 201);
  const refused = await follow();
  assertRefused(refused, 429, /shared maximum of 20 messages per UTC day is reached for agents \(the last 2 are kept/);
  assert.equal(refused.headers.get('retry-after'), '3600');
  const reply = (at: number) => ownerReply(service.store, id, 'owner', { at, dailyMaximum: 20 });
  reply(clock.now());
  reply(clock.now());
  assert.throws(() => reply(clock.now()), { reason: 'owner_daily_maximum' });

  clock.set('2026-03-11T00:00:00.000Z');
  assert.equal((await follow()).status, 201, 'a new day starts');
  assert.equal(service.store.quotaCounts.count('2026-03-10', 'all'), 0, "the past day's counts are dropped");
});

test('the shares and the reserve are spelled with their numbers in contact-info, llms.txt and the tools', async (t) => {
  const service = await startTestService(t, {
    env: {
      DAILY_CONVERSATION_SHARE: '40',
      DAILY_ADDRESS_SHARE: '90',
      DAILY_OWNER_RESERVE: '30',
      DAILY_SITE_SHARE: '120',
      DAILY_UNVERIFIED_SHARE: '200',
      DAILY_VERIFIED_SHARE: '160',
    },
  });
  const info = await request(service.url, 'GET', '/api/v1/contact-info');
  assert.equal(info.body.limits.daily_conversation_share, 40);
  assert.equal(info.body.limits.daily_address_share, 90);
  assert.equal(info.body.limits.daily_agent_share, 120);
  assert.equal(info.body.limits.daily_unverified_share, 200);
  assert.equal(info.body.limits.daily_verified_share, 160);
  assert.equal(info.body.limits.daily_owner_reserve, 30);
  const sentence = new RegExp(
    'one conversation may store at most 40 messages; ' +
      'one address, unsigned, at most 90 \\(openings and follow-ups together\\); ' +
      'all unsigned senders together at most 200; ' +
      'the verified agents of one site \\(requests signed with Web Bot Auth; a site is a registrable domain, ' +
      'such as agent.example for all its subdomains\\) at most 120; ' +
      'all verified agents the owner does not know yet together at most 160; ' +
      "the owner's contacts \\(verified agents the owner trusts\\) count against neither pool nor a site's share; " +
      "the last 30 are kept for the owner's replies",
  );
  assert.match(info.body.limits_note, sentence);
  assert.match((await request(service.url, 'GET', '/llms.txt')).text, sentence);
  const tools = await request(service.url, 'POST', '/mcp', {
    json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream' },
  });
  const send = tools.body.result.tools.find((tool: { name: string }) => tool.name === 'send_message');
  assert.match(send.description, sentence);
});

test("each pool is a third of what clients may store; a site's share is the verified pool's", async (t) => {
  const limitsOf = async (env: Record<string, string>) => {
    const { limits } = (await request((await startTestService(t, { env })).url, 'GET', '/api/v1/contact-info')).body;
    return [limits.daily_agent_share, limits.daily_verified_share, limits.daily_unverified_share];
  };
  assert.deepEqual(await limitsOf({}), [150, 150, 150], 'a third each of the 450 clients may store');
  assert.deepEqual(await limitsOf({ DAILY_VERIFIED_SHARE: '100' }), [100, 100, 150]);
  assert.deepEqual(await limitsOf({ DAILY_VERIFIED_SHARE: '100', DAILY_SITE_SHARE: '40' }), [40, 100, 150]);
  assert.deepEqual(await limitsOf({ DAILY_UNVERIFIED_SHARE: '0' }), [150, 150, 0], 'a pool set to 0 does not bind');
  assert.deepEqual(await limitsOf({ DAILY_MESSAGE_LIMIT: '9' }), [0, 0, 0], 'under 10, no pools');
});

async function readIfThere(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(file, 'utf8').catch(() => '');
}

// The owner script on conversations: inbox, show, reply, close and reopen, block, export.

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import {
  assertRefused,
  fakeClock,
  newKey,
  openConversation,
  request,
  startTestService,
  type TestService,
} from '../helpers.ts';
import { assertFailsWith, owner } from '../owner-run.ts';

async function updates(service: TestService, conversation: { id: string; token: string }, after = 0) {
  return request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/updates?after=${after}`, {
    token: conversation.token,
  });
}

/** Opens five conversations, oldest first; then the owner answers one, closes one and blocks the oldest. */
async function openFiveConversations(t: TestContext) {
  const clock = fakeClock('2026-03-10T09:00:00.000Z');
  const service = await startTestService(t, { now: clock.now });
  const blocked = await openConversation(service.url, { message: 'oldest, but blocked' });
  clock.advance(60_000);
  const older = await openConversation(service.url, {
    message: 'older question',
    metadata: { agent_name: 'first-agent' },
  });
  clock.advance(60_000);
  const answered = await openConversation(service.url, { message: 'answered one' });
  clock.advance(60_000);
  const newer = await openConversation(service.url, { message: 'newer question' });
  const closed = await openConversation(service.url, { message: 'closed one' });
  assert.equal((await owner(service, ['reply', answered.id, 'Done.'])).code, 0);
  assert.equal((await owner(service, ['close', closed.id])).code, 0);
  assert.equal((await owner(service, ['block', blocked.id])).code, 0);
  return { service, blocked, older, answered, newer, closed };
}

test('inbox: waiting first, longest waiting on top, then blocked ones; closed ones hidden unless --all', async (t) => {
  const { service, blocked, older, answered, newer, closed } = await openFiveConversations(t);
  const inbox = await owner(service, ['inbox']);
  assert.equal(inbox.code, 0, inbox.stderr);
  const lines = inbox.stdout.trim().split('\n');
  assert.deepEqual(
    lines.map((line) => [older, newer, blocked, answered].findIndex((c) => line.includes(c.id))),
    [0, 1, 2, 3],
  );
  assert.match(
    lines[0] as string,
    /^WAITING .* open .* 1 message  .*first-agent \(unverified\).*client: "older question"/,
  );
  assert.match(
    lines[2] as string,
    /^BLOCKED .* open .*client: "oldest, but blocked"/,
    'a blocked conversation does not wait for the owner',
  );
  assert.match(lines[3] as string, /answered .* 2 messages .*owner: "Done\."/);
  assert.ok(!inbox.stdout.includes(closed.id));

  const all = await owner(service, ['inbox', '--all', '--json']);
  const items = JSON.parse(all.stdout) as {
    id: string;
    status: string;
    agent_name: string | null;
    agent_name_verified: boolean;
    waiting_for_reply: boolean;
    message_count: number;
  }[];
  assert.deepEqual(
    items.map((item) => item.id),
    [older.id, newer.id, blocked.id, answered.id, closed.id],
  );
  assert.deepEqual(
    items.map((item) => item.status),
    ['open', 'open', 'open', 'answered', 'closed'],
  );
  assert.deepEqual(
    items.map((item) => item.waiting_for_reply),
    [true, true, false, false, false],
  );
  assert.equal(items[0]?.agent_name, 'first-agent');
  assert.equal(items[0]?.agent_name_verified, false);
  assert.equal(items[3]?.message_count, 2);
});

test('show prints the whole history with authors and times, or JSON', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url, {
    message: 'line one\nline two',
    metadata: { agent_name: 'scout', model: 'm1' },
  });
  await owner(service, ['reply', conversation.id, 'An answer.']);
  const shown = await owner(service, ['show', conversation.id.slice(0, 8)]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`Conversation ${conversation.id}`));
  assert.match(shown.stdout, /agent_name +scout \(unverified\)/);
  const first = /#1 {2}client \(unverified\) {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n {4}\| line one\n {4}\| line two/;
  assert.match(shown.stdout, first);
  assert.match(shown.stdout, /#2 {2}you \(owner\) {2}.* UTC\n {4}\| An answer\./);
  const json = JSON.parse((await owner(service, ['show', conversation.id, '--json'])).stdout);
  assert.equal(json.id, conversation.id);
  assert.equal(json.metadata_verified, false);
  assert.deepEqual(
    json.messages.map((m: { author: string }) => m.author),
    ['client', 'owner'],
  );
});

test('a reply is seen by the running server on its very next request', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const conversation = await openConversation(service.url);
  assert.equal((await updates(service, conversation)).body.new_reply, false);
  const replied = await owner(service, ['reply', conversation.id, 'Hello', 'from', 'the', 'owner.']);
  assert.equal(replied.code, 0, replied.stderr);
  assert.equal(replied.stdout.trim(), `Replied to ${conversation.id} as seq 2.`);
  const after = await updates(service, conversation, 1);
  assert.deepEqual([after.body.new_reply, after.body.status, after.body.latest_owner_seq], [true, 'answered', 2]);
  const history = await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/messages?after=1`, {
    token: conversation.token,
  });
  assert.equal(history.body.items[0].message, 'Hello from the owner.');
  assert.equal(history.body.items[0].author, 'owner');
});

test('reply - reads a multi-line reply from stdin, keeping its lines', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const text = 'Dear agent,\n\n  indented line\nlast line';
  const replied = await owner(service, ['reply', conversation.id, '-'], { input: `${text}\n` });
  assert.equal(replied.code, 0, replied.stderr);
  const history = await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/messages?after=1`, {
    token: conversation.token,
  });
  assert.equal(history.body.items[0].message, text);
});

test('a reply is held to the client rules and writes nothing when refused', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  assertFailsWith(
    await owner(service, ['reply', conversation.id, '-'], { input: '  \n' }),
    /reply was not sent: .*message.* must not be empty/,
  );
  assertFailsWith(
    await owner(service, ['reply', conversation.id, '-'], { input: 'x'.repeat(8001) }),
    /at most 8000 characters/,
  );
  assertFailsWith(
    await owner(service, ['reply', conversation.id, '-'], { input: 'a\u0000b' }),
    /must not contain control characters \(found \\u0000\)/,
  );
  assertFailsWith(await owner(service, ['reply', conversation.id]), /give the reply text/);
  assert.equal(service.store.messageCount(), 1);
});

test('owner replies count toward the daily maximum and are refused there unless --force', async (t) => {
  const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '2' } });
  const conversation = await openConversation(service.url);
  assert.equal(
    (await owner(service, ['reply', conversation.id, 'one'], { env: { DAILY_MESSAGE_LIMIT: '2' } })).code,
    0,
  );
  const followUp = await request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, {
    token: conversation.token,
    key: newKey(),
    json: { message: 'over the maximum' },
  });
  // the owner's reply used the last message of the day
  assertRefused(followUp, 429, /shared maximum of 2 messages per UTC day/);
  assertFailsWith(
    await owner(service, ['reply', conversation.id, 'two'], { env: { DAILY_MESSAGE_LIMIT: '2' } }),
    /shared maximum of 2 messages is reached; add --force/,
  );
  const forced = await owner(service, ['reply', conversation.id, 'two', '--force'], {
    env: { DAILY_MESSAGE_LIMIT: '2' },
  });
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(service.store.messageCount(), 3);
  const stats = JSON.parse((await owner(service, ['stats', '--json'], { env: { DAILY_MESSAGE_LIMIT: '2' } })).stdout);
  assert.equal(stats.messages_today, 3);
  assert.equal(stats.daily_maximum, 2);
});

test('close and reopen change what the client may do; a closed conversation takes no reply', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const followUp = () =>
    request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, {
      token: conversation.token,
      key: newKey(),
      json: { message: 'more' },
    });
  assert.equal((await followUp()).status, 201); // the server now knows this credential
  assert.equal((await owner(service, ['close', conversation.id])).code, 0);
  assertRefused(await followUp(), 410, /closed this conversation/);
  assert.equal(
    (await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}`, { token: conversation.token })).body
      .status,
    'closed',
  );
  assertFailsWith(await owner(service, ['reply', conversation.id, 'late']), /is closed; reopen it first/);
  assertFailsWith(await owner(service, ['close', conversation.id]), /already closed/);
  assert.equal((await owner(service, ['reopen', conversation.id])).code, 0);
  assert.equal((await followUp()).status, 201);
  assertFailsWith(await owner(service, ['reopen', conversation.id]), /is not closed/);
});

test('reopen restores the status saying who wrote last: answered after the owner, open after the client', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const status = async () =>
    (await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}`, { token: conversation.token })).body
      .status;
  assert.equal((await owner(service, ['reply', conversation.id, 'an answer'])).code, 0);
  await owner(service, ['close', conversation.id]);
  await owner(service, ['reopen', conversation.id]);
  assert.equal(await status(), 'answered', 'the owner wrote last');
  const followUp = { token: conversation.token, key: newKey(), json: { message: 'thanks' } };
  assert.equal(
    (await request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, followUp)).status,
    201,
  );
  await owner(service, ['close', conversation.id]);
  await owner(service, ['reopen', conversation.id]);
  assert.equal(await status(), 'open', 'the client wrote last');
});

test('block makes the credential answer 403 saying the owner blocked it; unblock lifts it', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const read = () =>
    request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/messages`, { token: conversation.token });
  assert.equal((await read()).status, 200); // the server now knows this credential
  assert.equal((await owner(service, ['block', conversation.id])).code, 0);
  const blocked = await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/messages`, {
    token: conversation.token,
  });
  assertRefused(blocked, 403, /owner has blocked this conversation/);
  assertFailsWith(await owner(service, ['block', conversation.id]), /is already blocked\n$/);
  assert.equal((await owner(service, ['unblock', conversation.id])).code, 0);
  assertFailsWith(await owner(service, ['unblock', conversation.id]), /is not blocked\n$/);
  assert.equal(
    (
      await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/messages`, {
        token: conversation.token,
      })
    ).status,
    200,
  );
});

test('export writes JSON Lines with every message and never the credential or its hash', async (t) => {
  const service = await startTestService(t);
  const a = await openConversation(service.url, { message: 'first' });
  const b = await openConversation(service.url, { message: 'second' });
  await owner(service, ['reply', a.id, 'answer']);
  const exported = await owner(service, ['export']);
  assert.equal(exported.code, 0, exported.stderr);
  const lines = exported.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((line) => line.id).sort(), [a.id, b.id].sort());
  assert.deepEqual(
    lines.find((line) => line.id === a.id).messages.map((m: { message: string }) => m.message),
    ['first', 'answer'],
  );
  for (const secret of [a.token, b.token]) assert.ok(!exported.stdout.includes(secret));
  assert.ok(!/token|hash/i.test(exported.stdout));
  const one = await owner(service, ['export', b.id]);
  assert.equal(one.stdout.trim().split('\n').length, 1);
  assert.equal(JSON.parse(one.stdout).id, b.id);
});

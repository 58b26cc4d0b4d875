// A poll that waits for the owner: answered as soon as the owner writes from the owner script,
// or when the wait ends; chained waits never see 429; bounded, cancelled with its client,
// answered at once on shutdown; the same through MCP's check_updates.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { assertRefused, openConversation, request, runOwner, startTestService, waitUntil } from '../helpers.ts';
import * as mcp from '../doors/mcp/calls.ts';

const updates = (conversation: { id: string }, query: string) =>
  `/api/v1/conversations/${conversation.id}/updates${query}`;

test('a waiting poll is answered within about a second of the owner replying from the owner script', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const started = Date.now();
  const waiting = request(service.url, 'GET', updates(conversation, '?after=1&wait=55'), { token: conversation.token });
  await waitUntil(() => service.waitingPolls() === 1, 'the poll is held');
  const replied = Date.now();
  const reply = await runOwner(service.dbPath, ['reply', conversation.id, 'Here I am.']);
  assert.equal(reply.code, 0, reply.stderr);
  const answer = await waiting;
  assert.equal(answer.status, 200);
  assert.equal(answer.body.new_reply, true);
  assert.equal(answer.body.latest_owner_seq, 2);
  assert.equal(answer.body.status, 'answered');
  assert.ok(Date.now() - replied < 5_000, 'answered soon after the reply, not at the end of the wait');
  assert.ok(Date.now() - started < 30_000);
  // The owner wrote: the next poll is accepted at once.
  const next = await request(service.url, 'GET', updates(conversation, '?after=2'), { token: conversation.token });
  assert.equal(next.status, 200);
});

test("the owner's block or close ends a held wait at once, not when the wait runs out", async (t) => {
  const service = await startTestService(t);
  for (const [command, status, says] of [
    ['close', 200, 'closed'],
    ['block', 403, 'blocked'],
  ] as const) {
    const conversation = await openConversation(service.url);
    const waiting = request(service.url, 'GET', updates(conversation, '?after=1&wait=55'), {
      token: conversation.token,
    });
    await waitUntil(() => service.waitingPolls() === 1, `the poll is held before the ${command}`);
    assert.equal((await runOwner(service.dbPath, [command, conversation.id])).code, 0);
    await waitUntil(() => service.waitingPolls() === 0, `the ${command} answers the held poll`);
    const answer = await waiting;
    assert.equal(answer.status, status, answer.text);
    assert.match(answer.text, new RegExp(says));
  }
});

test('a wait shorter than the interval, ended because the owner wrote, lets the next poll in at once', async (t) => {
  const service = await startTestService(t); // 60 s: a gap of 55 s, of which a 10 s wait uses 10
  const conversation = await openConversation(service.url);
  const waiting = request(service.url, 'GET', updates(conversation, '?after=1&wait=10'), {
    token: conversation.token,
  });
  await waitUntil(() => service.waitingPolls() === 1, 'the poll is held');
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, 'Now.'])).code, 0);
  assert.equal((await waiting).body.new_reply, true);
  const next = request(service.url, 'GET', updates(conversation, '?after=2&wait=10'), { token: conversation.token });
  await waitUntil(() => service.waitingPolls() === 1, 'the owner wrote: the clock started again, and it is held');
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, 'Again.'])).code, 0);
  assert.equal((await next).status, 200);
});

test('chained waits never see 429, and a plain poll after them keeps its interval', async (t) => {
  // An interval of 7 s: a gap of 2 s between polls, and waits of up to 2 s.
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '7' } });
  const conversation = await openConversation(service.url);
  for (let i = 0; i < 3; i++) {
    const answer = await request(service.url, 'GET', updates(conversation, '?after=1&wait=2'), {
      token: conversation.token,
    });
    assert.equal(answer.status, 200, `wait ${i + 1}: ${answer.text}`);
    assert.equal(answer.body.new_reply, false);
  }
  assert.equal(
    (await request(service.url, 'GET', updates(conversation, '?after=1'), { token: conversation.token })).status,
    200,
  );
  assertRefused(
    await request(service.url, 'GET', updates(conversation, '?after=1'), { token: conversation.token }),
    429,
    /at most once every 7 seconds/,
  );
  assertRefused(
    await request(service.url, 'GET', updates(conversation, '?wait=3'), { token: conversation.token }),
    400,
    /`wait` must be a whole number of seconds from 0 to 2/,
  );
});

test('a wait answered at once because the owner already wrote counts as the wait it asked for', async (t) => {
  // An interval of 7 s: a gap of 2 s, and waits of up to 2 s that use the whole gap.
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '7' } });
  const conversation = await openConversation(service.url);
  const wait = (after: number) =>
    request(service.url, 'GET', updates(conversation, `?after=${after}&wait=2`), { token: conversation.token });
  assert.equal((await wait(1)).body.new_reply, false, 'the first wait ends unanswered');
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, 'Between two waits.'])).code, 0);
  const news = await wait(1);
  assert.equal(news.body.new_reply, true, 'the reply was already there: answered at once');
  const next = await wait(2);
  assert.equal(next.status, 200, `the chain goes on: ${next.text}`);
});

test('asking again for news already told is a plain poll: a stale after cannot poll without limit', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, 'Told once.'])).code, 0);
  const stale = () =>
    request(service.url, 'GET', updates(conversation, '?after=0&wait=55'), { token: conversation.token });
  const first = await stale();
  assert.equal(first.body.new_reply, true, 'the news, at once');
  assert.equal((await stale()).status, 200, 'the same news again: counted as a plain poll');
  assertRefused(await stale(), 429, /at most once every 60 seconds/);
});

test('with POLL_INTERVAL_SECONDS=0 no poll is refused; one wait per conversation is held, the newest', {
  timeout: 30_000, // a wait that is never answered fails here, not when the suite gives up
}, async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const conversation = await openConversation(service.url);
  const poll = (query: string) =>
    request(service.url, 'GET', updates(conversation, query), { token: conversation.token });
  const held = poll('?after=1&wait=30');
  await waitUntil(() => service.waitingPolls() === 1, 'the poll is held');
  const plain = await poll('?after=1');
  assert.equal(plain.status, 200, plain.text);
  assert.equal(service.waitingPolls(), 1, 'a plain poll leaves the wait alone');
  // A second wait answers the first at once: one client cannot hold more than one per conversation.
  const seconds = Array.from({ length: 20 }, () => poll('?after=1&wait=30'));
  const first = await held;
  assert.equal(first.status, 200);
  assert.equal(first.body.new_reply, false, 'answered as a plain poll would be');
  await waitUntil(() => service.waitingPolls() === 1, 'the newest wait is held, and only it');
  assert.equal((await runOwner(service.dbPath, ['reply', conversation.id, 'To the last.'])).code, 0);
  const answers = await Promise.all(seconds);
  assert.ok(answers.every((answer) => answer.status === 200), 'none was refused');
  assert.equal(answers.filter((answer) => answer.body.new_reply === true).length, 1, 'the last one heard the reply');
  assert.equal(service.waitingPolls(), 0);
});

test('wait is validated: 0 to the interval less 5 seconds, 55 by default', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  for (const wait of ['56', '-1', '1.5', 'soon', '']) {
    assertRefused(
      await request(service.url, 'GET', updates(conversation, `?wait=${wait}`), { token: conversation.token }),
      400,
      /`wait` must be a whole number of seconds from 0 to 55/,
      wait,
    );
  }
  const now = await request(service.url, 'GET', updates(conversation, '?after=0&wait=0'), {
    token: conversation.token,
  });
  assert.equal(now.status, 200, 'wait=0 is an ordinary poll');
});

test('a second poll while one waits is refused; a poll with news is answered at once whatever its wait', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const waiting = request(service.url, 'GET', updates(conversation, '?after=1&wait=55'), { token: conversation.token });
  await waitUntil(() => service.waitingPolls() === 1, 'the poll is held');
  const second = await request(service.url, 'GET', updates(conversation, '?after=1&wait=55'), {
    token: conversation.token,
  });
  assertRefused(second, 429, /at most once every 60 seconds/);
  await runOwner(service.dbPath, ['block', conversation.id]);
  assertRefused(await waiting, 403, /The owner has blocked this conversation/, 'a block ends the wait');
  await runOwner(service.dbPath, ['unblock', conversation.id]);
  const other = await openConversation(service.url);
  await runOwner(service.dbPath, ['reply', other.id, 'already here']);
  const started = Date.now();
  const answered = await request(service.url, 'GET', updates(other, '?after=1&wait=55'), { token: other.token });
  assert.equal(answered.body.new_reply, true);
  assert.ok(Date.now() - started < 5_000, 'not held');
});

test('a client that goes away stops waiting, and shutdown answers every waiting poll at once', async (t) => {
  const service = await startTestService(t);
  const a = await openConversation(service.url);
  const b = await openConversation(service.url);
  const gone = http.get(`${service.url}${updates(a, '?after=1&wait=55')}`, {
    headers: { authorization: `Bearer ${a.token}` },
  });
  gone.on('error', () => {});
  const staying = request(service.url, 'GET', updates(b, '?after=1&wait=55'), { token: b.token });
  await waitUntil(() => service.waitingPolls() === 2, 'both polls are held');
  gone.destroy();
  await waitUntil(() => service.waitingPolls() === 1, 'the one whose client went away no longer waits');
  const started = Date.now();
  const closing = service.close();
  const answer = await staying;
  assert.equal(answer.status, 200);
  assert.equal(answer.body.new_reply, false);
  await closing;
  assert.ok(Date.now() - started < 5_000, 'shutdown did not wait out the poll');
});

test("MCP's check_updates waits the same way, up to 50 seconds", async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url);
  const call = (args: Record<string, unknown>) =>
    mcp.tool(service, 'check_updates', { conversation_id: conversation.id, access_token: conversation.token, ...args });
  const tooLong = await call({ after: 1, wait: 51 });
  assert.match(String(tooLong.refused?.message), /`wait` must be a whole number of seconds from 0 to 50/);
  const waiting = call({ after: 1, wait: 50 });
  await waitUntil(() => service.waitingPolls() === 1, 'the call is held');
  const reply = await runOwner(service.dbPath, ['reply', conversation.id, 'Through MCP too.']);
  assert.equal(reply.code, 0, reply.stderr);
  const answer = await waiting;
  assert.equal(answer.ok.new_reply, true);
  const listed = await mcp.rpc(service, mcp.call('tools/list', {}, 2));
  const tool = listed.body.result.tools.find((candidate: { name: string }) => candidate.name === 'check_updates');
  assert.equal(tool.inputSchema.properties.wait.maximum, 50);
  assert.match(tool.description, /up to 50 seconds, below the usual 60-second client time-out/);
});

// The MCP tools under the service rules: every refusal as a tool result,
// and one set of rules with the REST door.
// Covers: src/doors/mcp/tools.ts, src/rules/validate.ts, src/rules/access.ts, src/rules/conversations.ts,
// src/rules/rates.ts, src/rules/quotas.ts, src/rules/blocks.ts, src/rules/closing.ts.

import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { setBlocked } from '../../../src/rules/blocks.ts';
import {
  fakeClock,
  newKey,
  openConversation,
  request,
  startTestService,
  waitUntil,
  type TestService,
} from '../../helpers.ts';
import { tool } from './calls.ts';

async function refusal(service: TestService, name: string, args: unknown, code: number, says: RegExp) {
  const { refused } = await tool(service, name, args);
  assert.equal(refused?.code, code, `${name}: ${JSON.stringify(refused)}`);
  assert.match(refused?.message ?? '', says);
  return refused!;
}

/** A service on a fake clock with low limits: 5 messages a day, 2 openings an hour. */
async function startLimitedService(t: TestContext) {
  const clock = fakeClock();
  const service = await startTestService(t, {
    now: clock.now,
    env: { DAILY_MESSAGE_LIMIT: '5', CREATE_LIMIT_PER_HOUR: '2' },
  });
  return { clock, service };
}

/** Opens one conversation through MCP and one through REST: both of the hour's openings. */
async function openMineAndTheirs(service: TestService, key = newKey()) {
  const mine = (await tool(service, 'open_conversation', { message: 'first', idempotency_key: key })).ok as {
    id: string;
    access_token: string;
  };
  const theirs = await openConversation(service.url);
  const credential = { conversation_id: mine.id, access_token: mine.access_token };
  return { mine, theirs, credential };
}

/** With the two openings, three follow-ups make the day's 5 messages. */
async function sendTheDaysLastMessages(service: TestService, credential: object) {
  for (const message of ['two', 'three', 'four']) {
    assert.ok((await tool(service, 'send_message', { ...credential, message })).ok, message);
  }
}

test('bad arguments are refused as a tool result with status 400 or 404, worded for tool arguments', async (t) => {
  const { service } = await startLimitedService(t);
  await refusal(service, 'open_conversation', { message: '' }, 400, /The argument `message` must not be empty/);
  await refusal(
    service,
    'open_conversation',
    { message: 'hi', token: 'x' },
    400,
    new RegExp(
      '^There is an unknown argument "token" in the tool arguments; ' +
        'allowed: message, metadata, idempotency_key, choices, reply_by\\.$',
    ),
  );
  await refusal(
    service,
    'open_conversation',
    { message: 'hi', idempotency_key: 'short' },
    400,
    /The idempotency_key must be 8 to 128 characters long, got 5/,
  );
  await refusal(
    service,
    'search_directory',
    { limit: 101 },
    400,
    /The argument `limit` must be a whole number from 1 to 100/,
  );
  await refusal(service, 'search_directory', { kind: 'robots' }, 400, /The argument `kind` must be community or tool/);
  await refusal(
    service,
    'get_listing',
    { slug: 'no-such' },
    404,
    /No listing has this slug\. search_directory lists every slug/,
  );
  await refusal(service, 'read_messages', [], 400, /The tool arguments must be a JSON object/);
});

test('a bad credential is refused with 401, 400 or 403, and a reused idempotency_key with 409', async (t) => {
  const { service } = await startLimitedService(t);
  const key = newKey();
  const { mine, theirs, credential } = await openMineAndTheirs(service, key);
  await refusal(
    service,
    'open_conversation',
    { message: 'first', idempotency_key: key },
    409,
    /This idempotency_key already opened a conversation/,
  );
  await refusal(service, 'read_messages', { conversation_id: mine.id }, 401, /Send the access_token argument/);
  await refusal(
    service,
    'read_messages',
    { ...credential, access_token: 'f'.repeat(64) },
    401,
    /matches no conversation/,
  );
  await refusal(
    service,
    'read_messages',
    { ...credential, conversation_id: 'nope' },
    400,
    /argument `conversation_id` must be a UUID/,
  );
  await refusal(
    service,
    'read_messages',
    { ...credential, conversation_id: theirs.id },
    403,
    /belongs to another conversation/,
  );
  const followKey = newKey();
  assert.equal(
    (await tool(service, 'send_message', { ...credential, message: 'two', idempotency_key: followKey })).ok?.duplicate,
    false,
  );
  await refusal(
    service,
    'send_message',
    { ...credential, message: 'changed', idempotency_key: followKey },
    409,
    /idempotency_key was already used for a different message/,
  );
});

test('limits are refused with 429: a poll too soon, past the daily maximum, a third opening in the hour', async (t) => {
  const { service } = await startLimitedService(t);
  const { credential } = await openMineAndTheirs(service);
  assert.ok((await tool(service, 'check_updates', credential)).ok);
  const soon = await refusal(service, 'check_updates', credential, 429, /at most once every 60 seconds/);
  assert.equal(soon.retry_after_seconds, 55);
  await sendTheDaysLastMessages(service, credential);
  const full = await refusal(
    service,
    'send_message',
    { ...credential, message: 'five' },
    429,
    /shared maximum of 5 messages per UTC day.*retry with the same idempotency_key/,
  );
  assert.equal(typeof full.retry_after_seconds, 'number');
  await refusal(
    service,
    'open_conversation',
    { message: 'a third opening' },
    429,
    /At most 2 conversations may be opened per hour/,
  );
});

test('a blocked conversation is refused with 403, a closed one and an expired credential with 410', async (t) => {
  const { clock, service } = await startLimitedService(t);
  const { mine, theirs, credential } = await openMineAndTheirs(service);
  // With the day's messages spent, a closed conversation must still say so rather than 429.
  await sendTheDaysLastMessages(service, credential);
  setBlocked(service.store, theirs.id, true);
  await refusal(
    service,
    'get_conversation',
    { conversation_id: theirs.id, access_token: theirs.token },
    403,
    /owner has blocked/,
  );
  service.store.setStatus(mine.id, 'closed', new Date().toISOString());
  await refusal(service, 'send_message', { ...credential, message: 'closed' }, 410, /owner closed this conversation/);
  clock.advance(366 * 86_400_000);
  await refusal(service, 'get_conversation', credential, 410, /This credential expired at/);
});

/** The status of a poll for updates through the REST door. */
async function pollOverRest(service: TestService, credential: { conversation_id: string; access_token: string }) {
  const path = `/api/v1/conversations/${credential.conversation_id}/updates`;
  return (await request(service.url, 'GET', path, { token: credential.access_token })).status;
}

test("one set of rules on both doors: each reads the other's conversations; shared keys and poll clock", async (t) => {
  const clock = fakeClock();
  const failing = `${process.execPath} -e process.exit(3)`; // a notifier that fails fails no write
  const service = await startTestService(t, { now: clock.now, env: { NOTIFY_COMMAND: failing } });
  const viaMcp = (await tool(service, 'open_conversation', { message: 'opened through MCP' })).ok as {
    id: string;
    access_token: string;
  };
  const rest = await request(service.url, 'GET', `/api/v1/conversations/${viaMcp.id}/messages`, {
    token: viaMcp.access_token,
  });
  assert.equal(rest.body.items[0].message, 'opened through MCP');
  const restKey = newKey();
  const viaRest = await request(service.url, 'POST', '/api/v1/conversations', {
    key: restKey,
    json: { message: 'opened through REST' },
  });
  const credential = { conversation_id: viaRest.body.id, access_token: viaRest.body.access_token };
  assert.equal(
    ((await tool(service, 'read_messages', credential)).ok as { items: { message: string }[] }).items[0]?.message,
    'opened through REST',
  );
  await refusal(
    service,
    'open_conversation',
    { message: 'again', idempotency_key: restKey },
    409,
    /already opened a conversation/,
  );
  const followKey = newKey();
  const posted = await request(service.url, 'POST', `/api/v1/conversations/${credential.conversation_id}/messages`, {
    token: credential.access_token,
    key: followKey,
    json: { message: 'once' },
  });
  assert.deepEqual(
    (await tool(service, 'send_message', { ...credential, message: 'once', idempotency_key: followKey })).ok,
    { message: posted.body.message, duplicate: true },
  );
  assert.equal(await pollOverRest(service, credential), 200);
  await refusal(service, 'check_updates', credential, 429, /Poll this conversation at most once/);
  clock.advance(60_000);
  assert.ok((await tool(service, 'check_updates', credential)).ok);
  assert.equal(await pollOverRest(service, credential), 429);
  const notified = () =>
    service.logs.filter((entry) => entry.notify === 'failed').map((entry) => entry.conversation_id);
  await waitUntil(() => notified().length >= 3, 'the three new messages were handed to the notifier');
  assert.deepEqual(
    notified().sort(),
    [viaMcp.id, viaRest.body.id, viaRest.body.id].sort(),
    'the owner is told of MCP and REST messages alike, a duplicate of neither',
  );
});

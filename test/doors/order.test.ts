// The contract's order of checks, so that one request never gets two different answers:
// authentication → body and key validation → idempotency → state → limits → the write.
// The same table runs through every door (REST, MCP, A2A): a request that breaks several
// rules at once gets the refusal of the first, through any of them.
// Covers: src/rules/access.ts, src/rules/validate.ts, src/rules/conversations.ts, src/rules/closing.ts,
// src/rules/blocks.ts, src/rules/quotas.ts, src/rules/rates.ts, on every door.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { close } from '../../src/rules/closing.ts';
import { setBlocked } from '../../src/rules/blocks.ts';
import { newKey, openConversation, request, startTestService, type TestService } from '../helpers.ts';
import { bearer, rpc } from './a2a/calls.ts';

/** What a door answered: a status (MCP: the REST status its refusal names), or success. */
type Outcome = number | 'stored' | 'duplicate' | 'answered';

interface Door {
  readonly name: string;
  followUp(conversation: Opened, message: unknown, key: string): Promise<Outcome>;
  open(message: unknown, key: string): Promise<Outcome>;
  poll(conversation: Opened, after: unknown): Promise<Outcome>;
}
interface Opened {
  readonly id: string;
  readonly token: string;
}

function restDoor(service: TestService): Door {
  const outcome = (status: number, duplicate?: boolean): Outcome =>
    status === 201 ? 'stored' : status === 200 ? (duplicate ? 'duplicate' : 'answered') : status;
  return {
    name: 'REST',
    async followUp({ id, token }, message, key) {
      const response = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
        token,
        key,
        json: { message },
      });
      return outcome(response.status, response.body?.duplicate);
    },
    async open(message, key) {
      return outcome((await request(service.url, 'POST', '/api/v1/conversations', { key, json: { message } })).status);
    },
    async poll({ id, token }, after) {
      const query = after === undefined ? '' : `?after=${String(after)}`;
      return outcome(
        (await request(service.url, 'GET', `/api/v1/conversations/${id}/updates${query}`, { token })).status,
      );
    },
  };
}

function mcpDoor(service: TestService): Door {
  const call = async (name: string, args: Record<string, unknown>): Promise<Outcome> => {
    const response = await request(service.url, 'POST', '/mcp', {
      json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    const result = response.body.result;
    if (result.isError) return JSON.parse(result.content[0].text).error.code as number;
    if (name === 'open_conversation') return 'stored';
    if (name === 'send_message') return result.structuredContent.duplicate ? 'duplicate' : 'stored';
    return 'answered';
  };
  const credential = ({ id, token }: Opened) => ({ conversation_id: id, access_token: token });
  return {
    name: 'MCP',
    followUp: (conversation, message, key) =>
      call('send_message', { ...credential(conversation), message, idempotency_key: key }),
    open: (message, key) => call('open_conversation', { message, idempotency_key: key }),
    poll: (conversation, after) =>
      call('check_updates', { ...credential(conversation), ...(after !== undefined && { after }) }),
  };
}

/**
 * A2A names refusals its own way: a reused messageId is InvalidParams with a MESSAGE_ID_REUSED
 * detail (REST's 409), a closed task UnsupportedOperation (REST's 410), InvalidParams REST's 400;
 * what A2A has no error for carries the REST status as its code.
 */
function a2aDoor(service: TestService): Door {
  const call = async (method: string, params: object, token?: string): Promise<Outcome> => {
    const response = await rpc(service, method, params, token === undefined ? {} : bearer(token));
    const error = response.body.error;
    if (error === undefined) return response.body.result.task?.metadata.duplicate ? 'duplicate' : 'stored';
    const reused = JSON.stringify(error.data ?? []).includes('MESSAGE_ID_REUSED');
    const byCode: Record<number, number> = { [-32602]: reused ? 409 : 400, [-32004]: 410, [-32005]: 400 };
    return byCode[error.code] ?? error.code;
  };
  const message = (text: unknown, key: string) => ({
    message: { messageId: key, role: 'ROLE_USER', parts: [{ text }] },
  });
  return {
    name: 'A2A',
    followUp: ({ token }, text, key) => call('SendMessage', message(text, key), token),
    open: (text, key) => call('SendMessage', message(text, key)),
    poll: async ({ id, token }, after) => {
      // GetTask has no `after`: a bad historyLength is its invalid parameter.
      const outcome = await call('GetTask', { id, ...(after !== undefined && { historyLength: after }) }, token);
      return outcome === 'stored' ? 'answered' : outcome;
    },
  };
}

const DOORS: [string, (service: TestService) => Door][] = [
  ['REST', restDoor],
  ['MCP', mcpDoor],
  ['A2A', a2aDoor],
];

for (const [name, makeDoor] of DOORS) {
  test(`${name}: a request that breaks several rules gets the first refusal in the contract's order`, async (t) => {
    // A conversation may store 2 messages a day; an address may open 3 conversations an hour.
    const service = await startTestService(t, { env: { DAILY_CONVERSATION_SHARE: '2', CREATE_LIMIT_PER_HOUR: '3' } });
    const door = makeDoor(service);
    const full = await openConversation(service.url); // 1 of 2
    const storedKey = newKey();
    assert.equal(await door.followUp(full, 'second', storedKey), 'stored'); // 2 of 2: the share is used
    const closed = await openConversation(service.url);
    const closedKey = newKey();
    assert.equal(await door.followUp(closed, 'before the close', closedKey), 'stored'); // its share is used too
    close(service.store, closed.id);
    const blockedKey = newKey(); // the third and last opening of the hour
    const third = await request(service.url, 'POST', '/api/v1/conversations', {
      key: blockedKey,
      json: { message: 'third' },
    });
    const blocked = { id: third.body.id as string, token: third.body.access_token as string };
    setBlocked(service.store, blocked.id, true);

    // Follow-ups: authentication → validation → idempotency → state → limits.
    assert.equal(await door.followUp(blocked, '', newKey()), 403, 'blocked before a blank message');
    assert.equal(await door.followUp({ ...full, token: 'f'.repeat(64) }, '', newKey()), 401, 'unknown credential');
    assert.equal(await door.followUp(closed, '   ', newKey()), 400, 'a blank message before the close');
    assert.equal(await door.followUp(closed, 'x', 'short'), 400, 'a bad key before the close');
    assert.equal(await door.followUp(closed, 'before the close', closedKey), 'duplicate', 'a retry before the close');
    assert.equal(await door.followUp(closed, 'another text', closedKey), 409, 'a key conflict before the close');
    assert.equal(await door.followUp(closed, 'new', newKey()), 410, 'the close before the share');
    assert.equal(await door.followUp(full, 'second', storedKey), 'duplicate', 'a retry before the share');
    assert.equal(await door.followUp(full, 'third', newKey()), 429, 'the share');

    // Openings: validation → idempotency → limits.
    assert.equal(await door.open('', blockedKey), 400, 'a blank message before the used key');
    assert.equal(await door.open(8001, newKey()), 400, 'a message that is not text before the full hour');
    assert.equal(await door.open('third', blockedKey), 409, 'the used key before the full hour');
    assert.equal(await door.open('over the hour', newKey()), 429, 'the opening limit');

    // Polls: validation → the poll interval.
    assert.equal(await door.poll(full, undefined), 'answered');
    assert.equal(await door.poll(full, -1), 400, 'a bad `after` before the interval');
    assert.equal(await door.poll(full, 0), 429, 'the interval');
  });
}

test('both protocol doors judge a foreign Origin, then a credential in the URL, then the body', async (t) => {
  const service = await startTestService(t);
  const token = 'ab'.repeat(32);
  const foreign = { origin: 'https://evil.example', accept: 'application/json, text/event-stream' };
  const calls = [
    { path: '/mcp', json: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    { path: '/a2a', json: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } } },
  ];
  for (const { path, json } of calls) {
    const both = await request(service.url, 'POST', `${path}?access_token=${token}`, { json, headers: foreign });
    assert.equal(both.status, 403, `${path}: the Origin first`);
    const url = await request(service.url, 'POST', `${path}?access_token=${token}`, {
      body: '{not json',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    });
    assert.equal(url.status, 400, `${path}: the credential in the URL before the body`);
    assert.doesNotMatch(url.text, /[0-9a-f]{64}/, `${path}: the credential is not repeated`);
    assert.match(url.text, /never put the credential in a url/i, `${path}: and that is what it says`);
  }
});

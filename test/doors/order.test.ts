// The contract's order of checks, so that one request never gets two different answers:
// authentication → body and key validation → idempotency → state → limits → the write.
// The same table runs through the REST door and the MCP door: a request that breaks several
// rules at once gets the refusal of the first, through either.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { close, setBlocked } from '../../src/rules/conversations.ts';
import { newKey, openConversation, request, startTestService, type TestService } from '../helpers.ts';

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

const DOORS: [string, (service: TestService) => Door][] = [
  ['REST', restDoor],
  ['MCP', mcpDoor],
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

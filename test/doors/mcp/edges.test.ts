// The MCP door at its edges: what the 2026-07-28 revision requires in every request's _meta,
// a handshake revision's client that names its version there, and integer arguments as JSON.
// Covers: src/doors/mcp/, src/rules/validate.ts, src/rules/conversations.ts (the page's text budget).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openConversation, request, startTestService } from '../../helpers.ts';
import { call, CAPABILITIES_KEY, MODERN, rpc, tool, VERSION_KEY } from './calls.ts';

const modernHeaders = (method: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method });

test('2026-07-28 requests without a clientCapabilities object in _meta get -32602 and 400', async (t) => {
  const service = await startTestService(t);
  for (const capabilities of [undefined, [], 'none', null]) {
    const meta = { [VERSION_KEY]: MODERN, ...(capabilities !== undefined && { [CAPABILITIES_KEY]: capabilities }) };
    const refused = await rpc(service, { ...call('tools/list'), params: { _meta: meta } }, {
      headers: modernHeaders('tools/list'),
    });
    assert.equal(refused.status, 400, JSON.stringify(capabilities));
    assert.equal(refused.body.error.code, -32602);
    assert.match(refused.body.error.message, /clientCapabilities/);
  }
  const declared = { [VERSION_KEY]: MODERN, [CAPABILITIES_KEY]: {} };
  const listed = await rpc(service, { ...call('tools/list'), params: { _meta: declared } }, {
    headers: modernHeaders('tools/list'),
  });
  assert.equal(listed.status, 200, listed.text);
  assert.ok(listed.body.result.tools.length > 0);
});

test('a 2025-11-25 client that also names its version in _meta is served as 2025-11-25', async (t) => {
  const service = await startTestService(t);
  const legacy = await rpc(service, { ...call('tools/list'), params: { _meta: { [VERSION_KEY]: '2025-11-25' } } }, {
    headers: { 'mcp-protocol-version': '2025-11-25' },
  });
  assert.equal(legacy.status, 200, legacy.text);
  assert.equal(legacy.body.result.resultType, undefined, 'answered as the handshake revision');
  const mixed = await rpc(service, { ...call('tools/list'), params: { _meta: { [VERSION_KEY]: '2025-11-25' } } }, {
    headers: { 'mcp-protocol-version': '2025-06-18' },
  });
  assert.equal(mixed.body.error.code, -32020, 'a version that contradicts the header is a mismatch');
  assert.doesNotMatch(mixed.body.error.message, /Unsupported/);
});

test('integer arguments are JSON numbers: a number sent as a string is a tool error naming it', async (t) => {
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' } });
  const { id, token } = await openConversation(service.url);
  const credential = { conversation_id: id, access_token: token };
  for (const [name, args, field] of [
    ['search_directory', { limit: '5' }, 'limit'],
    ['search_directory', { offset: '0' }, 'offset'],
    ['read_messages', { ...credential, after: '1' }, 'after'],
    ['check_updates', { ...credential, wait: '1' }, 'wait'],
  ] as const) {
    const { refused } = await tool(service, name, args);
    assert.equal(refused?.code, 400, `${name} ${field}`);
    assert.match(refused?.message ?? '', new RegExp(`\`${field}\` must be a JSON number`));
  }
  assert.equal((await tool(service, 'search_directory', { limit: 5 })).ok.items.length, 5);
});

test('an answer carries at most 256 KiB of message text: a page stops early and says there is more', async (t) => {
  const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '0' } });
  const { id, token } = await openConversation(service.url);
  const credential = { conversation_id: id, access_token: token };
  const big = '😀'.repeat(8000); // 32,000 bytes of UTF-8: the longest a message can be in bytes
  for (let i = 0; i < 10; i++) {
    const sent = await tool(service, 'send_message', { ...credential, message: big, idempotency_key: `big-${i}-key` });
    assert.ok(sent.ok, JSON.stringify(sent.refused));
  }
  const page = (await tool(service, 'read_messages', { ...credential, limit: 100 })).ok;
  // The short opening and eight messages of 32,000 bytes fit in 262,144 bytes; a ninth would not.
  assert.deepEqual([page.items.length, page.has_more, page.next_after], [9, true, 9]);
  const rest = await request(service.url, 'GET', `/api/v1/conversations/${id}/messages?after=9&limit=100`, { token });
  assert.deepEqual([rest.body.items.length, rest.body.has_more, rest.body.next_after], [2, false, 11]);
  const task = await request(service.url, 'GET', `/a2a/tasks/${id}?historyLength=100`, {
    headers: { 'a2a-version': '1.0', authorization: `Bearer ${token}` },
  });
  const seqs = task.body.history.map((message: { metadata: { seq: number } }) => message.metadata.seq);
  assert.deepEqual(seqs, [4, 5, 6, 7, 8, 9, 10, 11], 'the newest that fit, oldest first');
});

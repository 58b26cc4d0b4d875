// The MCP door's protocol and rules, request by request (docs/mcp.md): JSON-RPC framing
// and errors, the two revisions and their headers, DNS rebinding protection, refusals as
// tool results, and one set of rules with the REST door.
// Covers: src/doors/mcp/, src/doors/jsonrpc.ts, src/http/origins.ts, src/rules/conversations.ts,
// src/directory/snapshot.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request, startTestService } from '../../helpers.ts';
import { call, MODERN, rpc, tool } from './calls.ts';

test("initialize answers with the client's version if served, else 2025-11-25, and teaches the protocol", async (t) => {
  const service = await startTestService(t);
  for (const [asked, answered] of [
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    [MODERN, '2025-11-25'],
    ['1999-01-01', '2025-11-25'],
  ]) {
    const response = await rpc(
      service,
      call('initialize', { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'test', version: '1' } }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('mcp-session-id'), null, 'no session is issued');
    const { protocolVersion, capabilities, serverInfo, instructions } = response.body.result;
    assert.equal(protocolVersion, answered, asked);
    assert.deepEqual(capabilities, { tools: { listChanged: false } });
    assert.deepEqual(Object.keys(serverInfo), ['name', 'title', 'version']);
    assert.match(
      instructions,
      new RegExp(
        'open_conversation once.*store the returned id and access_token.*' +
          'at most once every 60 seconds.*written by a human',
        's',
      ),
    );
  }
  assert.deepEqual(
    (
      await rpc(service, call('ping'), {
        headers: { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': 'ignored' },
      })
    ).body,
    { jsonrpc: '2.0', id: 1, result: {} },
  );
});

test('2026-07-28: server/discover, resultType on every result, serverInfo in _meta, cacheable tool list', async (t) => {
  const service = await startTestService(t);
  const discover = await rpc(service, call('server/discover'), { modern: true });
  assert.equal(discover.status, 200);
  const { supportedVersions, resultType, ttlMs, cacheScope, instructions, _meta } = discover.body.result;
  assert.deepEqual(supportedVersions, [MODERN, '2025-11-25', '2025-06-18', '2025-03-26']);
  assert.deepEqual(
    [resultType, cacheScope, typeof ttlMs, typeof instructions],
    ['complete', 'public', 'number', 'string'],
  );
  assert.equal(_meta['io.modelcontextprotocol/serverInfo'].name, 'agent-contact-service');
  const list = await rpc(service, call('tools/list'), { modern: true });
  assert.deepEqual([list.body.result.resultType, list.body.result.cacheScope], ['complete', 'public']);
  const legacyList = await rpc(service, call('tools/list'));
  assert.equal(legacyList.body.result.ttlMs, undefined, 'the 2025 revisions have no caching hints');
  for (const tool of list.body.result.tools) {
    assert.deepEqual(Object.keys(tool), ['name', 'title', 'annotations', 'outputSchema', 'description', 'inputSchema']);
    assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    const changes = ['open_conversation', 'send_message', 'set_webhook', 'close_conversation', 'delete_webhook'];
    const ends = ['close_conversation', 'delete_webhook'].includes(tool.name); // reversible only by the owner
    assert.deepEqual(
      tool.annotations,
      {
        readOnlyHint: !changes.includes(tool.name),
        destructiveHint: ends,
        idempotentHint: !['open_conversation', 'set_webhook'].includes(tool.name), // each gives something anew
        openWorldHint: false,
      },
      tool.name,
    );
  }
  const described = Object.fromEntries(
    list.body.result.tools.map((tool: { name: string; description: string }) => [tool.name, tool.description]),
  );
  assert.match(
    described.open_conversation,
    /store both at once.*shown only here.*written by a human and may take hours.*idempotency_key/s,
  );
  assert.match(
    described.send_message,
    /new idempotency_key for each message.*retry with the same key.*duplicate true/s,
  );
  assert.match(
    described.check_updates,
    /at most once every 60 seconds.*retry_after_seconds.*from a human and may take hours/s,
  );
  assert.match(described.search_directory, /No credential needed/);
  const called = await rpc(service, call('tools/call', { name: 'search_directory', arguments: { limit: 1 } }), {
    modern: true,
  });
  assert.deepEqual(
    [called.body.result.resultType, called.body.result.isError, called.body.result.ttlMs],
    ['complete', false, undefined],
  );
});

test('search_directory pages like the REST directory: same order, total, next_offset; null at the end', async (t) => {
  const service = await startTestService(t);
  for (const [kind, path] of [
    [undefined, '/api/v1/directory'],
    ['tool', '/api/v1/tools'],
  ] as const) {
    const rest = (await request(service.url, 'GET', `${path}?limit=100`)).body as {
      items: { slug: string }[];
      total: number;
    };
    assert.ok(rest.total >= 3, 'the fixture has enough listings to page');
    const first = (await tool(service, 'search_directory', { kind, limit: 2 })).ok;
    assert.deepEqual(
      [first.items.map((item: { slug: string }) => item.slug), first.total, first.next_offset],
      [rest.items.slice(0, 2).map((item) => item.slug), rest.total, 2],
    );
    const last = (await tool(service, 'search_directory', { kind, limit: 2, offset: rest.total - 1 })).ok;
    assert.deepEqual(
      [last.items.map((item: { slug: string }) => item.slug), last.next_offset],
      [[rest.items.at(-1)?.slug], null],
    );
  }
});

// The MCP door's protocol and rules, request by request (../shared/mcp.md): JSON-RPC framing
// and errors, the two revisions and their headers, DNS rebinding protection, refusals as
// tool results, and one set of rules with the REST door.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { setBlocked } from '../src/conversations.ts';
import {
  fakeClock,
  newKey,
  openConversation,
  request,
  startTestService,
  waitUntil,
  type TestService,
} from './helpers.ts';

const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const MODERN = '2026-07-28';

/** POSTs one JSON-RPC body to /mcp; `modern` adds the 2026-07-28 envelope and headers. */
async function rpc(
  service: TestService,
  message: Record<string, unknown>,
  options: { modern?: boolean; headers?: Record<string, string> } = {},
) {
  const body = options.modern
    ? { ...message, params: { ...(message.params as object), _meta: { [VERSION_KEY]: MODERN } } }
    : message;
  const standard: Record<string, string> = options.modern
    ? { 'mcp-protocol-version': MODERN, 'mcp-method': String(message.method) }
    : {};
  if (options.modern && message.method === 'tools/call')
    standard['mcp-name'] = String((message.params as { name: string }).name);
  return request(service.url, 'POST', '/mcp', {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...standard,
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
}
const call = (method: string, params: object = {}, id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

/** Calls a tool; returns its structured content, or its refusal as { code, message, retry_after_seconds }. */
async function tool(service: TestService, name: string, args: unknown) {
  const response = await rpc(service, call('tools/call', { name, arguments: args }));
  assert.equal(response.status, 200, response.text);
  const result = response.body.result;
  if (!result.isError) return { ok: result.structuredContent, refused: undefined };
  assert.deepEqual(Object.keys(result), ['content', 'isError']);
  return {
    ok: undefined,
    refused: JSON.parse(result.content[0].text).error as {
      code: number;
      message: string;
      retry_after_seconds?: number;
    },
  };
}
async function refusal(service: TestService, name: string, args: unknown, code: number, says: RegExp) {
  const { refused } = await tool(service, name, args);
  assert.equal(refused?.code, code, `${name}: ${JSON.stringify(refused)}`);
  assert.match(refused?.message ?? '', says);
  return refused!;
}

test("initialize answers with the client's version when it serves it, else 2025-11-25, and teaches the protocol", async (t) => {
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
      /open_conversation once.*store the returned id and access_token.*at most once every 60 seconds.*written by a human/s,
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

test('the 2026-07-28 revision: server/discover, resultType on every result, serverInfo in _meta, a cacheable tool list', async (t) => {
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
    const reads = !['open_conversation', 'send_message'].includes(tool.name);
    assert.deepEqual(
      tool.annotations,
      {
        readOnlyHint: reads,
        destructiveHint: false,
        idempotentHint: tool.name !== 'open_conversation',
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

test('search_directory pages like the REST directory: the same order, total and next_offset, null on the last page', async (t) => {
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

test('JSON-RPC errors: -32700, -32600, -32601 (in band on 2025, 404 on 2026-07-28) and -32602 for an unknown tool', async (t) => {
  const service = await startTestService(t);
  const raw = (body: string) =>
    request(service.url, 'POST', '/mcp', { headers: { 'content-type': 'application/json' }, body });
  const expect = async (
    response: ReturnType<typeof raw>,
    status: number,
    code: number,
    says: RegExp,
    id: unknown = null,
  ) => {
    const { status: got, body } = await response;
    assert.equal(got, status, JSON.stringify(body));
    assert.deepEqual([body.jsonrpc, body.id, body.error.code], ['2.0', id, code]);
    assert.match(body.error.message, says);
  };
  await expect(raw('{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700, /Parse error: The body is not valid JSON/);
  await expect(raw('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]'), 400, -32600, /batches are not accepted/);
  await expect(raw('{"id": 1, "method": "ping"}'), 400, -32600, /"jsonrpc" must be "2.0"/);
  await expect(
    raw('{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}'),
    400,
    -32600,
    /"id" must be a string or an integer/,
  );
  await expect(
    raw('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}'),
    400,
    -32600,
    /"params" must be an object/,
  );
  await expect(rpc(service, call('resources/list', {}, 'a')), 200, -32601, /Method not found: "resources\/list"/, 'a');
  await expect(rpc(service, call('ping'), { modern: true }), 404, -32601, /Method not found: "ping"/, 1);
  await expect(
    rpc(service, call('tools/call', { name: 'delete_everything', arguments: {} })),
    200,
    -32602,
    /Unknown tool "delete_everything"/,
    1,
  );
});

test('2026-07-28 headers must match the body: -32020 for a missing or different one, -32022 for an unsupported version', async (t) => {
  const service = await startTestService(t);
  const check = async (
    message: object,
    headers: Record<string, string>,
    status: number,
    code: number,
    says: RegExp,
    modern = true,
  ) => {
    const response = await rpc(service, message as Record<string, unknown>, { modern, headers });
    assert.deepEqual([response.status, response.body.error?.code], [status, code], response.text);
    assert.match(response.body.error.message, says);
    return response.body.error;
  };
  await check(
    call('tools/list'),
    { 'mcp-method': '' },
    400,
    -32020,
    /Mcp-Method is "", and the body says "tools\/list"/,
  );
  const noMethod = await rpc(
    service,
    { ...call('tools/list'), params: { _meta: { [VERSION_KEY]: MODERN } } },
    { headers: { 'mcp-protocol-version': MODERN } },
  );
  assert.deepEqual([noMethod.status, noMethod.body.error.code], [400, -32020]);
  assert.match(noMethod.body.error.message, /Mcp-Method is missing/);
  await check(call('tools/list'), { 'mcp-method': 'tools/call' }, 400, -32020, /Mcp-Method/);
  await check(
    call('tools/call', { name: 'get_listing', arguments: { slug: 'alpha-api' } }),
    { 'mcp-name': 'search_directory' },
    400,
    -32020,
    /Mcp-Name/,
  );
  await check(call('tools/list'), { 'mcp-protocol-version': '2025-11-25' }, 400, -32020, /MCP-Protocol-Version/);
  const encoded = await rpc(service, call('tools/call', { name: 'get_listing', arguments: { slug: 'alpha-api' } }), {
    modern: true,
    headers: { 'mcp-name': `=?base64?${Buffer.from('get_listing').toString('base64')}?=` },
  });
  assert.equal(encoded.body.result.structuredContent.slug, 'alpha-api', 'a Base64 Mcp-Name is decoded');
  const future = await rpc(
    service,
    { ...call('tools/list'), params: { _meta: { [VERSION_KEY]: '2099-01-01' } } },
    { headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' } },
  );
  assert.deepEqual(
    [future.status, future.body.error.code, future.body.error.data],
    [400, -32022, { supported: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26'], requested: '2099-01-01' }],
  );
  const legacyUnknown = await check(
    call('tools/list'),
    { 'mcp-protocol-version': '2024-01-01' },
    400,
    -32022,
    /Unsupported protocol version "2024-01-01"/,
    false,
  );
  assert.deepEqual(legacyUnknown.data.supported, [MODERN, '2025-11-25', '2025-06-18', '2025-03-26']);
  await check(call('tools/list'), { 'mcp-protocol-version': MODERN }, 400, -32602, /params\._meta has no/, false);
});

test('notifications and responses get 202 with no body; GET and DELETE get 405; OPTIONS gets 204', async (t) => {
  const service = await startTestService(t);
  for (const message of [
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    { jsonrpc: '2.0', id: 7, result: {} },
    { jsonrpc: '2.0', id: 7, error: { code: -1, message: 'x' } },
  ]) {
    const response = await rpc(service, message);
    assert.deepEqual([response.status, response.text], [202, ''], JSON.stringify(message));
  }
  for (const method of ['GET', 'DELETE']) {
    const response = await request(service.url, method, '/mcp');
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST, OPTIONS');
  }
  const preflight = await request(service.url, 'OPTIONS', '/mcp', {
    headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
  });
  assert.deepEqual(
    [preflight.status, preflight.headers.get('allow'), preflight.headers.get('access-control-allow-origin')],
    [204, 'POST, OPTIONS', null],
  );
});

test("a foreign Origin or Host gets 403; the service's own origins, loopback names alike, and MCP_ALLOWED_ORIGINS get CORS", async (t) => {
  const service = await startTestService(t, { env: { MCP_ALLOWED_ORIGINS: 'https://app.example.org' } });
  const port = new URL(service.url).port;
  // fetch sends the URL's own Host whatever it is told, so these go through node:http.
  const ping = (headers: Record<string, string>) =>
    new Promise<{ status: number; headers: Headers; body: any }>((resolve, reject) => {
      const outgoing = http.request(
        `${service.url}/mcp`,
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode as number,
              headers: new Headers(res.headers as Record<string, string>),
              body: JSON.parse(text),
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(JSON.stringify(call('ping')));
    });
  const foreign: Record<string, string>[] = [
    { origin: 'http://evil.example' },
    { origin: 'null' },
    { host: 'evil.example' },
    { host: `localhost:${Number(port) + 1}` },
    { origin: 'https://app.example.org.evil.example' },
  ];
  for (const headers of foreign) {
    const response = await ping(headers);
    assert.equal(response.status, 403, JSON.stringify(headers));
    assert.match(
      response.body.error.message,
      'host' in headers
        ? /This Host header does not name this service, so \/mcp refuses it.*PUBLIC_BASE_URL/
        : /This Origin may not call \/mcp.*MCP_ALLOWED_ORIGINS/,
    );
    assert.equal(response.headers.get('access-control-allow-origin'), null);
  }
  for (const origin of [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `http://[::1]:${port}`,
    'https://app.example.org',
  ]) {
    const response = await ping({ origin, host: `localhost:${port}` });
    assert.equal(response.status, 200, origin);
    assert.equal(response.headers.get('access-control-allow-origin'), origin);
    const preflight = await request(service.url, 'OPTIONS', '/mcp', { headers: { origin } });
    assert.equal(
      preflight.headers.get('access-control-allow-headers'),
      'Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name',
    );
  }
  assert.equal((await ping({})).headers.get('access-control-allow-origin'), null, 'no CORS without an Origin');
});

test('the body limit is 128 KiB: the largest valid message with every character escaped fits, a larger body gets 413', async (t) => {
  const service = await startTestService(t);
  const escaped = '\\u00e9'.repeat(8000);
  const metadata = {
    agent_name: '\\u00e9'.repeat(500),
    model: '\\u00e9'.repeat(500),
    framework: '\\u00e9'.repeat(500),
  };
  const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open_conversation","arguments":{"message":"${escaped}","metadata":${JSON.stringify(metadata).replaceAll('\\\\', '\\')},"idempotency_key":"${newKey()}"}}}`;
  assert.ok(Buffer.byteLength(body) > 16384 * 3 && Buffer.byteLength(body) <= 131072);
  const fits = await request(service.url, 'POST', '/mcp', { headers: { 'content-type': 'application/json' }, body });
  assert.equal(fits.body.result.isError, false, fits.text.slice(0, 300));
  const tooLarge = await request(service.url, 'POST', '/mcp', {
    headers: { 'content-type': 'application/json' },
    body: body.replace('"id":1', `"id":1,"pad":"${' '.repeat(131072)}"`),
  });
  assert.equal(tooLarge.status, 413);
  assert.match(tooLarge.body.error.message, /at most 131072 bytes/);
});

test('every refusal is a tool result with the status REST would answer, worded for tool arguments', async (t) => {
  const clock = fakeClock();
  const service = await startTestService(t, {
    now: clock.now,
    env: { DAILY_MESSAGE_LIMIT: '5', CREATE_LIMIT_PER_HOUR: '2' },
  });
  await refusal(service, 'open_conversation', { message: '' }, 400, /The argument `message` must not be empty/);
  await refusal(
    service,
    'open_conversation',
    { message: 'hi', token: 'x' },
    400,
    /^There is an unknown argument "token" in the tool arguments; allowed: message, metadata, idempotency_key\.$/,
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
  const key = newKey();
  const mine = (await tool(service, 'open_conversation', { message: 'first', idempotency_key: key })).ok as {
    id: string;
    access_token: string;
  };
  await refusal(
    service,
    'open_conversation',
    { message: 'first', idempotency_key: key },
    409,
    /This idempotency_key already opened a conversation/,
  );
  const theirs = await openConversation(service.url);
  const credential = { conversation_id: mine.id, access_token: mine.access_token };
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
  assert.ok((await tool(service, 'check_updates', credential)).ok);
  const soon = await refusal(service, 'check_updates', credential, 429, /at most once every 60 seconds/);
  assert.equal(soon.retry_after_seconds, 55);
  await tool(service, 'send_message', { ...credential, message: 'three' }); // the 4th message of the day: theirs, mine, two, three
  await tool(service, 'send_message', { ...credential, message: 'four' }); // the 5th
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
  await refusal(service, 'read_messages', [], 400, /The tool arguments must be a JSON object/);
});

test("one set of rules across both doors: each reads the other's conversations, and keys and the poll clock are shared", async (t) => {
  const clock = fakeClock();
  const service = await startTestService(t, { now: clock.now, env: { NOTIFY_COMMAND: '/nonexistent/notifier' } });
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
  assert.equal(
    (
      await request(service.url, 'GET', `/api/v1/conversations/${credential.conversation_id}/updates`, {
        token: credential.access_token,
      })
    ).status,
    200,
  );
  await refusal(service, 'check_updates', credential, 429, /Poll this conversation at most once/);
  clock.advance(60_000);
  assert.ok((await tool(service, 'check_updates', credential)).ok);
  assert.equal(
    (
      await request(service.url, 'GET', `/api/v1/conversations/${credential.conversation_id}/updates`, {
        token: credential.access_token,
      })
    ).status,
    429,
  );
  const notified = () =>
    service.logs.filter((entry) => entry.notify === 'failed').map((entry) => entry.conversation_id);
  await waitUntil(() => notified().length >= 3, 'the three new messages were handed to the notifier');
  assert.deepEqual(
    notified().sort(),
    [viaMcp.id, viaRest.body.id, viaRest.body.id].sort(),
    'the owner is told of MCP and REST messages alike, a duplicate of neither',
  );
});

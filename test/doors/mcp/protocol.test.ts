// The MCP door at the protocol level: JSON-RPC errors, the 2026-07-28 headers,
// notifications, origins and the body limit.
// Covers: src/doors/mcp/endpoint.ts, src/doors/jsonrpc.ts, src/http/origins.ts, src/http/body.ts.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { newKey, request, startTestService, type TestService } from '../../helpers.ts';
import { call, MODERN, rpc, VERSION_KEY } from './calls.ts';

test('JSON-RPC errors: -32700, -32600, -32601 (in band on 2025, 404 on 2026-07-28), unknown tool -32602', async (t) => {
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
  // Refused before the door reads it (a foreign Origin): the HTTP layer still echoes a string id.
  const foreign = request(service.url, 'POST', '/mcp', {
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    body: '{"jsonrpc": "2.0", "id": "call-7", "method": "ping"}',
  });
  await expect(foreign, 403, 403, /Origin/, 'call-7');
  await expect(
    rpc(service, call('tools/call', { name: 'delete_everything', arguments: {} })),
    200,
    -32602,
    /Unknown tool "delete_everything"/,
    1,
  );
});

const SUPPORTED = [MODERN, '2025-11-25', '2025-06-18', '2025-03-26'];

/** Sends a message with these headers and expects that error; returns it for further checks. */
async function expectError(
  service: TestService,
  message: object,
  headers: Record<string, string>,
  status: number,
  code: number,
  says: RegExp,
  modern = true,
) {
  const response = await rpc(service, message as Record<string, unknown>, { modern, headers });
  assert.deepEqual([response.status, response.body.error?.code], [status, code], response.text);
  assert.match(response.body.error.message, says);
  return response.body.error;
}

test('2026-07-28 headers must match the body: missing or different -32020; a Base64 Mcp-Name is decoded', async (t) => {
  const service = await startTestService(t);
  await expectError(
    service,
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
  await expectError(service, call('tools/list'), { 'mcp-method': 'tools/call' }, 400, -32020, /Mcp-Method/);
  await expectError(
    service,
    call('tools/call', { name: 'get_listing', arguments: { slug: 'alpha-api' } }),
    { 'mcp-name': 'search_directory' },
    400,
    -32020,
    /Mcp-Name/,
  );
  const otherVersion = { 'mcp-protocol-version': '2025-11-25' };
  await expectError(service, call('tools/list'), otherVersion, 400, -32020, /MCP-Protocol-Version/);
  const encoded = await rpc(service, call('tools/call', { name: 'get_listing', arguments: { slug: 'alpha-api' } }), {
    modern: true,
    headers: { 'mcp-name': `=?base64?${Buffer.from('get_listing').toString('base64')}?=` },
  });
  assert.equal(encoded.body.result.structuredContent.slug, 'alpha-api', 'a Base64 Mcp-Name is decoded');
});

test('an unsupported version -32022 lists those supported; 2026-07-28 only in the header -32602', async (t) => {
  const service = await startTestService(t);
  const future = await rpc(
    service,
    { ...call('tools/list'), params: { _meta: { [VERSION_KEY]: '2099-01-01' } } },
    { headers: { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' } },
  );
  assert.deepEqual(
    [future.status, future.body.error.code, future.body.error.data],
    [400, -32022, { reason: 'protocol_version', supported: SUPPORTED, requested: '2099-01-01' }],
  );
  const legacyUnknown = await expectError(
    service,
    call('tools/list'),
    { 'mcp-protocol-version': '2024-01-01' },
    400,
    -32022,
    /Unsupported protocol version "2024-01-01"/,
    false,
  );
  assert.deepEqual(legacyUnknown.data.supported, SUPPORTED);
  const modernHeader = { 'mcp-protocol-version': MODERN };
  await expectError(service, call('tools/list'), modernHeader, 400, -32602, /params\._meta has no/, false);
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

test('foreign Origin/Host gets 403; own origins (any loopback name) and MCP_ALLOWED_ORIGINS get CORS', async (t) => {
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

test('the 128 KiB body limit: the largest valid message, all characters escaped, fits; larger gets 413', async (t) => {
  const service = await startTestService(t);
  const escaped = '\\u00e9'.repeat(8000);
  const metadata = {
    agent_name: '\\u00e9'.repeat(500),
    model: '\\u00e9'.repeat(500),
    framework: '\\u00e9'.repeat(500),
  };
  const body =
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open_conversation",` +
    `"arguments":{"message":"${escaped}","metadata":${JSON.stringify(metadata).replaceAll('\\\\', '\\')},` +
    `"idempotency_key":"${newKey()}"}}}`;
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

// Calling the MCP door from tests: one JSON-RPC body, a request object, a tool call.

import assert from 'node:assert/strict';
import { request, type TestService } from '../../helpers.ts';

export const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const MODERN = '2026-07-28';
/** The per-request fields the 2026-07-28 revision requires in `_meta`. */
export const MODERN_META = { [VERSION_KEY]: MODERN, [CAPABILITIES_KEY]: {} };

/** POSTs one JSON-RPC body to /mcp; `modern` adds the 2026-07-28 envelope and headers. */
export async function rpc(
  service: TestService,
  message: Record<string, unknown>,
  options: { modern?: boolean; headers?: Record<string, string> } = {},
) {
  const body = options.modern
    ? { ...message, params: { ...(message.params as object), _meta: MODERN_META } }
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
export const call = (method: string, params: object = {}, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

/** Calls a tool; returns its structured content, or its refusal as { code, message, retry_after_seconds }. */
export async function tool(service: TestService, name: string, args: unknown) {
  const response = await rpc(service, call('tools/call', { name, arguments: args }));
  assert.equal(response.status, 200, response.text);
  const result = response.body.result;
  if (!result.isError) return { ok: result.structuredContent, refused: undefined };
  assert.deepEqual(Object.keys(result), ['content', 'isError']);
  return {
    ok: undefined,
    refused: JSON.parse(result.content[0].text).error as {
      code: number;
      reason: string;
      message: string;
      retry_after_seconds?: number;
    },
  };
}

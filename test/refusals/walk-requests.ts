// The walk's cases for refusals of a request as such (src/refusals/request-refusals.ts and the
// protocol doors' own, protocol-refusals.ts): each reason triggered on each door where it can occur.

import http from 'node:http';
import { request, type ApiResponse } from '../helpers.ts';
import * as a2a from '../doors/a2a/calls.ts';
import * as mcp from '../doors/mcp/calls.ts';
import { a2aCall, a2aReason, mcpReason, mcpTool, rest, restReason } from './doors.ts';
import type { Case, Walk } from './walk.ts';

const OPEN = '/api/v1/conversations';
const JSON_TYPE = { 'content-type': 'application/json' };
const MCP_HEADERS = { ...JSON_TYPE, accept: 'application/json, text/event-stream' };
const A2A_HEADERS = { ...JSON_TYPE, ...a2a.V };
const open = (message: unknown, extra: object = {}) => ({ json: { message, ...extra }, key: 'walk-key-0001' });
const tool = (name: string) => async (walk: Walk, args: unknown) => mcpTool(await walk.start(), name, args);
const openTool = tool('open_conversation');
const a2aOpen = async (walk: Walk, message: object) => a2aCall(await walk.start(), 'SendMessage', { message });
const a2aText = (text: unknown, extra: object = {}) => ({
  messageId: 'walk-message-1',
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

/** An A2A message asking a question: its text part, and a data part with `data`. */
const a2aAsking = (data: object) => ({ ...a2aText('Hi.'), parts: [{ text: 'Hi.' }, { data }] });

/** A raw POST to a door, with its body as given. */
const raw = async (walk: Walk, path: string, body: string, headers: Record<string, string>) =>
  request((await walk.start()).url, 'POST', path, { body, headers });

/** A POST whose Host header is its own (fetch sends the URL's): node:http, its answer's body parsed. */
function withHost(base: string, path: string, body: string, headers: Record<string, string>) {
  return new Promise<ApiResponse>((resolve, reject) => {
    const outgoing = http.request(`${base}${path}`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const parsed = JSON.parse(text) as unknown;
        resolve({ status: res.statusCode ?? 0, headers: new Headers(), text, body: parsed });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const c = (reason: string, door: Case['door'], run: Case['run']): Case => ({ reason, door, run });

export const REQUEST_CASES: Case[] = [
  c('no_route', 'rest', async (w) => rest(await w.start(), 'GET', '/nowhere')),
  c('no_route', 'a2a', async (w) =>
    a2aReason(await request((await w.start()).url, 'GET', '/a2a/nowhere', { headers: a2a.V })),
  ),
  c('method_not_allowed', 'rest', async (w) => rest(await w.start(), 'DELETE', '/api/v1/health')),
  c('method_not_allowed', 'mcp', async (w) => mcpReason(await request((await w.start()).url, 'GET', '/mcp'))),
  c('method_not_allowed', 'a2a', async (w) => a2aReason(await request((await w.start()).url, 'GET', '/a2a'))),
  c('repeated_parameter', 'rest', async (w) => rest(await w.start(), 'GET', '/api/v1/directory?q=a&q=b')),
  c('repeated_parameter', 'mcp', async (w) => mcpReason(await raw(w, '/mcp?x=1&x=2', '{}', MCP_HEADERS))),
  c('repeated_parameter', 'a2a', async (w) => a2aReason(await raw(w, '/a2a?x=1&x=2', '{}', A2A_HEADERS))),
  c('bad_percent_encoding', 'rest', async (w) => rest(await w.start(), 'GET', '/api/v1/directory?q=%zz')),
  c('bad_percent_encoding', 'mcp', async (w) => mcpReason(await raw(w, '/mcp?q=%zz', '{}', MCP_HEADERS))),
  c('bad_percent_encoding', 'a2a', async (w) => a2aReason(await raw(w, '/a2a?q=%zz', '{}', A2A_HEADERS))),
  c('credential_in_url', 'rest', async (w) => rest(await w.start(), 'GET', '/api/v1/directory?access_token=x')),
  c('credential_in_url', 'mcp', async (w) => mcpReason(await raw(w, '/mcp?access_token=x', '{}', MCP_HEADERS))),
  c('credential_in_url', 'a2a', async (w) => a2aReason(await raw(w, '/a2a?access_token=x', '{}', A2A_HEADERS))),
  ...['rest', 'mcp', 'a2a'].map((door) =>
    c('too_many_requests', door as Case['door'], async (w) => {
      const service = await w.start({ REQUEST_LIMIT_PER_MINUTE: '1' });
      const path = { rest: '/api/v1/contact-info', mcp: '/mcp', a2a: '/a2a' }[door as Case['door']];
      const body = JSON.stringify(mcp.call('tools/list', {}, 3));
      const send = () =>
        request(
          service.url,
          door === 'rest' ? 'GET' : 'POST',
          path,
          door === 'rest' ? {} : { body, headers: door === 'mcp' ? MCP_HEADERS : A2A_HEADERS },
        );
      await send();
      const answer = await send();
      return door === 'rest' ? restReason(answer) : door === 'mcp' ? mcpReason(answer) : a2aReason(answer);
    }),
  ),
  c('not_json_content', 'rest', async (w) => restReason(await raw(w, OPEN, '{}', { 'content-type': 'text/plain' }))),
  c('not_json_content', 'mcp', async (w) => mcpReason(await raw(w, '/mcp', '{}', { 'content-type': 'text/plain' }))),
  c('not_json_content', 'a2a', async (w) =>
    a2aReason(await raw(w, '/a2a', '{}', { ...a2a.V, 'content-type': 'text/plain' })),
  ),
  c('body_too_large', 'rest', async (w) => restReason(await raw(w, OPEN, 'x'.repeat(20_000), JSON_TYPE))),
  c('body_too_large', 'mcp', async (w) => mcpReason(await raw(w, '/mcp', 'x'.repeat(140_000), MCP_HEADERS))),
  c('body_too_large', 'a2a', async (w) => a2aReason(await raw(w, '/a2a', 'x'.repeat(140_000), A2A_HEADERS))),
  c('not_json', 'rest', async (w) =>
    restReason(await raw(w, OPEN, '{', { ...JSON_TYPE, 'idempotency-key': 'walk-key-0001' })),
  ),
  c('not_json', 'mcp', async (w) => mcpReason(await raw(w, '/mcp', '{', MCP_HEADERS))),
  c('not_json', 'a2a', async (w) => a2aReason(await raw(w, '/a2a', '{', A2A_HEADERS))),
  c('not_utf8', 'rest', async (w) =>
    restReason(
      await request((await w.start()).url, 'POST', OPEN, {
        body: Buffer.from([0x7b, 0xff, 0x7d]) as unknown as string,
        headers: { ...JSON_TYPE, 'idempotency-key': 'walk-key-0001' },
      }),
    ),
  ),
  c('not_an_object', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, { json: [], key: 'walk-key-0001' })),
  c('not_an_object', 'mcp', async (w) => openTool(w, [])),
  c('unknown_field', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, open('Hello.', { extra: 1 }))),
  c('unknown_field', 'mcp', async (w) => openTool(w, { message: 'Hello.', extra: 1 })),
  c('required', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, { json: {}, key: 'walk-key-0001' })),
  c('required', 'mcp', async (w) => openTool(w, {})),
  c('wrong_type', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, open(5))),
  c('wrong_type', 'mcp', async (w) => openTool(w, { message: 5 })),
  ...(['blank_message', 'too_long', 'control_character', 'lone_surrogate'] as const).flatMap((reason) => {
    const text = {
      blank_message: '   ',
      too_long: 'x'.repeat(8001),
      control_character: 'a\u0007b',
      lone_surrogate: 'a\ud800b',
    }[reason];
    return [
      c(reason, 'rest', async (w) => rest(await w.start(), 'POST', OPEN, open(text))),
      c(reason, 'mcp', async (w) => openTool(w, { message: text })),
      c(reason, 'a2a', async (w) => a2aOpen(w, a2aText(text))),
    ];
  }),
  c('unknown_metadata_key', 'rest', async (w) =>
    rest(await w.start(), 'POST', OPEN, open('Hi.', { metadata: { role: 'x' } })),
  ),
  c('unknown_metadata_key', 'mcp', async (w) => openTool(w, { message: 'Hi.', metadata: { role: 'x' } })),
  c('key_missing', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, { json: { message: 'Hi.' } })),
  c('key_repeated', 'rest', async (w) =>
    restReason(
      await raw(w, OPEN, '{"message":"Hi."}', { ...JSON_TYPE, 'idempotency-key': 'walk-key-0001, walk-key-0002' }),
    ),
  ),
  c('key_length', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, { json: { message: 'Hi.' }, key: 'short' })),
  c('key_length', 'mcp', async (w) => openTool(w, { message: 'Hi.', idempotency_key: 'short' })),
  c('key_length', 'a2a', async (w) => a2aOpen(w, a2aText('Hi.', { messageId: 'short' }))),
  c('key_characters', 'rest', async (w) =>
    rest(await w.start(), 'POST', OPEN, { json: { message: 'Hi.' }, key: 'walk key 0001' }),
  ),
  c('key_characters', 'mcp', async (w) => openTool(w, { message: 'Hi.', idempotency_key: 'walk key 0001' })),
  c('key_characters', 'a2a', async (w) => a2aOpen(w, a2aText('Hi.', { messageId: 'walk key 0001' }))),
  c('bad_choices', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, open('Hi.', { choices: ['Only one'] }))),
  c('bad_choices', 'mcp', async (w) => openTool(w, { message: 'Hi.', choices: ['Only one'] })),
  c('bad_choices', 'a2a', async (w) => a2aOpen(w, a2aAsking({ choices: ['Only one'] }))),
  c('bad_reply_by', 'rest', async (w) => rest(await w.start(), 'POST', OPEN, open('Hi.', { reply_by: 'tomorrow' }))),
  c('bad_reply_by', 'mcp', async (w) => openTool(w, { message: 'Hi.', reply_by: 'tomorrow' })),
  c('bad_reply_by', 'a2a', async (w) => a2aOpen(w, a2aAsking({ reply_by: 'tomorrow' }))),
  c('integer_out_of_range', 'rest', async (w) => rest(await w.start(), 'GET', '/api/v1/directory?limit=0')),
  c('integer_out_of_range', 'mcp', async (w) => mcpTool(await w.start(), 'search_directory', { limit: 0 })),
  c('query_too_long', 'rest', async (w) => rest(await w.start(), 'GET', `/api/v1/directory?q=${'q'.repeat(121)}`)),
  c('query_too_long', 'mcp', async (w) => mcpTool(await w.start(), 'search_directory', { q: 'q'.repeat(121) })),
  c('bad_kind', 'mcp', async (w) => mcpTool(await w.start(), 'search_directory', { kind: 'robot' })),
  c('no_listing', 'rest', async (w) => rest(await w.start(), 'GET', '/api/v1/directory/no-such-listing')),
  c('no_listing', 'mcp', async (w) => mcpTool(await w.start(), 'get_listing', { slug: 'no-such-listing' })),
  c('invalid_request', 'mcp', async (w) => mcpReason(await raw(w, '/mcp', '[]', MCP_HEADERS))),
  c('invalid_request', 'a2a', async (w) => a2aReason(await raw(w, '/a2a', '[]', A2A_HEADERS))),
  c('no_method', 'mcp', async (w) => mcpReason(await mcp.rpc(await w.start(), mcp.call('no/such')))),
  c('no_method', 'a2a', async (w) => a2aCall(await w.start(), 'NoSuchMethod', {})),
  c('invalid_params', 'mcp', async (w) =>
    mcpReason(
      await mcp.rpc(await w.start(), mcp.call('tools/list'), { headers: { 'mcp-protocol-version': mcp.MODERN } }),
    ),
  ),
  c('invalid_params', 'a2a', async (w) => a2aCall(await w.start(), 'GetTask', { id: 'x', tenant: 'other' })),
  c('protocol_version', 'mcp', async (w) =>
    mcpReason(
      await mcp.rpc(await w.start(), mcp.call('tools/list'), { headers: { 'mcp-protocol-version': '1999-01-01' } }),
    ),
  ),
  c('protocol_version', 'a2a', async (w) => a2aCall(await w.start(), 'GetTask', { id: 'x' }, { 'a2a-version': '0.3' })),
  c('header_mismatch', 'mcp', async (w) =>
    mcpReason(
      await mcp.rpc(await w.start(), mcp.call('tools/list'), { modern: true, headers: { 'mcp-method': 'ping' } }),
    ),
  ),
  c('unknown_tool', 'mcp', async (w) => mcpTool(await w.start(), 'no_such_tool', {})),
  c('unsupported_part', 'a2a', async (w) =>
    a2aOpen(w, { ...a2aText('Hi.'), parts: [{ text: 'Hi.', mediaType: 'image/png' }] }),
  ),
  c('unsupported_operation', 'a2a', async (w) => a2aCall(await w.start(), 'GetExtendedAgentCard', {})),
  ...(['mcp', 'a2a'] as const).flatMap((door) => [
    c('forbidden_origin', door, async (w) => {
      const headers = { ...(door === 'mcp' ? MCP_HEADERS : A2A_HEADERS), origin: 'https://evil.example' };
      const answer = await raw(w, `/${door}`, JSON.stringify(mcp.call('tools/list')), headers);
      return door === 'mcp' ? mcpReason(answer) : a2aReason(answer);
    }),
    c('forbidden_host', door, async (w) => {
      const headers = { ...(door === 'mcp' ? MCP_HEADERS : A2A_HEADERS), host: 'evil.example' };
      const answer = await withHost((await w.start()).url, `/${door}`, JSON.stringify(mcp.call('tools/list')), headers);
      return door === 'mcp' ? mcpReason(answer) : a2aReason(answer);
    }),
  ]),
];

// Verified agents on the MCP and A2A doors: the same signatures judged the same way, the identity
// shown as each door shows things, and each refusal answered in the door's own form.
// Covers: src/runtime/verified-agents.ts and src/identity/ as src/doors/mcp/ and src/doors/a2a/ answer them,
// src/http/origins.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestService } from '../helpers.ts';
import * as a2a from '../doors/a2a/calls.ts';
import * as mcp from '../doors/mcp/calls.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, stored, type Signing } from './agents.ts';

const KEY = agentKey();
const OTHER_KEY = agentKey();

/** A tool call on /mcp, signed as `signing` says; the tool's result as JSON. */
async function signedTool(service: TestService, name: string, args: unknown, signing: Signing) {
  const headers = await signedHeaders(service, 'POST', '/mcp', signing);
  return mcp.rpc(service, mcp.call('tools/call', { name, arguments: args }), { headers });
}

/** An A2A JSON-RPC call, signed as `signing` says. */
async function signedA2a(service: TestService, method: string, params: unknown, signing: Signing, token?: string) {
  const headers = await signedHeaders(service, 'POST', '/a2a', signing);
  return a2a.rpc(service, method, params, { ...headers, ...(token ? a2a.bearer(token) : {}) });
}

test('MCP: a signed open_conversation is verified, and the conversation and its messages say so', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: directory.origin };
  const opened = await signedTool(service, 'open_conversation', { message: 'Hello over MCP.' }, signing);
  const creation = opened.body.result.structuredContent;
  const credentials = { conversation_id: creation.id, access_token: creation.access_token };
  const conversation = await mcp.tool(service, 'get_conversation', credentials);
  assert.equal(conversation.ok.verified_agent, directory.origin, opened.text);
  const read = await mcp.tool(service, 'read_messages', credentials);
  assert.equal(read.ok.items[0].verified_agent, directory.origin);
  const unsigned = await mcp.tool(service, 'send_message', { ...credentials, message: 'Unsigned, still mine.' });
  assert.equal(unsigned.ok.message.verified_agent, null);
});

test('MCP: a bad signature on a tool call is the tool error REST would answer; elsewhere an HTTP error', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const cases: Array<[Signing, number, string]> = [
    [{ key: KEY, agent: directory.origin, params: ['created', 'expires', 'tag'] }, 400, 'signature_malformed'],
    [{ key: OTHER_KEY, agent: directory.origin }, 401, 'signature_invalid'],
    [{ key: KEY, agent: 'https://private.test' }, 503, 'key_directory_unavailable'],
  ];
  for (const [signing, code, reason] of cases) {
    const answer = await signedTool(service, 'open_conversation', { message: 'Hello.' }, signing);
    assert.equal(answer.status, 200, reason);
    assert.equal(answer.body.result.isError, true, reason);
    const error = JSON.parse(answer.body.result.content[0].text).error;
    assert.deepEqual([error.code, error.reason], [code, reason]);
    if (code === 503) assert.ok(error.retry_after_seconds > 0, 'the tool error says when to try again');
  }
  const unknownTool = await signedTool(service, 'no_such_tool', {}, { key: OTHER_KEY, agent: directory.origin });
  assert.equal(JSON.parse(unknownTool.body.result.content[0].text).error.reason, 'signature_invalid', 'judged first');
  const headers = await signedHeaders(service, 'POST', '/mcp', { key: OTHER_KEY, agent: directory.origin });
  const listed = await mcp.rpc(service, mcp.call('tools/list'), { headers });
  assert.equal(listed.status, 401, 'a request that is not a tool call has no tool error to carry it');
  assert.deepEqual([listed.body.id, listed.body.error.code], [1, 401], 'a JSON-RPC error, echoing the id');
  assert.equal(listed.body.error.data.reason, 'signature_invalid');
  assert.deepEqual(stored(service), { conversations: 0, messages: 0 });
});

test('A2A: a signed SendMessage is verified; the task and its messages carry verifiedAgent', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: directory.origin };
  const opened = await signedA2a(service, 'SendMessage', a2a.message('Hello over A2A.'), signing);
  const task = opened.body.result.task;
  assert.equal(task.metadata.verifiedAgent, directory.origin, opened.text);
  assert.equal(task.history[0].metadata.verifiedAgent, directory.origin);
  const token = task.metadata.accessToken as string;
  const unsigned = await a2a.rpc(service, 'SendMessage', a2a.message('Unsigned.'), a2a.bearer(token));
  assert.ok(unsigned.body.result, unsigned.text);
  const read = await a2a.rpc(service, 'GetTask', { id: task.id }, a2a.bearer(token));
  const history = read.body.result.history as Array<{ metadata: { verifiedAgent: unknown } }>;
  const signers = history.map((m) => m.metadata.verifiedAgent);
  assert.deepEqual(signers, [directory.origin, null]);
});

test('A2A: each signature refusal is an A2A error with its status, reason and retry', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const cases: Array<[Signing, number, string]> = [
    [{ key: KEY, agent: directory.origin, params: ['created', 'expires', 'tag'] }, 400, 'SIGNATURE_MALFORMED'],
    [{ key: KEY, agent: directory.origin, now: Date.now() - 3_600_000 }, 401, 'SIGNATURE_INVALID'],
    [{ key: KEY, agent: 'https://private.test' }, 503, 'KEY_DIRECTORY_UNAVAILABLE'],
  ];
  for (const [signing, status, reason] of cases) {
    const answer = await signedA2a(service, 'SendMessage', a2a.message('Hello.'), signing);
    assert.equal(answer.status, status, answer.text);
    assert.equal(answer.body.error.data[0].reason, reason);
    if (status === 503) assert.ok(Number(answer.headers.get('retry-after')) > 0);
  }
  assert.deepEqual(stored(service), { conversations: 0, messages: 0 });
});

test('a foreign Origin is refused before the signature is judged: nothing fetched', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const signing = { key: KEY, agent: directory.origin };
  for (const path of ['/mcp', '/a2a']) {
    const headers = { ...(await signedHeaders(service, 'POST', path, signing)), origin: 'https://evil.example' };
    const answer =
      path === '/mcp'
        ? await mcp.rpc(service, mcp.call('tools/list'), { headers })
        : await a2a.rpc(service, 'SendMessage', a2a.message('Hello.'), headers);
    assert.equal(answer.status, 403, path);
  }
  assert.deepEqual(directory.fetched, []);
});

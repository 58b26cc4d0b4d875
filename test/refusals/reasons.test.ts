// Every refusal names its rule with a stable reason from the one catalogue: REST and MCP error
// bodies carry it beside code and message, and the OpenAPI document lists every one.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CATALOGUE } from '../../src/refusals/refusal.ts';
import { clientReasons } from '../../src/refusals/refusal.ts';
import { newKey, openConversation, request, ROOT, startTestService } from '../helpers.ts';

test('every reason is snake_case and named once, by its catalogue entry', () => {
  const reasons = Object.keys(CATALOGUE);
  for (const reason of reasons) assert.match(reason, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, reason);
  assert.equal(new Set(reasons).size, reasons.length);
  for (const expected of ['daily_maximum', 'conversation_share', 'address_share', 'poll_too_soon', 'url_refused']) {
    assert.ok(reasons.includes(expected), expected);
  }
});

test('REST and MCP refusals carry the same reason beside the code and the message', async (t) => {
  const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '3' } });
  const opened = await openConversation(service.url);
  const tool = async (name: string, args: object) => {
    const response = await request(service.url, 'POST', '/mcp', {
      json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.equal(response.body.result.isError, true, `${name} is refused`);
    return JSON.parse(response.body.result.content[0].text).error;
  };
  const credential = { conversation_id: opened.id, access_token: opened.token };

  const updates = `/api/v1/conversations/${opened.id}/updates`;
  const first = await request(service.url, 'GET', updates, { token: opened.token });
  assert.equal(first.status, 200);
  const rest = await request(service.url, 'GET', updates, { token: opened.token });
  assert.deepEqual(Object.keys(rest.body.error), ['code', 'reason', 'message']);
  assert.equal(rest.body.error.reason, 'poll_too_soon');
  const mcp = await tool('check_updates', credential);
  assert.equal(mcp.reason, 'poll_too_soon');
  assert.equal(mcp.code, 429);

  const unknown = await request(service.url, 'GET', `/api/v1/conversations/${opened.id}`, {
    token: 'f'.repeat(64),
  });
  assert.equal(unknown.body.error.reason, 'unknown_credential');
  assert.equal(
    (await tool('get_conversation', { ...credential, access_token: 'f'.repeat(64) })).reason,
    'unknown_credential',
  );

  for (let i = 0; i < 2; i++) {
    const stored = await request(service.url, 'POST', `/api/v1/conversations/${opened.id}/messages`, {
      token: opened.token,
      key: newKey(),
      json: { message: `message ${i}` },
    });
    assert.equal(stored.status, 201);
  }
  const full = await request(service.url, 'POST', `/api/v1/conversations/${opened.id}/messages`, {
    token: opened.token,
    key: newKey(),
    json: { message: 'one too many' },
  });
  assert.equal(full.body.error.reason, 'daily_maximum');
  assert.equal((await tool('send_message', { ...credential, message: 'again' })).reason, 'daily_maximum');
  assert.equal((await request(service.url, 'GET', '/nowhere')).body.error.reason, 'no_route');
});

test('the OpenAPI document lists every reason a client can be given, each under its status', async (t) => {
  const service = await startTestService(t);
  const document = (await request(service.url, 'GET', '/api/v1/openapi.json')).body;
  const listed = document.components.schemas.Error.properties.error.properties.reason.enum as string[];
  assert.deepEqual(
    [...listed].sort(),
    clientReasons()
      .map(({ reason }) => reason)
      .sort(),
  );
  const described = JSON.stringify(document);
  for (const { reason } of clientReasons()) assert.ok(described.includes(`\`${reason}\`:`), `${reason} is described`);
  const perStatus = JSON.stringify(document.paths['/api/v1/conversations/{id}/messages'].post.responses['429']);
  for (const reason of ['daily_maximum', 'conversation_share', 'address_share']) assert.ok(perStatus.includes(reason));
  assert.ok(!listed.includes('already_closed'), "the owner script's own refusals are not a client's");
});

test('docs/api.md lists every reason a client can be given, with its status', () => {
  const api = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  for (const { reason } of clientReasons()) {
    const status = CATALOGUE[reason].status;
    assert.ok(api.includes(`| ${status} | \`${reason}\` |`), `${reason} (${status}) is in the table of refusals`);
  }
});

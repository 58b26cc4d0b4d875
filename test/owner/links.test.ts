// An agent that lost its credential is told to open a new conversation naming the old id, and
// the owner's `show` links the two.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openConversation, request, runOwner, startTestService } from '../helpers.ts';

test('agents are told to keep the credential and what to do when it is lost', async (t) => {
  const service = await startTestService(t);
  const llms = (await request(service.url, 'GET', '/llms.txt')).text;
  const contact = JSON.stringify((await request(service.url, 'GET', '/api/v1/contact-info')).body);
  const tools = await request(service.url, 'POST', '/mcp', {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  const openTool = JSON.stringify(
    tools.body.result.tools.find((tool: { name: string }) => tool.name === 'open_conversation'),
  );
  for (const [where, text] of [
    ['llms.txt', llms],
    ['contact-info', contact],
    ['open_conversation', openTool],
  ]) {
    assert.match(text as string, /outlives (your|this) session/, `${where} says where to keep it`);
    assert.match(text as string, /lose them, open a new conversation and name the old id/, `${where} says what then`);
  }
});

test('show links a conversation and the one that names its id, both ways', async (t) => {
  const service = await startTestService(t);
  const lost = await openConversation(service.url, { message: 'a first question' });
  const unrelated = await openConversation(service.url, { message: 'nothing to do with it' });
  const again = await openConversation(service.url, {
    message:
      `I lost my credential for ${lost.id.toUpperCase()}; this continues it. ` +
      `(Not 00000000-0000-4000-8000-000000000000.)`,
  });
  const newer = await runOwner(service.dbPath, ['show', again.id]);
  assert.equal(newer.code, 0, newer.stderr);
  assert.match(newer.stdout, new RegExp(`^ {2}names {7}conversation ${lost.id}: the agent wrote its id$`, 'm'));
  assert.equal(newer.stdout.match(/^ {2}names /gm)?.length, 1, 'only ids of conversations that exist');
  const older = await runOwner(service.dbPath, ['show', lost.id]);
  assert.match(older.stdout, new RegExp(`^ {2}named by {4}conversation ${again.id}: its agent wrote this id$`, 'm'));
  const other = await runOwner(service.dbPath, ['show', unrelated.id]);
  assert.doesNotMatch(other.stdout, /names|named by/);
});

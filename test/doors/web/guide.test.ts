// What an agent reads before its first call: llms.txt and contact-info, with the calls, limits and doors.
// Covers: src/doors/web/llms-txt.ts, src/doors/rest/public.ts, src/guide/.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request, startTestService } from '../../helpers.ts';

test('llms.txt tells an agent the exact calls and limits', async (t) => {
  const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '321' } });
  const text = await request(service.url, 'GET', '/llms.txt');
  assert.equal(text.status, 200);
  assert.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.match(text.text, /^# Agent contact service\n\n> /);
  assert.ok(text.text.includes(`POST ${service.url}/api/v1/conversations with headers`));
  assert.ok(text.text.includes(`GET ${service.url}/api/v1/conversations/{id}/updates?after=`));
  assert.match(text.text, /Shared daily maximum: 321 messages per UTC day/);
  assert.match(text.text, /at most once every 60 seconds/);
  assert.ok(text.text.includes(`[OpenAPI 3.1](${service.url}/api/v1/openapi.json)`));
  const contact = await request(service.url, 'GET', '/api/v1/contact-info');
  assert.deepEqual(contact.body.documentation, {
    openapi: `${service.url}/api/v1/openapi.json`,
    llms_txt: `${service.url}/llms.txt`,
    web: `${service.url}/`,
  });
});

test('contact-info and llms.txt: categories and counts, the MCP endpoint, no reply time unless set', async (t) => {
  const service = await startTestService(t);
  const { body } = await request(service.url, 'GET', '/api/v1/contact-info');
  assert.deepEqual(
    body.categories.find((c: { name: string }) => c.name === 'weather'),
    { name: 'weather', count: 1 },
  );
  assert.equal(
    body.categories.reduce((sum: number, c: { count: number }) => sum + c.count, 0),
    12,
  );
  assert.equal(body.mcp.endpoint, `${service.url}/mcp`);
  assert.equal(body.mcp.claude_code, `claude mcp add --transport http agent-contact ${service.url}/mcp`);
  assert.deepEqual(JSON.parse(body.mcp.json), {
    mcpServers: { 'agent-contact': { type: 'http', url: `${service.url}/mcp` } },
  });
  assert.match(body.replies, /There is no promised reply time/);
  const text = (await request(service.url, 'GET', '/llms.txt')).text;
  assert.match(text, /Categories: .*weather \(1\)/);
  assert.ok(text.includes(`tools at ${service.url}/mcp`));
  const promised = await startTestService(t, { env: { REPLY_TIME: 'usually within a day' } });
  assert.match(
    (await request(promised.url, 'GET', '/api/v1/contact-info')).body.replies,
    /Replies come usually within a day\./,
  );
});

test('contact-info and llms.txt tell an agent how to sign: the authority to cover, and the refusals', async (t) => {
  const service = await startTestService(t, { env: { PUBLIC_BASE_URL: 'https://contact.example:8443' } });
  const { body } = await request(service.url, 'GET', '/api/v1/contact-info');
  const signing = (body.protocol as string[]).find((step) => step.startsWith('6. '));
  assert.match(String(signing), /Web Bot Auth .* covering "@authority" \(contact\.example:8443\) and "signature-/);
  assert.match(String(signing), /401 signature_invalid/);
  const text = (await request(service.url, 'GET', '/llms.txt')).text;
  assert.ok(text.includes(signing!), 'llms.txt gives the same step');
});

// The MCP door judged by the official tools, unchanged: both TypeScript clients run a whole
// conversation (the owner answering through the owner script), and the official
// conformance suite runs the scenarios that apply to any server.
// Covers: src/doors/mcp/, src/rules/conversations.ts, src/rules/closing.ts, src/rules/push.ts.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as HandshakeClient } from '@modelcontextprotocol/sdk/client/index.js';
// prettier-ignore
import {
  StreamableHTTPClientTransport as HandshakeTransport,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  fakeClock,
  newKey,
  ROOT,
  runNode,
  runOwner,
  startTestService,
  tempDir,
  type TestService,
} from '../../helpers.ts';

type CallTool = (name: string, args: Record<string, unknown>) => Promise<unknown>;

/** A successful tool result's structured content, after checking its text block says the same. */
function structured(result: unknown): any {
  const { isError, content, structuredContent } = result as {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent: unknown;
  };
  assert.notEqual(isError, true, JSON.stringify(content));
  assert.deepEqual(JSON.parse(content[0]?.text as string), structuredContent, 'the text block is the same JSON');
  return structuredContent;
}

async function wholeConversation(
  service: TestService,
  clock: ReturnType<typeof fakeClock>,
  call: CallTool,
): Promise<void> {
  const found = structured(await call('search_directory', { q: 'weather' }));
  assert.deepEqual(Object.keys(found.items[0]), ['slug', 'kind', 'name', 'category', 'description', 'url', 'status']);
  const listing = structured(await call('get_listing', { slug: found.items[0].slug }));
  assert.equal(listing.name, found.items[0].name);

  const opened = structured(
    await call('open_conversation', {
      message: 'Hello from an MCP client.',
      metadata: { agent_name: 'mcp-agent' },
      idempotency_key: newKey(),
    }),
  );
  assert.match(opened.access_token, /^[0-9a-f]{64}$/);
  const credential = { conversation_id: opened.id, access_token: opened.access_token };
  const key = newKey();
  const sent = structured(await call('send_message', { ...credential, message: 'A follow-up.', idempotency_key: key }));
  assert.deepEqual([sent.duplicate, sent.message.seq, sent.message.author], [false, 2, 'client']);
  const retried = structured(
    await call('send_message', { ...credential, message: 'A follow-up.', idempotency_key: key }),
  );
  assert.deepEqual(retried, { message: sent.message, duplicate: true });
  assert.equal(structured(await call('check_updates', { ...credential, after: 2 })).new_reply, false);

  const replied = await runOwner(service.dbPath, ['reply', opened.id, 'Hello from the owner.']);
  assert.equal(replied.code, 0, replied.stderr);
  clock.advance(60_000); // poll_after_seconds later
  const updates = structured(await call('check_updates', { ...credential, after: 2 }));
  assert.deepEqual([updates.new_reply, updates.latest_owner_seq, updates.status], [true, 3, 'answered']);
  const read = structured(await call('read_messages', { ...credential, after: 2 }));
  assert.deepEqual(
    read.items.map((m: { author: string; message: string }) => [m.author, m.message]),
    [['owner', 'Hello from the owner.']],
  );
  assert.equal(structured(await call('get_conversation', credential)).message_count, 3);
}

test('the 2025-11-25 client (@modelcontextprotocol/sdk 1.x) runs a whole conversation through the tools', async (t) => {
  const clock = fakeClock(new Date().toISOString());
  const service = await startTestService(t, { now: clock.now });
  const client = new HandshakeClient({ name: 'handshake-client-test', version: '1.0.0' });
  await client.connect(new HandshakeTransport(new URL(`${service.url}/mcp`)));
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, 'agent-contact-service');
  assert.match(client.getInstructions() ?? '', /open_conversation once/);
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((tool) => tool.name),
    [
      'search_directory',
      'get_listing',
      'open_conversation',
      'send_message',
      'check_updates',
      'read_messages',
      'get_conversation',
      'close_conversation',
      'set_webhook',
      'get_webhook',
      'delete_webhook',
    ],
  );
  await wholeConversation(service, clock, (name, args) => client.callTool({ name, arguments: args }));
});

test('pinned 2026-07-28 client (@modelcontextprotocol/client 2.x) runs a whole conversation via tools', async (t) => {
  const clock = fakeClock(new Date().toISOString());
  const service = await startTestService(t, { now: clock.now });
  const client = new ModernClient(
    { name: 'modern-client-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(new URL(`${service.url}/mcp`)));
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, 'agent-contact-service');
  assert.equal((await client.listTools()).tools.length, 11);
  await wholeConversation(service, clock, (name, args) => client.callTool({ name, arguments: args }));
});

test(
  'the official conformance suite passes the scenarios that apply to any server',
  { timeout: 120_000 },
  async (t) => {
    const service = await startTestService(t);
    const cli = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
    const workDir = tempDir(t); // the suite may write its results where it runs
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
      const run = await runNode([cli, 'server', '--url', `${service.url}/mcp`, '--scenario', scenario], {
        cwd: workDir,
        timeoutMs: 60_000,
      });
      assert.equal(run.code, 0, `${scenario}:\n${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /0 failed/, scenario);
    }
  },
);

test('server.json describes the MCP endpoint for the MCP Registry, with the URL left for the operator', async () => {
  const server = JSON.parse(readFileSync(path.join(ROOT, 'server.json'), 'utf8'));
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(server.$schema, 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
  assert.match(server.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'reverse-DNS namespace, one slash');
  assert.ok(
    server.description.length >= 1 && server.description.length <= 100,
    'the schema caps a description at 100 characters',
  );
  assert.equal(server.version, pkg.version);
  assert.deepEqual(
    server.remotes.map((remote: { type: string }) => remote.type),
    ['streamable-http'],
  );
  assert.match(server.remotes[0].url, /^https:\/\/.+\/mcp$/, 'the endpoint this service serves');
  assert.match(
    readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8'),
    /`server\.json`[^]*replace its `name`[^]*and the `remotes` URL/,
    'docs/mcp.md tells the operator what to fill in',
  );
});

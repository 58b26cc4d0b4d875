// What survives: WAL with synchronous=FULL, restarts, keys kept in the database, the credential never stored.
// Covers: src/store/store.ts (WAL, synchronous=FULL), src/rules/conversations.ts (keys kept), src/rules/access.ts
// (only the credential's SHA-256 stored), src/service/service.ts (the shipped listings).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Store } from '../../src/store/store.ts';
import {
  newKey,
  request,
  runOwner,
  startServerProcess,
  startTestService,
  tempDir,
  type ApiResponse,
} from '../helpers.ts';

test('the database runs in WAL mode with synchronous=FULL', async (t) => {
  const service = await startTestService(t);
  assert.equal(service.store.db.prepare('PRAGMA journal_mode').get()?.journal_mode, 'wal');
  assert.equal(service.store.db.prepare('PRAGMA synchronous').get()?.synchronous, 2);
});

test('conversations and idempotency records survive a restart', async (t) => {
  const dir = tempDir(t);
  const first = await startTestService(t, { dir });
  const creationKey = newKey();
  const followKey = newKey();
  const opened = await request(first.url, 'POST', '/api/v1/conversations', {
    key: creationKey,
    json: { message: 'one' },
  });
  const { id, access_token: token } = opened.body;
  const followed = await request(first.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: followKey,
    json: { message: 'two' },
  });
  await first.close();

  const second = await startTestService(t, { dir });
  const replayOpening = await request(second.url, 'POST', '/api/v1/conversations', {
    key: creationKey,
    json: { message: 'one' },
  });
  assert.equal(replayOpening.status, 409);
  const replayFollow = await request(second.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: followKey,
    json: { message: 'two' },
  });
  assert.equal(replayFollow.status, 200);
  assert.deepEqual(replayFollow.body, { message: followed.body.message, duplicate: true });
  const history = await request(second.url, 'GET', `/api/v1/conversations/${id}/messages`, { token });
  assert.deepEqual(
    history.body.items.map((m: { message: string }) => m.message),
    ['one', 'two'],
  );
});

test("a restart loads the shipped listings only into an empty table, keeping the owner's changes", async (t) => {
  const dir = tempDir(t);
  const first = await startTestService(t, { dir });
  const owner = new Store(first.dbPath);
  owner.listings.remove('alpha-api');
  owner.close();
  await first.close();
  const second = await startTestService(t, { dir });
  assert.equal((await request(second.url, 'GET', '/api/v1/directory/alpha-api')).status, 404);
  assert.equal((await request(second.url, 'GET', '/api/v1/directory')).body.total, 11);
});

/** Opens two conversations, then uses the first one's credential on every REST endpoint, rightly and wrongly. */
async function restTraffic(url: string) {
  const opened = await request(url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: 'secret plans' },
  });
  const other = await request(url, 'POST', '/api/v1/conversations', { key: newKey(), json: { message: 'other' } });
  const { id, access_token: token } = opened.body;
  const base = `/api/v1/conversations/${id}`;
  const responses: ApiResponse[] = [
    await request(url, 'GET', base, { token }),
    await request(url, 'GET', `${base}/messages`, { token }),
    await request(url, 'POST', `${base}/messages`, { token, key: newKey(), json: { message: 'more' } }),
    await request(url, 'GET', `${base}/updates`, { token }),
    await request(url, 'GET', `${base}/messages?access_token=${token}`),
    await request(url, 'GET', `/api/v1/conversations/${other.body.id}`, { token }),
    await request(url, 'GET', base, { headers: { authorization: `Basic ${token}` } }),
    await request(url, 'GET', `${base}/nowhere/${token}`, { token }),
    await request(url, 'POST', `${base}/messages`, { token, key: newKey(), json: { message: token.repeat(200) } }),
    await request(url, 'POST', `${base}/messages`, { token, key: newKey(), json: { message: token.repeat(300) } }),
  ];
  assert.deepEqual(
    responses.map((r) => r.status),
    [200, 200, 201, 200, 400, 403, 401, 404, 400, 413],
  );
  return { id, token, otherId: other.body.id as string, responses };
}

/** The same through the MCP door, where the credential travels as an argument; opens one more conversation. */
async function mcpTraffic(url: string, id: string, token: string, otherId: string) {
  const mcp = (name: string, args: object) =>
    request(url, 'POST', '/mcp', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
  const viaMcp = await mcp('open_conversation', { message: 'secret plans through MCP' });
  const mcpOpened = JSON.parse(viaMcp.body.result.content[0].text) as { id: string; access_token: string };
  assert.match(mcpOpened.access_token, /^[0-9a-f]{64}$/);
  const mine = { conversation_id: id, access_token: token };
  const mcpResults = [
    await mcp('get_conversation', mine),
    await mcp('read_messages', mine),
    await mcp('send_message', { ...mine, message: 'more through MCP' }),
    await mcp('check_updates', mine),
    await mcp('read_messages', { ...mine, conversation_id: otherId }),
    await mcp('read_messages', { ...mine, access_token: token.toUpperCase() }),
    await mcp('send_message', { ...mine, message: token.repeat(200) }),
    await mcp('send_message', { ...mine, message: 'x', [token]: token }),
    await mcp(token, mine),
    await mcp('get_conversation', { conversation_id: mcpOpened.id, access_token: mcpOpened.access_token }),
  ];
  const codes = mcpResults.map((r) =>
    r.body.error
      ? r.body.error.code
      : r.body.result.isError
        ? JSON.parse(r.body.result.content[0].text).error.code
        : 'ok',
  );
  assert.deepEqual(codes, ['ok', 'ok', 'ok', 'ok', 403, 401, 400, 400, -32602, 'ok']);
  return { mcpToken: mcpOpened.access_token, mcpResults };
}

/** The owner's commands that show a conversation; none prints its credential. */
async function assertOwnerScriptNeverPrints(dbPath: string, id: string, token: string) {
  const ownerOutputs = await Promise.all(
    [
      ['inbox', '--all'],
      ['inbox', '--json'],
      ['show', id],
      ['show', id, '--json'],
      ['export'],
      ['stats', '--json'],
      ['reply', id, 'owner answer'],
    ].map((args) => runOwner(dbPath, args)),
  );
  for (const result of ownerOutputs) {
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!(result.stdout + result.stderr).includes(token), 'the owner script never prints the credential');
  }
  assert.ok(ownerOutputs[4]?.stdout.includes('secret plans'), 'the export holds the messages');
}

/** The server printed its start line and one log line per request, of known fields: no credential, no message. */
function assertServerOutputHoldsNoSecret(output: string, requests: number, secrets: string[]) {
  const [startLine, ...logLines] = output
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('SIGTERM'));
  assert.match(startLine as string, /^Listening on /);
  for (const line of logLines) {
    const entry = JSON.parse(line);
    const fields = ['time', 'request_id', 'method', 'route', 'status', 'duration_ms', 'client'];
    // An MCP call also names its tool, and a refusal its status and reason: never an argument.
    if (entry.route === '/mcp' && 'tool' in entry) fields.push('tool');
    if ('tool_refusal' in entry) fields.push('tool_refusal');
    if ('refusal' in entry) fields.push('refusal');
    assert.deepEqual(Object.keys(entry), fields, line);
  }
  assert.equal(logLines.length, requests, 'one JSON line per request');
  assert.ok(output.includes('"status":201'), 'the request log was written');
  assert.ok(
    secrets.every((secret) => !output.includes(secret)),
    'no credential is in the server output',
  );
  assert.ok(!output.includes('secret plans'), 'message text is not logged');
}

test('the credential is only in the creation response: not server/owner output, other responses, the DB', async (t) => {
  const dbPath = path.join(tempDir(t), 'service.db');
  const server = await startServerProcess(t, { DB_PATH: dbPath, POLL_INTERVAL_SECONDS: '0' });
  const { id, token, otherId, responses } = await restTraffic(server.url);
  const { mcpToken, mcpResults } = await mcpTraffic(server.url, id, token, otherId);
  responses.push(...mcpResults);
  for (const response of responses) {
    for (const secret of [token, mcpToken]) {
      assert.ok(!response.text.includes(secret), response.text.slice(0, 200));
      for (const [name, value] of response.headers) assert.ok(!value.includes(secret), name);
    }
  }
  await assertOwnerScriptNeverPrints(dbPath, id, token);

  assert.equal(await server.stop('SIGTERM'), 0);
  // Besides these responses, three openings were requested: two through REST, one through MCP.
  assertServerOutputHoldsNoSecret(server.output(), responses.length + 3, [token, mcpToken]);

  const files = [dbPath, `${dbPath}-wal`].filter(existsSync).map((file) => readFileSync(file));
  const everything = Buffer.concat(files);
  assert.equal(everything.indexOf(token), -1, 'the hex credential is not stored');
  assert.equal(everything.indexOf(mcpToken), -1, 'nor the one issued through MCP');
  assert.equal(everything.indexOf(Buffer.from(token, 'hex')), -1, 'nor its raw bytes');
  const digest = createHash('sha256').update(token).digest();
  assert.notEqual(everything.indexOf(digest), -1, 'its SHA-256 is what is stored');
});

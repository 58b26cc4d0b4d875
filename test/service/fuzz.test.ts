// Seeded fuzzing over every route: no 5xx, every refusal carries the error body with a reason
// of the catalogue (the A2A door its own body), no prototype is polluted, and the server still
// answers. A failure names its seed and case: replay it with FUZZ_SEED=<seed> npm test.
// The cases are made in fuzz-cases.ts.

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { CATALOGUE } from '../../src/refusals/refusal.ts';
import { FuzzCases } from './fuzz-cases.ts';
import { openConversation, startTestService, type TestService } from '../helpers.ts';
import { seededRandom } from '../random.ts';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const FETCH_CASES = 2500;
const RAW_CASES = 400;
const CONCURRENCY = 8;
const REASONS = new Set(Object.keys(CATALOGUE));

/** What every answer is held to; failures are collected, statuses counted. */
class Judge {
  readonly failures: string[] = [];
  readonly statuses = new Map<number, number>();

  check(label: string, status: number, text: string, method: string, contentType: string | null): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500) this.failures.push(`${label} → ${status} ${text.slice(0, 200)}`);
    if (status >= 400 && method !== 'HEAD' && contentType?.startsWith('text/html')) {
      // The web pages answer people with an HTML error page of the same status.
      if (!text.includes(`<title>Error ${status}</title>`))
        this.failures.push(`${label} → ${status} without the error page`);
    } else if (status >= 400 && method !== 'HEAD') {
      if (!isErrorBody(text, status))
        this.failures.push(`${label} → ${status} without the error body: ${text.slice(0, 200)}`);
    } else if (status === 200 && label.includes('/mcp') && method === 'POST') {
      const body = JSON.parse(text);
      if (body.jsonrpc !== '2.0' || !('result' in body || 'error' in body))
        this.failures.push(`${label} → 200 without a JSON-RPC response: ${text.slice(0, 200)}`);
      if (body.result?.isError === true && !REASONS.has(JSON.parse(body.result.content[0].text).error.reason))
        this.failures.push(`${label} → a tool refusal without a reason of the catalogue: ${text.slice(0, 200)}`);
    }
  }

  summary(): string {
    const counts = [...this.statuses].sort(([a], [b]) => a - b);
    return `statuses: ${counts.map(([status, count]) => `${status}×${count}`).join(' ')}`;
  }
}

/**
 * The REST error body with the answer's status and a reason of the catalogue, the A2A door's
 * HTTP+JSON error body (its own reasons in details), or a JSON-RPC error (/mcp's and /a2a's).
 */
function isErrorBody(text: string, status: number): boolean {
  try {
    const body = JSON.parse(text);
    const jsonRpcError =
      body.jsonrpc === '2.0' && Number.isInteger(body.error?.code) && typeof body.error.message === 'string';
    const members = Object.keys(body).join() === 'error' && body.error.code === status ? Object.keys(body.error) : [];
    const restBody = members.join() === 'code,reason,message' && REASONS.has(body.error.reason);
    const a2aBody = members.join() === 'code,status,message,details';
    return jsonRpcError || restBody || a2aBody;
  } catch {
    return false;
  }
}

/** FETCH_CASES requests through fetch, CONCURRENCY at a time. */
async function fetchCases(service: TestService, cases: FuzzCases, judge: Judge): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < FETCH_CASES) {
      const index = next++;
      const r = cases.request();
      const url = service.url + r.path + r.query;
      const body = r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body;
      const label = `case ${index} (seed ${SEED}): ${r.method} ${url.slice(0, 120)}`;
      try {
        const response = await fetch(url, { method: r.method, headers: r.headers, body });
        judge.check(label, response.status, await response.text(), r.method, response.headers.get('content-type'));
      } catch (err) {
        judge.failures.push(`${label} → no answer: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** RAW_CASES requests written to a socket as bytes, one at a time. */
async function rawCases(service: TestService, cases: FuzzCases, judge: Judge): Promise<void> {
  const { hostname, port } = new URL(service.url);
  for (let index = 0; index < RAW_CASES; index++) {
    const { method, text } = cases.rawRequest();
    const label = `raw case ${index} (seed ${SEED}): ${JSON.stringify(text.slice(0, 120))}`;
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), hostname, () => socket.end(text));
      let received = '';
      socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
      socket.on('close', () => resolve(received));
      socket.on('error', () => resolve(received));
      socket.setTimeout(5000, () => socket.destroy());
    });
    const statusLine = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
    if (!statusLine) {
      judge.failures.push(`${label} → no HTTP answer: ${JSON.stringify(answer.slice(0, 100))}`);
      continue;
    }
    const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
    const body = Buffer.from(answer.slice(head.length + 4), 'latin1').toString('utf8');
    const contentType = /^content-type: (.*)$/im.exec(head)?.[1] ?? null;
    judge.check(label, Number(statusLine[1]), body, method.toUpperCase(), contentType);
  }
}

test(
  `thousands of hostile requests get no 5xx and always the error body (seed ${SEED})`,
  { timeout: 120_000 },
  async (t) => {
    const service = await startTestService(t, { env: { DAILY_MESSAGE_LIMIT: '0', POLL_INTERVAL_SECONDS: '0' } });
    const mine = await openConversation(service.url);
    const theirs = await openConversation(service.url);
    const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const cases = new FuzzCases(seededRandom(SEED), mine, theirs, service.url, SEED);
    const judge = new Judge();
    await fetchCases(service, cases, judge);
    await rawCases(service, cases, judge);

    t.diagnostic(judge.summary());
    const { failures } = judge;
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failing cases; replay with FUZZ_SEED=${SEED}`);
    assert.deepEqual(
      Object.getOwnPropertyNames(Object.prototype).sort(),
      prototypeBefore,
      `Object.prototype changed (seed ${SEED})`,
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined, `prototype polluted (seed ${SEED})`);
    assert.equal((await fetch(`${service.url}/api/v1/health`)).status, 200, 'the server still answers');
    assert.deepEqual(
      service.logs.filter((entry) => entry.level === 'error'),
      [],
      `no unexpected errors were logged (seed ${SEED})`,
    );
  },
);

test('deeply nested JSON in any field /mcp reads or echoes gets no 5xx and logs nothing as an error', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url);
  const deep = `${'['.repeat(40_000)}${']'.repeat(40_000)}`;
  const credential = `"conversation_id": "${id}", "access_token": "${token}"`;
  const call = (args: string) =>
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "send_message", "arguments": {${args}}}}`;
  const bodies = [
    `{"jsonrpc": ${deep}, "id": 1, "method": "ping"}`,
    `{"jsonrpc": "2.0", "id": ${deep}, "method": "ping"}`,
    `{"jsonrpc": "2.0", "id": 1, "method": ${deep}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": ${deep}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_listing", "arguments": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": ${deep}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/list", ` +
      `"params": {"_meta": {"io.modelcontextprotocol/protocolVersion": ${deep}}}}`,
    call(`${credential}, "message": ${deep}`),
    call(`${credential}, "message": "hi", "idempotency_key": ${deep}`),
    call(`"conversation_id": ${deep}, "access_token": "${token}", "message": "hi"`),
    call(`"conversation_id": "${id}", "access_token": ${deep}, "message": "hi"`),
    call(`${credential}, "message": "hi", ${JSON.stringify('x'.repeat(10))}: ${deep}`),
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", ` +
      `"params": {"name": "open_conversation", "arguments": {"message": "hi", "metadata": ${deep}}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", ` +
      `"params": {"name": "search_directory", "arguments": {"q": ${deep}, "kind": ${deep}}}}`,
    `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", ` +
      `"params": {"name": "check_updates", "arguments": {${credential}, "after": ${deep}, "wait": ${deep}}}}`,
  ];
  const modernHeaders = {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'send_message',
  };
  for (const [index, body] of bodies.entries()) {
    for (const headers of [{}, modernHeaders]) {
      const response = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body,
      });
      const text = await response.text();
      assert.ok(response.status < 500, `case ${index}: ${response.status} ${text.slice(0, 200)}`);
      assert.ok(!text.includes('[[[['), `case ${index}: the answer does not echo the nesting`);
    }
  }
  assert.deepEqual(
    service.logs.filter((entry) => entry.level === 'error'),
    [],
    'no unexpected error was logged',
  );
  assert.ok(!JSON.stringify(service.logs).includes('    at '), 'no stack trace in the log');
});

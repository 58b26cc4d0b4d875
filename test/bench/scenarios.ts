// The benchmark's scenarios: each request as wrk sends it, against a conversation opened for
// the run, with the figure it must stay above; and a sample of each answer, which the
// reference then sends as precomputed bytes.

import type { Server } from './servers.ts';
import type { Scenario } from './wrk.ts';

export async function sample(
  baseUrl: string,
  scenario: Scenario,
  key = `bench-sample-${Math.random().toString(36).slice(2)}`,
) {
  const headers: Record<string, string> = {
    ...scenario.headers,
    ...(scenario.uniqueKey ? { 'idempotency-key': key } : {}),
  };
  const sent = scenario.body?.replace('{{KEY}}', key);
  const response = await fetch(baseUrl + scenario.path, { method: scenario.method, headers, body: sent });
  const body = await response.text();
  if (response.status !== scenario.expectStatus)
    throw new Error(`${scenario.name}: expected ${scenario.expectStatus}, got ${response.status} ${body}`);
  const kept = [
    'content-type',
    'cache-control',
    'retry-after',
    'www-authenticate',
    'access-control-allow-origin',
    'x-request-id',
    'access-control-expose-headers',
    'x-content-type-options',
  ];
  return {
    status: response.status,
    headers: Object.fromEntries(
      kept.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)!]] : [])),
    ),
    body,
  };
}

/** Opens a conversation on a service and returns its id and credential. */
export async function openConversation(baseUrl: string) {
  const response = await fetch(`${baseUrl}/api/v1/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `bench-open-${Date.now()}-${Math.random()}` },
    body: JSON.stringify({ message: 'Benchmark conversation.', metadata: { agent_name: 'bench' } }),
  });
  const body = (await response.json()) as { id: string; access_token: string };
  return { id: body.id, token: body.access_token };
}

/** The search term whose matches are nearest to 10% of the listings. */
async function tenPercentQuery(baseUrl: string): Promise<string> {
  const total = ((await (await fetch(`${baseUrl}/api/v1/directory?limit=1`)).json()) as { total: number }).total;
  let best = { q: 'api', distance: Infinity };
  for (const q of [
    'api',
    'open',
    'weather',
    'research',
    'social',
    'data',
    'maps',
    'search',
    'science',
    'chat',
    'forum',
    'python',
  ]) {
    const found = ((await (await fetch(`${baseUrl}/api/v1/directory?q=${q}&limit=1`)).json()) as { total: number })
      .total;
    const distance = Math.abs(found / total - 0.1);
    if (distance < best.distance) best = { q, distance };
  }
  return best.q;
}

type Conversation = { id: string; token: string };
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const json = { 'Content-Type': 'application/json' };

/**
 * `capped`: a conversation of the limited service; opening one uses its one message of the day.
 * `signature`: the headers of a verified agent's requests (signed-agent.ts).
 */
export async function scenariosFor(
  main: Server,
  capped: Conversation,
  signature: Record<string, string>,
  signWrites: (count: number) => [string, string][],
): Promise<Scenario[]> {
  const conversation = await openConversation(main.url);
  const q = await tenPercentQuery(main.url);
  return [
    ...restScenarios(conversation, capped, q),
    ...signedScenarios(conversation, signature, signWrites),
    ...mcpScenarios(conversation, q),
    ...a2aScenarios(conversation),
  ];
}

function restScenarios(conversation: Conversation, capped: Conversation, q: string): Scenario[] {
  const main = { server: 'main', headers: {}, expectStatus: 200 } as const;
  return [
    { ...main, name: 'directory page (limit 30)', method: 'GET', path: '/api/v1/directory?limit=30', target: 0.11 },
    { ...main, name: `directory search (q=${q})`, method: 'GET', path: `/api/v1/directory?q=${q}`, target: 0.1 },
    { ...main, name: 'one listing', method: 'GET', path: '/api/v1/directory/open-meteo', target: 0.5 },
    {
      ...main,
      name: 'updates poll',
      method: 'GET',
      path: `/api/v1/conversations/${conversation.id}/updates?after=1`,
      headers: auth(conversation.token),
      target: 0.55,
    },
    {
      ...main,
      name: 'follow-up POST (sync FULL)',
      method: 'POST',
      path: `/api/v1/conversations/${conversation.id}/messages`,
      headers: { ...auth(conversation.token), ...json },
      body: '{"message":"A benchmark follow-up message."}',
      uniqueKey: true,
      expectStatus: 201,
      target: 0.14,
    },
    {
      ...main,
      name: 'refused: unknown credential (401)',
      method: 'GET',
      path: `/api/v1/conversations/${conversation.id}/updates`,
      headers: auth('f'.repeat(64)),
      expectStatus: 401,
      target: 0,
    },
    {
      name: 'refused: daily maximum (429)',
      method: 'POST',
      path: `/api/v1/conversations/${capped.id}/messages`,
      headers: { ...auth(capped.token), ...json },
      body: '{"message":"Over the daily maximum."}',
      uniqueKey: true,
      expectStatus: 429,
      server: 'limited',
      target: 0,
    },
  ];
}

/**
 * The poll and the follow-up signed by a verified agent whose key directory the service keeps: the
 * poll with one signature throughout, each follow-up with one of its own.
 */
function signedScenarios(
  conversation: Conversation,
  signature: Record<string, string>,
  signWrites: (count: number) => [string, string][],
): Scenario[] {
  return [
    {
      name: 'updates poll, signed',
      method: 'GET',
      path: `/api/v1/conversations/${conversation.id}/updates?after=1`,
      headers: { ...auth(conversation.token), ...signature },
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'updates poll',
      twinTarget: 0,
    },
    {
      name: 'follow-up POST, signed',
      method: 'POST',
      path: `/api/v1/conversations/${conversation.id}/messages`,
      headers: { ...auth(conversation.token), ...json, ...signature },
      body: '{"message":"A signed benchmark follow-up message."}',
      uniqueKey: true,
      signWrites,
      expectStatus: 201,
      server: 'main',
      target: 0,
      twin: 'follow-up POST',
      twinTarget: 0,
    },
  ];
}

// The MCP twins of the poll and the search; the query only tells the reference's canned answers apart.
function mcpScenarios(conversation: Conversation, q: string): Scenario[] {
  const credential = { conversation_id: conversation.id, access_token: conversation.token };
  return [
    {
      name: 'MCP tools/call check_updates',
      method: 'POST',
      path: '/mcp?scenario=check_updates',
      headers: json,
      body: toolCall('check_updates', { ...credential, after: 1 }),
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'updates poll',
    },
    {
      name: `MCP tools/call search_directory`,
      method: 'POST',
      path: '/mcp?scenario=search_directory',
      headers: json,
      body: toolCall('search_directory', { q, limit: 30 }),
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'directory search',
    },
  ];
}

// The A2A twins of the poll (over both bindings) and of the follow-up.
function a2aScenarios(conversation: Conversation): Scenario[] {
  const headers = { ...auth(conversation.token), 'A2A-Version': '1.0' };
  return [
    {
      name: 'A2A GetTask (JSON-RPC)',
      method: 'POST',
      path: '/a2a?scenario=get_task',
      headers: { ...json, ...headers },
      body: a2aCall('GetTask', { id: conversation.id, historyLength: 0 }),
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'updates poll',
    },
    {
      name: 'A2A GetTask (HTTP+JSON)',
      method: 'GET',
      path: `/a2a/tasks/${conversation.id}?historyLength=0`,
      headers,
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'updates poll',
    },
    {
      name: 'A2A SendMessage (follow-up)',
      method: 'POST',
      path: '/a2a?scenario=send_message',
      headers: { ...json, ...headers },
      body: a2aCall('SendMessage', {
        message: { messageId: '{{KEY}}', role: 'ROLE_USER', parts: [{ text: 'A benchmark follow-up message.' }] },
        configuration: { historyLength: 0 },
      }),
      uniqueKey: true,
      keyIn: 'body',
      expectStatus: 200,
      server: 'main',
      target: 0,
      twin: 'follow-up POST',
    },
  ];
}

const a2aCall = (method: string, params: object) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

const toolCall = (name: string, args: object) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

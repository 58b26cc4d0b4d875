// The OpenAPI document: served as 3.1, linted by Redocly, the same operations as the router, real answers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { OPENAPI_DOCUMENT } from '../../src/openapi/document.ts';
import { routes } from '../../src/service/routes.ts';
import { newKey, openConversation, request, startTestService, type ApiResponse, type TestService } from '../helpers.ts';
import { agentKey, signedHeaders, startKeyDirectory, startVerifyingService, type Signing } from '../identity/agents.ts';
import { validate } from '../json-schema.ts';

const doc = OPENAPI_DOCUMENT as unknown as Record<string, any>;
const SPEC_ERRORS = ['400', '401', '403', '409', '410', '413', '415', '429', '500'];

test('the OpenAPI document is served as OpenAPI 3.1 for interface version 1.0.0', async (t) => {
  const service = await startTestService(t);
  const response = await request(service.url, 'GET', '/api/v1/openapi.json');
  assert.equal(response.status, 200);
  const { info, servers: _servers, ...served } = response.body;
  const { info: baseInfo, ...base } = JSON.parse(JSON.stringify(OPENAPI_DOCUMENT));
  assert.deepEqual(served, base);
  assert.equal(info.description.startsWith(baseInfo.description), true);
  assert.match(info.description, /Limits: Shared daily maximum: 500 messages per UTC day/);
  assert.match(
    info.description,
    /one conversation may store at most 50 messages; .*one address, unsigned, at most 100/,
  );
  const pools = [/all unsigned senders together at most 150; the verified agents of one site .* at most 150; /];
  pools.push(/all verified agents the owner does not know yet together at most 150; the owner's contacts/);
  for (const pool of pools) assert.match(info.description, pool);
  assert.equal(response.body.openapi, '3.1.0');
  assert.equal(response.body.info.version, '1.0.0');
  assert.deepEqual(response.body.servers, [{ url: service.url, description: 'This service' }]);
  assert.deepEqual(response.body.info.license, { name: 'MIT', identifier: 'MIT' });
  assert.deepEqual(response.body.components.securitySchemes.ConversationBearer, {
    type: 'http',
    scheme: 'bearer',
    description: response.body.components.securitySchemes.ConversationBearer.description,
  });
});

test("Redocly's recommended rules find nothing to fault in the served document", async (t) => {
  const service = await startTestService(t, { env: { PUBLIC_BASE_URL: 'https://agents.example.org' } });
  const served = await request(service.url, 'GET', '/api/v1/openapi.json');
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: served.text,
    absoluteRef: `${service.url}/api/v1/openapi.json`,
    config,
  });
  const found = problems.map(
    (problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
  );
  assert.deepEqual(found, []);
});

test('the document and the router list exactly the same operations', () => {
  // OPTIONS preflights are answered on every path and described nowhere as operations. The
  // A2A bindings under /a2a are described by the agent card and A2A's own specification: JSON-RPC
  // methods and A2A's error model do not fit an OpenAPI operation (the card itself is here).
  const fromRouter = routes
    .filter((route) => route.method !== 'OPTIONS' && !route.pattern.startsWith('/a2a'))
    .map((route) => `${route.method} ${route.pattern.replace(/:(\w+)/g, '{$1}')}`)
    .sort();
  const fromDocument = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
  assert.deepEqual(fromDocument, fromRouter);
});

test('every API operation declares the contract error statuses, bearer where needed, and its headers', () => {
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith('/api/v1/')) continue;
    for (const [method, operation] of Object.entries(operations)) {
      const label = `${method.toUpperCase()} ${path}`;
      for (const status of SPEC_ERRORS) assert.ok(operation.responses[status], `${label} declares ${status}`);
      assert.ok(operation.responses['429'].headers['Retry-After'], `${label} 429 has Retry-After`);
      assert.ok(operation.responses['401'].headers['WWW-Authenticate'], `${label} 401 has WWW-Authenticate`);
      const needsBearer = path.startsWith('/api/v1/conversations/');
      assert.deepEqual(operation.security, needsBearer ? [{ ConversationBearer: [] }] : [], label);
      if (method === 'post' && !path.endsWith('/close')) {
        // every POST that writes a message takes a key; a close is idempotent by itself
        assert.ok(
          operation.parameters.some((p: { $ref?: string }) => p.$ref === '#/components/parameters/Idempotency-Key'),
          `${label} needs Idempotency-Key`,
        );
      }
    }
  }
  assert.ok(doc.paths['/api/v1/directory/{slug}'].get.responses['404']);
  const limit = doc.paths['/api/v1/directory'].get.parameters.find((p: { name: string }) => p.name === 'limit');
  assert.deepEqual(limit.schema, { type: 'integer', minimum: 1, maximum: 100, default: 30 });
});

test('the schema checker is not vacuous: it rejects bodies that break the schemas', () => {
  const root = doc;
  const message = { $ref: '#/components/schemas/Message' };
  assert.deepEqual(
    validate({ seq: 1, author: 'client', message: 'hi', created_at: '2026-01-01T00:00:00.000Z' }, message, root),
    [],
  );
  assert.ok(
    validate({ seq: 0, author: 'robot', message: '', created_at: 'yesterday', extra: 1 }, message, root).length >= 5,
  );
  assert.ok(
    validate({ items: [], total: 0, limit: 30, offset: 0 }, { $ref: '#/components/schemas/ListingPage' }, root).some(
      (p) => p.includes('next_offset'),
    ),
  );
  assert.ok(
    validate({ error: { code: '400', message: 'x' } }, { $ref: '#/components/schemas/Error' }, root).length > 0,
  );
});

/** Checks real answers against the schema their operation declares for their status; keeps what it checked. */
function schemaChecker() {
  const checked: string[] = [];
  function check(method: string, path: string, response: ApiResponse) {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${path} is documented`);
    const declared = operation.responses[String(response.status)];
    assert.ok(declared, `${method} ${path} declares ${response.status}`);
    checked.push(`${method} ${path} ${response.status}`);
    if (response.status === 204) return assert.equal(response.text, '');
    const schema = declared.content?.['application/json']?.schema;
    assert.ok(schema, `${method} ${path} ${response.status} has a JSON schema`);
    assert.deepEqual(
      validate(response.body, schema, doc),
      [],
      `${method} ${path} ${response.status}: ${response.text.slice(0, 300)}`,
    );
  }
  return { checked, check };
}

test('real answers of the public reads match the schemas the document declares for them', async (t) => {
  const service = await startTestService(t);
  const { check } = schemaChecker();
  const get = (path: string, url = path) => request(service.url, 'GET', url).then((r) => check('GET', path, r));
  await get('/api/v1/health');
  await get('/api/v1/contact-info');
  await get('/api/v1/openapi.json');
  for (const path of ['/api/v1/directory', '/api/v1/communities', '/api/v1/tools']) {
    await get(path, `${path}?limit=100`);
    await get(path, `${path}?limit=0`);
  }
  await get('/api/v1/directory/{slug}', '/api/v1/directory/alpha-api');
  await get('/api/v1/directory/{slug}', '/api/v1/directory/nope');
});

/** Openings refused for their body: empty, not JSON, too large. */
async function checkRefusedOpenings(service: TestService, check: ReturnType<typeof schemaChecker>['check']) {
  const open = (options: Parameters<typeof request>[3]) =>
    request(service.url, 'POST', '/api/v1/conversations', { key: newKey(), ...options });
  check('POST', '/api/v1/conversations', await open({ json: { message: '' } }));
  check('POST', '/api/v1/conversations', await open({ body: 'x', headers: { 'content-type': 'text/plain' } }));
  check('POST', '/api/v1/conversations', await open({ json: { message: 'x'.repeat(20000) } }));
}

test('real answers of the conversation routes match the schemas the document declares for them', async (t) => {
  const service = await startTestService(t, {
    env: { DAILY_MESSAGE_LIMIT: '8', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' },
  });
  const { checked, check } = schemaChecker();
  const get = (path: string, url: string, options = {}) =>
    request(service.url, 'GET', url, options).then((r) => check('GET', path, r));
  const created = await request(service.url, 'POST', '/api/v1/conversations', {
    key: newKey(),
    json: { message: 'hi', metadata: { agent_name: 'a', model: 'm', framework: 'f' } },
  });
  check('POST', '/api/v1/conversations', created);
  const { id, access_token: token } = created.body;
  await checkRefusedOpenings(service, check);

  const base = `/api/v1/conversations/${id}`;
  await get('/api/v1/conversations/{id}', base, { token });
  await get('/api/v1/conversations/{id}', base);
  const other = await openConversation(service.url);
  await get('/api/v1/conversations/{id}', `/api/v1/conversations/${other.id}`, { token });
  const key = newKey();
  const follow = (json: unknown, k = key) => request(service.url, 'POST', `${base}/messages`, { token, key: k, json });
  check('POST', '/api/v1/conversations/{id}/messages', await follow({ message: 'second' }));
  check('POST', '/api/v1/conversations/{id}/messages', await follow({ message: 'second' }));
  check('POST', '/api/v1/conversations/{id}/messages', await follow({ message: 'changed' }));
  await get('/api/v1/conversations/{id}/messages', `${base}/messages?limit=1`, { token });
  await get('/api/v1/conversations/{id}/updates', `${base}/updates?after=1`, { token });
  await get('/api/v1/conversations/{id}/updates', `${base}/updates?after=1`, { token }); // 429
  for (let i = 0; i < 5; i++) await follow({ message: `more ${i}` }, newKey());
  check('POST', '/api/v1/conversations/{id}/messages', await follow({ message: 'over the maximum' }, newKey())); // 429
  const hook = (method: string, json?: unknown) => request(service.url, method, `${base}/webhook`, { token, json });
  check('GET', '/api/v1/conversations/{id}/webhook', await hook('GET')); // 404
  check('PUT', '/api/v1/conversations/{id}/webhook', await hook('PUT', { url: 'http://127.0.0.1:9/hook' })); // 201
  check('PUT', '/api/v1/conversations/{id}/webhook', await hook('PUT', { url: 'http://127.0.0.1:9/hook' })); // 200
  check('PUT', '/api/v1/conversations/{id}/webhook', await hook('PUT', { url: 'http://10.0.0.1/hook' })); // 400
  check('GET', '/api/v1/conversations/{id}/webhook', await hook('GET'));
  check('DELETE', '/api/v1/conversations/{id}/webhook', await hook('DELETE')); // 204
  service.store.setStatus(id, 'closed', new Date().toISOString());
  check('POST', '/api/v1/conversations/{id}/messages', await follow({ message: 'closed' }, newKey())); // 410

  for (const expected of ['201', '200', '204', '409', '429', '410', '400', '401', '403', '404', '413', '415']) {
    assert.ok(
      checked.some((line) => line.endsWith(` ${expected}`)),
      `a real ${expected} was checked`,
    );
  }
});

test('signed answers and signature refusals match the schemas the document declares for them', async (t) => {
  const key = agentKey();
  const directory = await startKeyDirectory(t, [key]);
  const service = await startVerifyingService(t);
  const { checked, check } = schemaChecker();
  const path = '/api/v1/conversations';
  const signings: Signing[] = [
    { key, agent: directory.origin }, // 201, verified
    { key, agent: directory.origin, params: ['created', 'expires', 'tag'] }, // 400
    { key: agentKey(), agent: directory.origin }, // 401
    { key, agent: 'https://private.test' }, // 503
  ];
  let verified: ApiResponse | undefined;
  for (const signing of signings) {
    const headers = await signedHeaders(service, 'POST', path, signing);
    const answer = await request(service.url, 'POST', path, { key: newKey(), json: { message: 'Hi.' }, headers });
    check('POST', path, answer);
    verified ??= answer;
  }
  assert.deepEqual(checked, [`POST ${path} 201`, `POST ${path} 400`, `POST ${path} 401`, `POST ${path} 503`]);
  const { id, access_token: token } = verified!.body;
  const messages = `${path}/${id}/messages`;
  const headers = await signedHeaders(service, 'POST', messages, { key, agent: directory.origin });
  const json = { message: 'Signed too.' };
  const followUp = await request(service.url, 'POST', messages, { token, key: newKey(), json, headers });
  check('POST', '/api/v1/conversations/{id}/messages', followUp);
  const history = await request(service.url, 'GET', messages, { token });
  check('GET', '/api/v1/conversations/{id}/messages', history);
  const signers = history.body.items.map((m: { verified_agent: unknown }) => m.verified_agent);
  assert.deepEqual(signers, [directory.origin, directory.origin]);
});

test('each error status is described from the refusal catalogue for the operations that can give it', () => {
  const describe = (path: string, method: string, status: number) =>
    doc.paths[path][method].responses[String(status)].description as string;
  const notAnswered = /^Not answered by this operation/;
  assert.match(describe('/api/v1/directory', 'get', 401), notAnswered, 'a public list never asks for a credential');
  assert.match(describe('/api/v1/directory', 'get', 409), notAnswered);
  assert.match(describe('/api/v1/directory', 'get', 400), /`q` is over 120 characters/);
  assert.match(describe('/api/v1/conversations/{id}/updates', 'get', 401), /No `Authorization: Bearer/);
  assert.match(describe('/api/v1/conversations/{id}/updates', 'get', 429), /Polled sooner than poll_after_seconds/);
  assert.doesNotMatch(describe('/api/v1/conversations/{id}/updates', 'get', 429), /daily maximum/);
  assert.match(describe('/api/v1/conversations', 'post', 409), /creation key was used before/);
  assert.doesNotMatch(describe('/api/v1/conversations', 'post', 409), /follow-up key/);
  assert.match(describe('/api/v1/conversations/{id}/messages', 'post', 410), /closed the conversation/);
});

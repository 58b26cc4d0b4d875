// Key directories as the service reads them over HTTP: each way one can fail is a 503 with
// Retry-After naming the directory's problem (a 401 when it answered without the key), a failure
// is remembered and not asked again at once, and keys are kept or dropped as later reads say.
// Covers: src/identity/key-directory.ts, src/runtime/verified-agents.ts, src/outbound/guard.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertRefused, fakeClock, newKey, request, type TestService } from '../helpers.ts';
import {
  agentKey,
  jwkSet,
  signedHeaders,
  startKeyDirectory,
  startVerifyingService,
  stored,
  verifiedAgentOf,
  type Signing,
} from './agents.ts';

const KEY = agentKey();
const OPEN = '/api/v1/conversations';

async function open(service: TestService, signing: Signing) {
  const headers = await signedHeaders(service, 'POST', OPEN, signing);
  return request(service.url, 'POST', OPEN, { key: newKey(), json: { message: 'Hello.' }, headers });
}

/** A directory answering by path: each path fails in its own way. */
async function failingDirectories(t: Parameters<typeof startKeyDirectory>[0]) {
  const directory = await startKeyDirectory(t, [KEY]);
  const rsaOnly = JSON.stringify({ keys: [{ kty: 'RSA', n: 'sXch', e: 'AQAB' }] });
  directory.answer = (req, res) => {
    if (req.url === '/slow') return; // never answers
    if (req.url === '/500') return void res.writeHead(500).end('down');
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/elsewhere' }).end();
    if (req.url === '/large') return void res.writeHead(200).end(`{"keys":[${' '.repeat(70_000)}]}`);
    if (req.url === '/not-json') return void res.writeHead(200).end('<html>keys</html>');
    if (req.url === '/rsa-only') return void res.writeHead(200).end(rsaOnly);
    res.writeHead(404).end();
  };
  return directory;
}

test('a directory that answers 500, redirects, is too large or not JSON: 503 naming it, nothing stored', async (t) => {
  const directory = await failingDirectories(t);
  const service = await startVerifyingService(t);
  const cases: Array<[string, RegExp]> = [
    ['/500', /answered 500, not 200/],
    ['/redirect', /answered 302, not 200/],
    ['/large', /larger than 65536 bytes/],
    ['/not-json', /not JSON/],
  ];
  // A 5xx is remembered for its host: each case on a host of its own.
  const onHost = (n: number) => directory.origin.replace('agent.test', `site${n}.test`);
  for (const [n, [path, says]] of cases.entries()) {
    const answer = await open(service, { key: KEY, agent: `${onHost(n + 1)}${path}` });
    assertRefused(answer, 503, says, path);
    assert.equal(answer.body.error.reason, 'key_directory_unavailable', path);
    const retryAfter = Number(answer.headers.get('retry-after'));
    assert.ok(retryAfter > 290 && retryAfter <= 300, `${path}: the failure is remembered 5 minutes: ${retryAfter}`);
  }
  assert.deepEqual(directory.fetched, ['/500', '/redirect', '/large', '/not-json']);
  const again = await open(service, { key: KEY, agent: `${onHost(1)}/other-path` });
  assertRefused(again, 503, /answered 500/, 'its host asked again within 5 minutes');
  assert.equal(directory.fetched.length, 4, 'a remembered failure is not fetched again, on any path of its host');
  assert.deepEqual(stored(service), { conversations: 0, messages: 0 });
});

test('a directory that holds no Ed25519 key answered: the key is unknown, 401', async (t) => {
  const directory = await failingDirectories(t);
  const service = await startVerifyingService(t);
  const answer = await open(service, { key: KEY, agent: `${directory.origin}/rsa-only` });
  assertRefused(answer, 401, /key/);
  assert.equal(answer.body.error.reason, 'signature_invalid');
});

test('a directory that never answers is given up after 5 seconds with a 503', async (t) => {
  const directory = await failingDirectories(t);
  const service = await startVerifyingService(t);
  const answer = await open(service, { key: KEY, agent: `${directory.origin}/slow` });
  assertRefused(answer, 503, /could not be fetched/);
  assert.deepEqual(directory.fetched, ['/slow']);
});

test('a directory named by a host with a private address, or by a private address, is never connected', async (t) => {
  const directory = await startKeyDirectory(t, [KEY]);
  const service = await startVerifyingService(t);
  const privateName = await open(service, { key: KEY, agent: 'https://private.test' });
  assertRefused(privateName, 503, /private\.test does not resolve to public addresses only/);
  assert.doesNotMatch(privateName.body.error.message, /10\.1\.2\.3/, 'what it resolved to is not told');
  const literal = await open(service, { key: KEY, agent: 'https://127.0.0.1' });
  assertRefused(literal, 503, /loopback address/);
  const plainHttp = await open(service, { key: KEY, agent: 'http://unlisted.example' });
  assertRefused(plainHttp, 400, /https/, 'http is read only from a host the owner allows');
  assert.deepEqual(directory.fetched, []);
});

test('keys are kept for max-age; a failed read keeps them; a later read without a key drops it', async (t) => {
  const clock = fakeClock('2026-11-26T12:00:00.000Z');
  const directory = await startKeyDirectory(t, [KEY]);
  directory.answer = jwkSet([KEY], 300);
  const service = await startVerifyingService(t, { now: clock.now });
  const signing = () => ({ key: KEY, agent: directory.origin, now: clock.now() });
  assert.equal((await open(service, signing())).status, 201);
  clock.advance(299_000);
  assert.equal((await open(service, signing())).status, 201);
  assert.equal(directory.fetched.length, 1, 'still fresh');

  clock.advance(2_000);
  directory.answer = (_req, res) => void res.writeHead(500).end();
  const keptThroughFailure = await open(service, signing());
  assert.equal(keptThroughFailure.status, 201, 'a failed read does not evict the keys');
  assert.equal(await verifiedAgentOf(service, keptThroughFailure), directory.origin);
  assert.equal(directory.fetched.length, 2);

  clock.advance(301_000); // the failure is remembered 5 minutes
  directory.answer = jwkSet([agentKey()], 300);
  const removed = await open(service, signing());
  assertRefused(removed, 401, /key/, 'the key its directory no longer holds');
  assert.equal(directory.fetched.length, 3);
});

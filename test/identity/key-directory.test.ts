// The key directories' rules (src/identity/key-directory.ts) with a fake fetcher and the clock passed
// in: what is kept and for how long, rotation and withdrawal, what a failure keeps and for whom (per
// host), what is read of a JWK Set, and the bounds on memory and on fetches, in all and per client.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DirectoryBusy,
  KeyDirectories,
  maxAgeSeconds,
  type DirectoryAnswer,
  type KeyDirectoriesOptions,
  type KeyLookup,
} from '../../src/identity/key-directory.ts';
import { agentKey, type AgentKey } from './signing.ts';

const DIRECTORY = 'https://agent.example/.well-known/http-message-signatures-directory';
const OTHER_DIRECTORY = 'https://other.example/.well-known/http-message-signatures-directory';
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const SECOND = 1000;
const [A, B, C] = [agentKey(), agentKey(), agentKey()];

const publicJwk = (key: AgentKey) => ({ kty: 'OKP', crv: 'Ed25519', x: key.jwk.x });

function jwkSet(keys: unknown[], cacheControl?: string): DirectoryAnswer {
  const headers = cacheControl === undefined ? {} : { 'cache-control': cacheControl };
  return { status: 200, headers, body: Buffer.from(JSON.stringify({ keys })) };
}

type Respond = (url: URL, call: number) => DirectoryAnswer | Error | Promise<DirectoryAnswer>;

/** Directories over a fake fetcher that records each URL it is asked for. */
function directories(respond: Respond, options: Partial<KeyDirectoriesOptions> = {}) {
  const calls: string[] = [];
  const fetchDirectory = async (url: URL) => {
    calls.push(url.href);
    const answer = await respond(url, calls.length);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { calls, keys: new KeyDirectories({ fetchDirectory, ...options }) };
}

function keyOf(lookup: KeyLookup) {
  assert.equal(lookup.kind, 'key', JSON.stringify(lookup));
  return (lookup as { key: { export(o: { format: 'jwk' }): unknown } }).key.export({ format: 'jwk' });
}

test('a key is found by its thumbprint in its directory, which is kept for its max-age', async () => {
  const { calls, keys } = directories(() => jwkSet([publicJwk(A), publicJwk(B)], 'public, max-age=600'));
  assert.deepEqual(keyOf(await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1')), publicJwk(A));
  assert.deepEqual(calls, [DIRECTORY]);
  assert.deepEqual(keyOf(await keys.keyFor(DIRECTORY, B.keyid, T0 + 599 * SECOND, 'c1')), publicJwk(B));
  assert.deepEqual(await keys.keyFor(DIRECTORY, C.keyid, T0 + 30 * SECOND, 'c1'), { kind: 'unknown-key' });
  assert.equal(calls.length, 1, 'no fetch within max-age, nor within a minute of the last one');
  await keys.keyFor(DIRECTORY, A.keyid, T0 + 600 * SECOND, 'c1');
  assert.equal(calls.length, 2, 'fetched again once it is due');
});

test('a keyid the directory lacks fetches it again, at most once a minute: a key rotated in is found', async () => {
  const { calls, keys } = directories((_, call) =>
    jwkSet(call === 1 ? [publicJwk(A)] : [publicJwk(A), publicJwk(B)], 'max-age=3600'),
  );
  await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1');
  const storm = await Promise.all(
    Array.from({ length: 50 }, (_, i) => keys.keyFor(DIRECTORY, agentKey().keyid, T0 + (10 + i) * SECOND, 'c1')),
  );
  assert.ok(storm.every((lookup) => lookup.kind === 'unknown-key'));
  assert.equal(calls.length, 1, 'unknown keyids within the minute make no fetch');
  assert.deepEqual(keyOf(await keys.keyFor(DIRECTORY, B.keyid, T0 + 61 * SECOND, 'c1')), publicJwk(B));
  assert.equal(calls.length, 2, 'one fetch for the rotation');
  await keys.keyFor(DIRECTORY, C.keyid, T0 + 100 * SECOND, 'c1');
  assert.equal(calls.length, 2, 'and no other within the minute after it');
  await keys.keyFor(DIRECTORY, C.keyid, T0 + 122 * SECOND, 'c1');
  assert.equal(calls.length, 3, 'a minute later, one more');
});

test('a directory that answers 404 or 410 withdraws its keys at once', async () => {
  for (const status of [404, 410]) {
    const { keys } = directories((_, call) =>
      call === 1 ? jwkSet([publicJwk(A)], 'max-age=300') : { status, headers: {}, body: Buffer.from('gone') },
    );
    await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1');
    const withdrawn = await keys.keyFor(DIRECTORY, A.keyid, T0 + 300 * SECOND, 'c1');
    assert.equal(withdrawn.kind, 'unavailable', `${status}`);
    assert.match((withdrawn as { problem: string }).problem, new RegExp(`answered ${status}: its keys are withdrawn`));
    assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0 + 301 * SECOND, 'c1')).kind, 'unavailable', 'and stay so');
  }
});

test('max-age is clamped to 5 minutes and 24 hours, is 1 hour when absent, and no-store keeps the least', () => {
  assert.equal(maxAgeSeconds('max-age=10'), 300);
  assert.equal(maxAgeSeconds('max-age=7200'), 7200);
  assert.equal(maxAgeSeconds('public, MAX-AGE="999999"'), 86_400);
  assert.equal(maxAgeSeconds(['public', 'max-age=900']), 900);
  assert.equal(maxAgeSeconds(undefined), 3600);
  assert.equal(maxAgeSeconds('public'), 3600);
  assert.equal(maxAgeSeconds('max-age=abc'), 3600);
  assert.equal(maxAgeSeconds('no-store'), 300);
  assert.equal(maxAgeSeconds('no-cache, max-age=7200'), 300);
});

test('the clamped max-age decides when a directory is fetched again', async () => {
  for (const [cacheControl, seconds] of [['max-age=10', 300], ['max-age=999999', 86_400], [undefined, 3600]] as const) {
    const { calls, keys } = directories(() => jwkSet([publicJwk(A)], cacheControl));
    await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1');
    await keys.keyFor(DIRECTORY, A.keyid, T0 + (seconds - 1) * SECOND, 'c1');
    assert.equal(calls.length, 1, `${cacheControl}: kept ${seconds - 1} s`);
    await keys.keyFor(DIRECTORY, A.keyid, T0 + seconds * SECOND, 'c1');
    assert.equal(calls.length, 2, `${cacheControl}: fetched again after ${seconds} s`);
  }
});

test('a kid alone never selects a key, and keys are held per directory URL, never by keyid alone', async () => {
  const { keys } = directories((url) =>
    url.hostname === 'agent.example' ? jwkSet([publicJwk(A)]) : jwkSet([{ ...publicJwk(B), kid: A.keyid }]),
  );
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1')).kind, 'key');
  assert.deepEqual(await keys.keyFor(OTHER_DIRECTORY, A.keyid, T0, 'c1'), { kind: 'unknown-key' });
  assert.deepEqual(keyOf(await keys.keyFor(OTHER_DIRECTORY, B.keyid, T0, 'c1')), publicJwk(B));
});

test('a failed fetch is remembered for 5 minutes and answered unavailable with the time left', async () => {
  const refusal = new Error(
    'the host agent.example does not resolve to public addresses only; this service calls no other',
  );
  const { calls, keys } = directories(() => refusal);
  assert.deepEqual(await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1'), {
    kind: 'unavailable',
    problem: `the key directory ${DIRECTORY} could not be fetched: ${refusal.message}`,
    retryAfterSeconds: 300,
  });
  const later = await keys.keyFor(DIRECTORY, B.keyid, T0 + 100.5 * SECOND, 'c1');
  assert.equal(later.kind === 'unavailable' && later.retryAfterSeconds, 200);
  assert.equal(calls.length, 1, 'not fetched again while the failure is remembered');
  await keys.keyFor(DIRECTORY, A.keyid, T0 + 300 * SECOND, 'c1');
  assert.equal(calls.length, 2, 'fetched again after 5 minutes');
});

test('an answer that is not 200 or not a JWK Set is a failure that names the problem', async () => {
  const answers: Array<[DirectoryAnswer, string]> = [
    [{ status: 500, headers: {}, body: Buffer.from('{"keys":[]}') }, 'it answered 500, not 200'],
    [{ status: 404, headers: {}, body: Buffer.from('{"keys":[]}') }, 'it answered 404: its keys are withdrawn'],
    [{ status: 200, headers: {}, body: Buffer.from('<html>') }, 'its body is not JSON (a JWK Set, {"keys": [...]}, is'],
    [{ status: 200, headers: {}, body: Buffer.from('{"keys":{}}') }, 'its body is not a JWK Set ({"keys": [...]})'],
    [{ status: 200, headers: {}, body: Buffer.from('[]') }, 'its body is not a JWK Set ({"keys": [...]})'],
  ];
  for (const [answer, reason] of answers) {
    const { keys } = directories(() => answer);
    const lookup = await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1');
    const problem = lookup.kind === 'unavailable' ? lookup.problem : lookup.kind;
    assert.ok(problem.startsWith(`the key directory ${DIRECTORY} could not be fetched: ${reason}`), problem);
  }
});

test('a failed refetch keeps the keys fetched earlier, for a day after the last good fetch at most', async () => {
  const firstOnly = (_: URL, call: number) =>
    call === 1 ? jwkSet([publicJwk(A)], 'max-age=300') : new Error('timed out');
  const { calls, keys } = directories(firstOnly);
  await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1');
  assert.deepEqual(keyOf(await keys.keyFor(DIRECTORY, A.keyid, T0 + 300 * SECOND, 'c1')), publicJwk(A));
  assert.equal(calls.length, 2, 'the refetch was tried and failed');
  const missing = await keys.keyFor(DIRECTORY, B.keyid, T0 + 301 * SECOND, 'c1');
  assert.equal(missing.kind, 'unavailable', 'the directory did not answer: B may be new');
  assert.deepEqual(keyOf(await keys.keyFor(DIRECTORY, A.keyid, T0 + 5000 * SECOND, 'c1')), publicJwk(A));
  assert.equal(calls.length, 3, 'still failing, still usable');
  const lastDay = T0 + 86_399 * SECOND;
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, lastDay, 'c1')).kind, 'key');
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0 + 86_400 * SECOND, 'c1')).kind, 'unavailable', 'a day later');
});

test('a failure is remembered per host: no directory of that host is fetched for 5 minutes', async () => {
  const { calls, keys } = directories((url) =>
    url.hostname === 'tarpit.example' ? new Error('timed out') : jwkSet([publicJwk(A)]),
  );
  const url = (path: string) => `https://tarpit.example/${path}`;
  assert.equal((await keys.keyFor(url('a/jwks'), A.keyid, T0, 'c1')).kind, 'unavailable');
  for (let i = 0; i < 20; i++) {
    const lookup = await keys.keyFor(url(`fresh-${i}/jwks`), A.keyid, T0 + i * SECOND, `c${i}`);
    assert.equal(lookup.kind, 'unavailable', 'another path of the host');
  }
  assert.deepEqual(calls, [url('a/jwks')]);
  assert.equal((await keys.keyFor(OTHER_DIRECTORY, A.keyid, T0, 'c1')).kind, 'key', 'another host is asked');
  await keys.keyFor(url('b/jwks'), A.keyid, T0 + 300 * SECOND, 'c1');
  assert.equal(calls.length, 3, 'asked again after 5 minutes');
});

test('a later successful fetch without a key removes it', async () => {
  const { keys } = directories((_, call) =>
    call === 1 ? jwkSet([publicJwk(A), publicJwk(B)], 'max-age=300') : jwkSet([publicJwk(B)]),
  );
  await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1');
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0 + 299 * SECOND, 'c1')).kind, 'key');
  assert.deepEqual(await keys.keyFor(DIRECTORY, A.keyid, T0 + 300 * SECOND, 'c1'), { kind: 'unknown-key' });
  assert.equal((await keys.keyFor(DIRECTORY, B.keyid, T0 + 300 * SECOND, 'c1')).kind, 'key');
});

test('at most 32 keys are read from a JWK Set, and keys other than OKP/Ed25519 are skipped', async () => {
  const others = [
    { kty: 'RSA', n: 'sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95G', e: 'AQAB' },
    { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: A.jwk.x },
    { kty: 'OKP', crv: 'X25519', x: 'hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo' },
  ];
  const filler = Array.from({ length: 28 }, agentKey); // with A, and the three skipped: 32 members
  const members = [...others, publicJwk(A), ...filler.map(publicJwk), publicJwk(B)];
  const { keys } = directories(() => jwkSet(members));
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1')).kind, 'key', 'an Ed25519 key among others');
  assert.equal((await keys.keyFor(DIRECTORY, filler[27]!.keyid, T0, 'c1')).kind, 'key', 'the 32nd member is read');
  const b = await keys.keyFor(DIRECTORY, B.keyid, T0, 'c1');
  assert.deepEqual(b, { kind: 'unknown-key' }, 'the 33rd member is not read');
});

test('at most the stated number of directories is kept, the oldest written out first', async () => {
  const { calls, keys } = directories(() => jwkSet([publicJwk(A)]), { maxDirectories: 2 });
  const url = (n: number) => `https://agent${n}.example/.well-known/http-message-signatures-directory`;
  for (const n of [1, 2, 3]) await keys.keyFor(url(n), A.keyid, T0, 'c1');
  await keys.keyFor(url(3), A.keyid, T0, 'c1');
  await keys.keyFor(url(2), A.keyid, T0, 'c1');
  assert.equal(calls.length, 3, 'the two newest are kept');
  await keys.keyFor(url(1), A.keyid, T0, 'c1');
  assert.deepEqual(calls, [url(1), url(2), url(3), url(1)], 'the oldest was dropped and is fetched again');
});

test('the byte budget drops the oldest directories too', async () => {
  // One directory of one key is estimated at 512 + 2 × its URL length + 1024 bytes: about 1,700.
  const { calls, keys } = directories(() => jwkSet([publicJwk(A)]), { maxBytes: 4_000 });
  const url = (n: number) => `https://agent${n}.example/keys.json`;
  for (const n of [1, 2, 3]) await keys.keyFor(url(n), A.keyid, T0, 'c1');
  await keys.keyFor(url(3), A.keyid, T0, 'c1');
  await keys.keyFor(url(2), A.keyid, T0, 'c1');
  assert.equal(calls.length, 3);
  await keys.keyFor(url(1), A.keyid, T0, 'c1');
  assert.equal(calls.length, 4, 'the first was dropped to stay within 4,000 bytes');
});

test('past the fetches allowed in flight a new directory is busy, while a known key is still served', async () => {
  const pending = new Map<string, PromiseWithResolvers<DirectoryAnswer>>();
  const { calls, keys } = directories(
    (url, call) => {
      if (call === 1) return jwkSet([publicJwk(A)], 'max-age=300');
      const deferred = Promise.withResolvers<DirectoryAnswer>();
      pending.set(url.href, deferred);
      return deferred.promise;
    },
    { maxInFlight: 2 },
  );
  await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1'); // kept until T0 + 300 s
  const later = T0 + 400 * SECOND;
  const first = keys.keyFor('https://one.example/keys.json', A.keyid, later, 'c1');
  const second = keys.keyFor('https://two.example/keys.json', A.keyid, later, 'c1');
  assert.deepEqual(await keys.keyFor('https://three.example/keys.json', A.keyid, later, 'c1'), {
    kind: 'busy',
    retryAfterSeconds: 10,
  });
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, later, 'c1')).kind, 'key', 'stale, but no fetch has removed it');
  assert.equal(calls.length, 3, 'neither the busy one nor the stale one was fetched');
  pending.get('https://one.example/keys.json')?.resolve(jwkSet([publicJwk(A)]));
  assert.equal((await first).kind, 'key');
  const third = keys.keyFor('https://three.example/keys.json', A.keyid, later, 'c1');
  assert.equal(calls.length, 4, 'a slot is free again');
  assert.equal((await keys.keyFor('https://four.example/keys.json', A.keyid, later, 'c1')).kind, 'busy', 'and taken');
  pending.get('https://two.example/keys.json')?.resolve(jwkSet([]));
  pending.get('https://three.example/keys.json')?.resolve(jwkSet([publicJwk(A)]));
  assert.deepEqual(await second, { kind: 'unknown-key' });
  assert.equal((await third).kind, 'key');
});

test('one client address has 2 fetches in flight at most; others still fetch, a held key still serves', async () => {
  const never = new Promise<DirectoryAnswer>(() => {}); // a tarpit: its fetches never end here
  const { calls, keys } = directories((url) => (url.hostname.startsWith('tarpit') ? never : jwkSet([publicJwk(A)])));
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0, 'attacker')).kind, 'key'); // a known agent, held
  void keys.keyFor('https://tarpit1.example/jwks', A.keyid, T0, 'attacker');
  void keys.keyFor('https://tarpit2.example/jwks', A.keyid, T0, 'attacker');
  for (let i = 3; i < 30; i++) {
    const lookup = await keys.keyFor(`https://tarpit${i}.example/jwks`, A.keyid, T0, 'attacker');
    assert.deepEqual(lookup, { kind: 'busy', retryAfterSeconds: 10 });
  }
  assert.equal(calls.length, 3, 'the attacker holds two fetches, no more');
  assert.equal((await keys.keyFor(OTHER_DIRECTORY, A.keyid, T0, 'agent')).kind, 'key', 'a new agent is fetched');
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0, 'agent')).kind, 'key', 'a held one still verifies');
});

test('failed and refused fetches never push out a directory that verified someone', async () => {
  const refused = new Error("the URL's host 10.0.0.1 is a private address (10.0.0.1), which this service does not call");
  const { calls, keys } = directories((url) => (url.hostname === 'agent.example' ? jwkSet([publicJwk(A)]) : refused), {
    maxDirectories: 2,
  });
  await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1');
  for (let i = 0; i < 1_100; i++) {
    const long = `https://10.${(i >> 8) & 255}.${i & 255}.1/${'x'.repeat(1500)}`;
    assert.equal((await keys.keyFor(long, A.keyid, T0, `c${i}`)).kind, 'unavailable');
  }
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0 + SECOND, 'c1')).kind, 'key');
  assert.equal(calls.filter((url) => url === DIRECTORY).length, 1, 'still held: not fetched again');
});

test('past the bounds, directories that never verified anyone go before those that did', async () => {
  const { calls, keys } = directories(() => jwkSet([publicJwk(A)]), { maxDirectories: 2 });
  const url = (n: number) => `https://agent${n}.example/jwks`;
  await keys.keyFor(url(1), A.keyid, T0, 'c1'); // found: it verified someone
  await keys.keyFor(url(2), B.keyid, T0, 'c1'); // fetched, but no key found for anyone
  await keys.keyFor(url(3), B.keyid, T0, 'c1');
  await keys.keyFor(url(1), A.keyid, T0, 'c1');
  assert.deepEqual(calls, [url(1), url(2), url(3)], 'the unused one went, though the used one is older');
});

test('requests for one directory while it is fetched share the fetch, each answered for its keyid', async () => {
  const deferred = Promise.withResolvers<DirectoryAnswer>();
  const { calls, keys } = directories(() => deferred.promise, { maxInFlight: 1 });
  const lookups = [A, B, C, A].map((key) => keys.keyFor(DIRECTORY, key.keyid, T0, 'c1'));
  assert.equal(calls.length, 1);
  deferred.resolve(jwkSet([publicJwk(A), publicJwk(B)]));
  const answers = (await Promise.all(lookups)).map((lookup) => lookup.kind);
  assert.deepEqual(answers, ['key', 'key', 'unknown-key', 'key']);
  assert.equal(calls.length, 1);
});

test('a shared fetch that fails answers every waiting request unavailable', async () => {
  const deferred = Promise.withResolvers<DirectoryAnswer>();
  const { calls, keys } = directories(() => deferred.promise);
  const lookups = [A, B].map((key) => keys.keyFor(DIRECTORY, key.keyid, T0, 'c1'));
  deferred.reject(new Error('the answer is larger than 65536 bytes'));
  for (const lookup of await Promise.all(lookups)) assert.equal(lookup.kind, 'unavailable');
  assert.equal(calls.length, 1);
});

test('a shared fetch the outbound guard had no room for answers each waiting request busy, not an error', async () => {
  const deferred = Promise.withResolvers<DirectoryAnswer>();
  const { calls, keys } = directories(() => deferred.promise);
  const lookups = [A, B].map((key) => keys.keyFor(DIRECTORY, key.keyid, T0, 'c1'));
  deferred.reject(new DirectoryBusy('too many name lookups'));
  for (const lookup of await Promise.all(lookups)) assert.equal(lookup.kind, 'busy');
  assert.equal(calls.length, 1);
});

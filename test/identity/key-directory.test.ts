// The key directories' rules (src/identity/key-directory.ts) with a fake fetcher and the clock passed
// in: what is kept and for how long, rotation and withdrawal, what a failure keeps and for whom (per
// host, or per URL when the host answered), and what is read of a JWK Set. Bounds and fetches in
// flight: key-directory-bounds.test.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxAgeSeconds, type KeyDirectoryAnswer } from '../../src/identity/key-directory.ts';
import { agentKey } from './signing.ts';
import {
  A,
  B,
  C,
  DIRECTORY,
  directories,
  jwkSet,
  keyOf,
  OTHER_DIRECTORY,
  publicJwk,
  SECOND,
  T0,
} from './key-directories.ts';

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
  for (const [cacheControl, seconds] of [
    ['max-age=10', 300],
    ['max-age=999999', 86_400],
    [undefined, 3600],
  ] as const) {
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
  const answers: Array<[KeyDirectoryAnswer, string]> = [
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

test('a host that answered, but not with a directory, is remembered for that URL only', async () => {
  const pages: Record<string, KeyDirectoryAnswer> = {
    '/gone': { status: 404, headers: {}, body: Buffer.from('') },
    '/page': { status: 200, headers: {}, body: Buffer.from('<html>') },
    '/forbidden': { status: 403, headers: {}, body: Buffer.from('') },
    '/large': { status: 200, headers: {}, body: Buffer.alloc(64 * 1024 + 1, 32) },
  };
  const { calls, keys } = directories((url) => pages[url.pathname] ?? jwkSet([publicJwk(A)]));
  const url = (path: string) => `https://agent.example${path}`;
  for (const [path, n] of Object.keys(pages).map((path, i) => [path, i] as const)) {
    assert.equal((await keys.keyFor(url(path), A.keyid, T0 + n * SECOND, 'attacker')).kind, 'unavailable', path);
    assert.equal((await keys.keyFor(url(path), A.keyid, T0 + 60 * SECOND, 'attacker')).kind, 'unavailable', path);
  }
  assert.equal(calls.length, 4, 'each failing URL is fetched once in its 5 minutes');
  assert.deepEqual(keyOf(await keys.keyFor(DIRECTORY, A.keyid, T0 + 61 * SECOND, 'agent')), publicJwk(A));
  assert.equal(calls.at(-1), DIRECTORY, "the host's real directory is still asked");
  const fivexx = directories(() => ({ status: 503, headers: {}, body: Buffer.from('') }));
  await fivexx.keys.keyFor(url('/down'), A.keyid, T0, 'c1');
  assert.equal(
    (await fivexx.keys.keyFor(DIRECTORY, A.keyid, T0, 'c1')).kind,
    'unavailable',
    'a 5xx is the host failing',
  );
  assert.equal(fivexx.calls.length, 1);
});

test("a host's failure, once over, does not hide a page's failure remembered later", async () => {
  const { calls, keys } = directories((url) =>
    url.pathname === '/page' ? { status: 404, headers: {}, body: Buffer.from('') } : new Error('timed out'),
  );
  assert.equal((await keys.keyFor(DIRECTORY, A.keyid, T0, 'c1')).kind, 'unavailable', 'the host times out');
  const page = 'https://agent.example/page';
  const later = T0 + 301 * SECOND;
  assert.equal((await keys.keyFor(page, A.keyid, later, 'c1')).kind, 'unavailable', 'the page answers 404');
  assert.equal((await keys.keyFor(page, A.keyid, later + SECOND, 'c1')).kind, 'unavailable', 'remembered');
  assert.equal(calls.length, 2, 'the page is not fetched again within its 5 minutes');
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

// The key directories' bounds (src/identity/key-directory.ts): directories and bytes held, which go
// first past them (never one that verified someone for a failure), and fetches in flight, in all, per
// client address, and shared by the requests for one directory.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeyDirectoryBusy, type KeyDirectoryAnswer } from '../../src/identity/key-directory.ts';
import {
  A,
  B,
  C,
  DIRECTORY,
  directories,
  jwkSet,
  OTHER_DIRECTORY,
  publicJwk,
  SECOND,
  T0,
} from './key-directories.ts';

test('at most the stated number of directories is kept, the oldest written out first', async () => {
  const { calls, keys } = directories(() => jwkSet([publicJwk(A)]), { maxKeyDirectories: 2 });
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
  const pending = new Map<string, PromiseWithResolvers<KeyDirectoryAnswer>>();
  const { calls, keys } = directories(
    (url, call) => {
      if (call === 1) return jwkSet([publicJwk(A)], 'max-age=300');
      const deferred = Promise.withResolvers<KeyDirectoryAnswer>();
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
  const never = new Promise<KeyDirectoryAnswer>(() => {}); // a tarpit: its fetches never end here
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
  const refused = new Error("the URL's host 10.0.0.1 is a private address (10.0.0.1), which this service won't call");
  const { calls, keys } = directories((url) => (url.hostname === 'agent.example' ? jwkSet([publicJwk(A)]) : refused), {
    maxKeyDirectories: 2,
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
  const { calls, keys } = directories(() => jwkSet([publicJwk(A)]), { maxKeyDirectories: 2 });
  const url = (n: number) => `https://agent${n}.example/jwks`;
  await keys.keyFor(url(1), A.keyid, T0, 'c1'); // found: it verified someone
  await keys.keyFor(url(2), B.keyid, T0, 'c1'); // fetched, but no key found for anyone
  await keys.keyFor(url(3), B.keyid, T0, 'c1');
  await keys.keyFor(url(1), A.keyid, T0, 'c1');
  assert.deepEqual(calls, [url(1), url(2), url(3)], 'the unused one went, though the used one is older');
});

test('requests for one directory while it is fetched share the fetch, each answered for its keyid', async () => {
  const deferred = Promise.withResolvers<KeyDirectoryAnswer>();
  const { calls, keys } = directories(() => deferred.promise, { maxInFlight: 1 });
  const lookups = [A, B, C, A].map((key) => keys.keyFor(DIRECTORY, key.keyid, T0, 'c1'));
  assert.equal(calls.length, 1);
  deferred.resolve(jwkSet([publicJwk(A), publicJwk(B)]));
  const answers = (await Promise.all(lookups)).map((lookup) => lookup.kind);
  assert.deepEqual(answers, ['key', 'key', 'unknown-key', 'key']);
  assert.equal(calls.length, 1);
});

test('a shared fetch that fails answers every waiting request unavailable', async () => {
  const deferred = Promise.withResolvers<KeyDirectoryAnswer>();
  const { calls, keys } = directories(() => deferred.promise);
  const lookups = [A, B].map((key) => keys.keyFor(DIRECTORY, key.keyid, T0, 'c1'));
  deferred.reject(new Error('the answer is larger than 65536 bytes'));
  for (const lookup of await Promise.all(lookups)) assert.equal(lookup.kind, 'unavailable');
  assert.equal(calls.length, 1);
});

test('a shared fetch the outbound guard had no room for answers each waiting request busy, not an error', async () => {
  const deferred = Promise.withResolvers<KeyDirectoryAnswer>();
  const { calls, keys } = directories(() => deferred.promise);
  const lookups = [A, B].map((key) => keys.keyFor(DIRECTORY, key.keyid, T0, 'c1'));
  deferred.reject(new KeyDirectoryBusy('too many name lookups'));
  for (const lookup of await Promise.all(lookups)) assert.equal(lookup.kind, 'busy');
  assert.equal(calls.length, 1);
});

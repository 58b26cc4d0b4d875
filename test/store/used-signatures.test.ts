// The SQL of the signatures that authorized a stored message (src/store/used-signatures.ts), on a real
// store: each found by its digest, recorded once, forgotten when it expires; how many are held, at most.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HELD } from '../../src/store/used-signatures.ts';
import { memoryStore } from './seed-rows.ts';

const digest = (n: number) => n.toString(16).padStart(64, '0');

test('a signature is found by its digest with the message it authorized, and recorded only once', (t) => {
  const store = memoryStore(t);
  assert.equal(store.usedSignatures.find(digest(1)), undefined);
  store.usedSignatures.record(digest(1), 5000, 'conversation-1', 3);
  assert.deepEqual({ ...store.usedSignatures.find(digest(1)) }, { conversation_id: 'conversation-1', seq: 3 });
  assert.throws(() => store.usedSignatures.record(digest(1), 9000, 'conversation-2', 1), /UNIQUE/);
});

test('signatures are forgotten once expired, and held() bounds how many are kept and says the soonest', (t) => {
  const store = memoryStore(t);
  assert.deepEqual({ ...store.usedSignatures.held() }, { count: 0, soonest: null });
  store.usedSignatures.record(digest(1), 3000, 'c', 1);
  store.usedSignatures.record(digest(2), 1000, 'c', 2);
  store.usedSignatures.record(digest(3), 2000, 'c', 3);
  assert.deepEqual({ ...store.usedSignatures.held() }, { count: 3, soonest: 1000 });
  store.usedSignatures.forgetExpired(1999);
  assert.equal(store.usedSignatures.find(digest(2)), undefined, 'expired by then');
  assert.ok(store.usedSignatures.find(digest(3)), 'not yet expired');
  assert.deepEqual({ ...store.usedSignatures.held() }, { count: 3, soonest: 2000 }, 'a bound, read off the rowids');
  store.usedSignatures.forgetExpired(2000);
  assert.deepEqual({ ...store.usedSignatures.held() }, { count: 1, soonest: 3000 }, 'expiring at that time');
  store.usedSignatures.forgetExpired(3000);
  assert.deepEqual({ ...store.usedSignatures.held() }, { count: 0, soonest: null });
});

test('how many are held is read in steps down the b-trees, never by reading every row', (t) => {
  const store = memoryStore(t);
  const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${HELD}`).all() as { detail: string }[];
  const steps = plan.map((row) => row.detail);
  assert.ok(steps.some((step) => step.startsWith('SEARCH used_signatures')), steps.join(' | '));
  assert.deepEqual(
    steps.filter((step) => step.startsWith('SCAN used_signatures')),
    [],
    'a scan reads every signature held: 10 ms a signed write at 100,000',
  );
});

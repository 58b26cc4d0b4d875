// Knowing when another connection committed (src/store/other-commits.ts): the check answers true
// for another connection's commit, never for its own connection's, and reads the version at most
// once per event-loop turn.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchOtherCommits } from '../../src/store/other-commits.ts';
import { databaseFile, openStore } from './seed-rows.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("the check sees another connection's commit, and not its own connection's", async (t) => {
  const dbPath = databaseFile(t);
  const server = openStore(t, dbPath);
  const owner = openStore(t, dbPath);
  const otherCommitted = watchOtherCommits(server);
  assert.equal(otherCommitted(), true, 'asked first, it cannot know: it says so');
  await nextTurn();
  assert.equal(otherCommitted(), false, 'nothing since');
  await nextTurn();
  server.recordSetting('own', 'x');
  assert.equal(otherCommitted(), false, "its own connection's commit is not another's");
  await nextTurn();
  assert.equal(otherCommitted(), false);
  owner.recordSetting('owner', 'x');
  assert.equal(otherCommitted(), false, 'asked again in the same turn: not read again');
  await nextTurn();
  assert.equal(otherCommitted(), true, "the owner's commit, seen the next turn");
  await nextTurn();
  assert.equal(otherCommitted(), false, 'and seen once');
});

test('each check of one store keeps its own count: both see the same commit', async (t) => {
  const dbPath = databaseFile(t);
  const server = openStore(t, dbPath);
  const owner = openStore(t, dbPath);
  const snapshot = watchOtherCommits(server);
  const cache = watchOtherCommits(server);
  snapshot();
  cache();
  await nextTurn();
  owner.recordSetting('owner', 'x');
  assert.deepEqual([snapshot(), cache()], [true, true]);
});

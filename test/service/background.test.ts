// Work that runs from a timer, not from a request (deliveries, sweeps, held polls), meets a
// database the owner's script keeps locked past the busy timeout, or a table a bad restore
// removed: it logs one line, keeps what was due, and tries again; the server stays up.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import { test, type TestContext } from 'node:test';
import { ownerReply } from '../../src/rules/conversations.ts';
import { fakeClock, openConversation, request, startTestService, waitUntil } from '../helpers.ts';
import { receiver } from '../receiver.ts';

/** Another process that holds the database's write lock until told to let go. */
async function lockFromAnotherProcess(t: TestContext, dbPath: string) {
  const script =
    "const db = new (require('node:sqlite').DatabaseSync)(process.argv[1]); db.exec('BEGIN IMMEDIATE');" +
    "process.stdout.write('locked\\n'); process.stdin.once('data', () => { db.exec('COMMIT'); process.exit(0); });";
  const child = spawn(process.execPath, ['-e', script, dbPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.kill());
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  await waitUntil(() => output.includes('locked'), 'the other process holds the write lock');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return async () => {
    child.stdin.end('release\n');
    await exited;
  };
}

test('the delivery loop outlives a database locked past the busy timeout, and delivers afterwards', async (t) => {
  const hook = await receiver(t, (n) => (n === 1 ? 500 : 204)); // the first attempt fails: the event is due again later
  const clock = fakeClock('2026-03-10T12:00:00.000Z');
  const service = await startTestService(t, {
    now: clock.now,
    busyTimeoutMs: 100,
    env: { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' },
    deliveryTiming: { tickMs: 20, retryAfterMs: [50], giveUpAfterMs: 86_400_000 },
  });
  const conversation = await openConversation(service.url);
  const registered = await request(service.url, 'PUT', `/api/v1/conversations/${conversation.id}/webhook`, {
    token: conversation.token,
    json: { url: hook.url },
  });
  assert.equal(registered.status, 201);
  ownerReply(service.store, conversation.id, 'A reply.', { at: clock.now(), dailyMaximum: 0 });
  await waitUntil(() => hook.received.length === 1, 'the first attempt');

  const release = await lockFromAnotherProcess(t, service.dbPath);
  clock.advance(2 * 3_600_000); // the hourly clean-up of the outbox is due, and the event: a write each
  await waitUntil(
    () => service.logs.some((entry) => entry.task === 'deliveries' && entry.level === 'error'),
    'the failed tick is logged',
  );
  assert.equal((await request(service.url, 'GET', '/api/v1/health')).status, 200, 'the server answers meanwhile');
  const failures = service.logs.filter((entry) => entry.task === 'deliveries').length;

  await release();
  // At least once: an attempt made while its outcome could not be recorded is made again.
  await waitUntil(() => service.store.outbox.pendingTotal() === 0, 'the event is delivered once the lock is gone');
  assert.ok(hook.received.length >= 2);
  const logged = service.logs.filter((entry) => entry.task === 'deliveries');
  assert.ok(logged.length <= failures + 1, 'a repeating failure is logged at most once a minute');
  assert.doesNotMatch(JSON.stringify(logged), /A reply/, 'no message text in the log');
});

test('the delivery loop and held polls outlive tables a bad restore removed', async (t) => {
  const service = await startTestService(t, { deliveryTiming: { tickMs: 20, retryAfterMs: [50], giveUpAfterMs: 1e9 } });
  const conversation = await openConversation(service.url);
  const waiting = request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/updates?wait=2`, {
    token: conversation.token,
  });
  await waitUntil(() => service.waitingPolls() === 1, 'the poll is held');
  const other = new DatabaseSync(service.dbPath);
  t.after(() => other.close());
  other.exec('PRAGMA foreign_keys = OFF; DROP TABLE outbox; DROP TABLE messages; DROP TABLE conversations;');
  const logged = (task: string) =>
    service.logs.some((entry) => entry.task === task && /no such table/.test(String(entry.error)));
  await waitUntil(() => logged('deliveries') && logged('waits'), 'both failing tasks are logged');
  assert.equal((await waiting).status, 200, 'the held poll is still answered, as its conversation was');
  assert.equal((await request(service.url, 'GET', '/api/v1/health')).status, 200, 'and the server still answers');
});

// watch: each new client message as it arrives, once; a read that fails is said, and tried again.

import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { fakeClock, newKey, openConversation, request, startTestService, waitUntil } from '../helpers.ts';
import { startWatch } from '../owner-run.ts';

test('watch prints each new client message as it arrives and ends cleanly on Ctrl-C', async (t) => {
  const service = await startTestService(t);
  const existing = await openConversation(service.url, { message: 'from before watch started' });
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching for new client messages/);
  await request(service.url, 'POST', `/api/v1/conversations/${existing.id}/messages`, {
    token: existing.token,
    key: newKey(),
    json: { message: 'a follow-up\nin two lines' },
  });
  await openConversation(service.url, { message: 'a brand new conversation', metadata: { agent_name: 'newcomer' } });
  await watch.waitFor(/a brand new conversation/);
  await watch.waitFor(/a follow-up\n {4}\| in two lines/);
  assert.match(watch.output(), new RegExp(`${existing.id}  #2`));
  assert.match(watch.output(), /newcomer \(unverified\)/);
  assert.ok(!watch.output().includes('from before watch started'));
  await watch.interrupt();
  assert.match(watch.output(), /Stopped watching\.\n$/);
});

test('watch prints a message stamped in the same millisecond as one it already printed', async (t) => {
  const clock = fakeClock('2030-01-01T00:00:00.000Z'); // frozen: every message gets the same created_at
  const service = await startTestService(t, { now: clock.now });
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching/);
  const { id, token } = await openConversation(service.url, { message: 'first in this millisecond' });
  await watch.waitFor(/first in this millisecond/);
  await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: newKey(),
    json: { message: 'second in the same millisecond' },
  });
  await watch.waitFor(/second in the same millisecond/);
  assert.equal(watch.output().split('first in this millisecond').length, 2, 'printed once');
  await watch.interrupt();
});

test('a read that fails is said with its cause, and watch goes on once the database can be read', async (t) => {
  const service = await startTestService(t);
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching for new client messages/);
  const db = new DatabaseSync(service.dbPath);
  t.after(() => db.close());
  db.exec('ALTER TABLE messages RENAME TO messages_away'); // as a bad hand edit might leave it
  const said = /^error: cannot read new messages now \(Error: no such table: messages\); trying again$/m;
  await waitUntil(() => said.test(watch.errors()), 'watch said why it cannot read');
  db.exec('ALTER TABLE messages_away RENAME TO messages');
  await openConversation(service.url, { message: 'after the table came back' });
  await watch.waitFor(/after the table came back/);
  await watch.interrupt();
  assert.match(watch.output(), /Stopped watching\.\n$/);
});

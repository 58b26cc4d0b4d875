// Stored JSON that does not parse (src/store/damaged.ts, src/base/stored-json.ts) never makes a 500 or
// stops an owner's view: a restored file whose listing, conversation metadata or outbox event is no
// JSON object is restored, named once, and served without the damaged row (or with it shown as none);
// a verified identity that is no URL is its own site, and no view stops on it.

import assert from 'node:assert/strict';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { DAMAGED_QUERIES, damagedRows } from '../../src/store/damaged.ts';
import { openConversation, request, runOwner, startServerProcess, startTestService, tempDir } from '../helpers.ts';
import { addMessage, memoryStore, seedConversation } from './seed-rows.ts';

test('damaged listings and metadata are named on restore and at start-up; everything else is served', async (t) => {
  const dir = tempDir(t);
  const service = await startTestService(t);
  const conversation = await openConversation(service.url, { message: 'hello', metadata: { agent_name: 'scout' } });
  const slugs = (await request(service.url, 'GET', '/api/v1/directory?limit=100')).body.items.map(
    (i: { slug: string }) => i.slug,
  );
  const file = path.join(dir, 'damaged.db');
  assert.equal((await runOwner(service.dbPath, ['backup', file])).code, 0);
  const db = new DatabaseSync(file);
  db.prepare("UPDATE listings SET listing = '{not json' WHERE slug = ?").run(slugs[0]);
  db.prepare("UPDATE listings SET listing = '[1, 2]' WHERE slug = ?").run(slugs[1]);
  db.prepare("UPDATE conversations SET metadata = '\u001b[31mnot json' WHERE id = ?").run(conversation.id);
  db.close();

  const restored = await runOwner(service.dbPath, ['restore', file]);
  assert.equal(restored.code, 0, restored.stderr);
  const [first, second] = [slugs[0], slugs[1]].sort();
  assert.match(
    restored.stdout,
    new RegExp(
      `damaged, left out or shown as none: listing ${first}, listing ${second}, ` +
        `conversation's metadata ${conversation.id}\\.\\n$`,
    ),
  );

  const directory = await request(service.url, 'GET', '/api/v1/directory?limit=100');
  assert.equal(directory.status, 200, directory.text);
  assert.deepEqual(
    directory.body.items.map((i: { slug: string }) => i.slug),
    slugs.slice(2),
  );
  assert.equal((await request(service.url, 'GET', `/api/v1/directory/${slugs[0]}`)).status, 404);
  const record = await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}`, {
    token: conversation.token,
  });
  assert.equal(record.status, 200, record.text);
  assert.deepEqual(record.body.metadata, {});

  for (const command of [
    ['inbox'],
    ['inbox', '--json'],
    ['show', conversation.id],
    ['export'],
    ['listings', 'export'],
  ]) {
    const ran = await runOwner(service.dbPath, command);
    assert.equal(ran.code, 0, `${command.join(' ')}: ${ran.stderr}`);
    assert.doesNotMatch(ran.stdout, /\u001b/, 'nothing of the damaged text reaches the terminal');
  }
  assert.match((await runOwner(service.dbPath, ['show', conversation.id])).stdout, /metadata +damaged in the database/);

  await service.close();
  const restarted = await startServerProcess(t, { DB_PATH: service.dbPath });
  await restarted.stop('SIGTERM');
  assert.match(
    restarted.output(),
    new RegExp(`^Warning: the database holds rows whose stored JSON is damaged, .*listing ${first}`, 'm'),
  );
});

test("a question's damaged choices or reply_by are named, found through the questions' index alone", (t) => {
  const store = memoryStore(t);
  const { id } = seedConversation(store).conversation;
  addMessage(store, id, 'client', 'Which?', '2026-03-10T12:01:00.000Z', { beside: { choices: '["A","B"]' } });
  addMessage(store, id, 'client', 'Or?', '2026-03-10T12:02:00.000Z', { beside: { choices: '{not json' } });
  addMessage(store, id, 'client', 'And?', '2026-03-10T12:03:00.000Z', { beside: { choices: '{"a":1}' } });
  const when = { reply_by: '2026-03-11T12:00:00.000Z' };
  addMessage(store, id, 'client', 'By?', '2026-03-10T12:04:00.000Z', { beside: when });
  addMessage(store, id, 'client', 'Late?', '2026-03-10T12:05:00.000Z', { beside: { reply_by: 'garbage' } });
  assert.deepEqual(damagedRows(store.db), [
    `question's choices ${id} #3`,
    `question's choices ${id} #4`,
    `question's reply_by ${id} #6`,
  ]);
  for (const [what, sql] of DAMAGED_QUERIES.filter(([what]) => what.startsWith("question's"))) {
    const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail);
    assert.ok(
      plan.some((step) => step.includes('messages_questions')),
      `${what}: ${plan.join(' | ')}`,
    );
  }
});

test("a damaged row's name is cut at 80 characters: a crafted file's slug may be of any length", (t) => {
  const store = memoryStore(t);
  const slug = `a${'é'.repeat(500)}`;
  store.db.prepare("INSERT INTO listings (slug, listing) VALUES (?, '{not json')").run(slug);
  assert.deepEqual(damagedRows(store.db), [`listing ${slug.slice(0, 79)}…`]);
});

test('a damaged reply_by is shown as none: the conversation, inbox and show still answer', async (t) => {
  const service = await startTestService(t);
  const replyBy = new Date(Date.now() + 3_600_000).toISOString();
  const asked = { message: 'Which?', choices: ['A', 'B'], reply_by: replyBy };
  const conversation = await openConversation(service.url, asked);
  const db = new DatabaseSync(service.dbPath);
  db.prepare("UPDATE messages SET reply_by = 'garbage' WHERE conversation_id = ?").run(conversation.id);
  db.close();
  const record = await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}`, {
    token: conversation.token,
  });
  assert.equal(record.status, 200);
  assert.deepEqual(record.body.question, { seq: 1, choices: ['A', 'B'], reply_by: null, state: 'open' });
  for (const command of [['inbox'], ['show', conversation.id]]) {
    const ran = await runOwner(service.dbPath, command);
    assert.equal(ran.code, 0, `${command.join(' ')}: ${ran.stderr}`);
    assert.match(ran.stdout, /no reply-by time/, command.join(' '));
  }
});

test("a damaged verified identity is its own site: inbox, show, agents and the agent's reads answer", async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url, { message: 'hello' });
  const db = new DatabaseSync(service.dbPath);
  db.prepare("UPDATE conversations SET verified_agent = 'not a url' WHERE id = ?").run(conversation.id);
  db.prepare("UPDATE messages SET verified_agent = 'not a url' WHERE conversation_id = ?").run(conversation.id);
  db.close();
  for (const command of [['inbox'], ['show', conversation.id], ['agents']]) {
    const ran = await runOwner(service.dbPath, command);
    assert.equal(ran.code, 0, `${command.join(' ')}: ${ran.stderr}`);
    assert.match(ran.stdout, /not a url/, command.join(' '));
  }
  const read = await request(service.url, 'GET', `/api/v1/conversations/${conversation.id}/messages`, {
    token: conversation.token,
  });
  assert.equal(read.status, 200, read.text);
});

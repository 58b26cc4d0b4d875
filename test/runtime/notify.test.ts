// NOTIFY_COMMAND: the documented example, one run at a time, bounds, failures.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { LogEntry } from '../../src/base/log.ts';
import { createNotifier } from '../../src/runtime/notify.ts';
import { PRIVACY_STATEMENT } from '../../src/rules/views.ts';
import { newKey, openConversation, request, ROOT, runCommand, runOwner, startTestService } from '../helpers.ts';
import { tempDir, waitUntil } from '../helpers.ts';

const owner = (service: { dbPath: string }, args: string[]) => runOwner(service.dbPath, args);

test('NOTIFY_COMMAND runs the documented example after each new client message', async (t) => {
  const dir = tempDir(t);
  const notifyFile = path.join(dir, 'messages.txt');
  process.env.NOTIFY_FILE = notifyFile; // the notifier inherits the server's environment
  t.after(() => delete process.env.NOTIFY_FILE);
  const service = await startTestService(t, { env: { NOTIFY_COMMAND: path.join(ROOT, 'docs/notify-example.sh') } });
  const conversation = await openConversation(service.url, {
    message: 'Hello there',
    metadata: { agent_name: 'notifier-test' },
  });
  const key = newKey();
  const post = () =>
    request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, {
      token: conversation.token,
      key,
      json: { message: 'Second\nmessage' },
    });
  assert.equal((await post()).status, 201);
  assert.equal((await post()).status, 200); // a duplicate notifies nobody
  await owner(service, ['reply', conversation.id, 'owner replies are not notified']);
  await waitUntil(
    () => existsSync(notifyFile) && /^(.*conversation [^]*?\n\n){2}$/.test(readFileSync(notifyFile, 'utf8')),
    'two notifications were written',
  );
  const text = readFileSync(notifyFile, 'utf8');
  assert.match(
    text,
    new RegExp(`conversation ${conversation.id}  #1  from notifier-test \\(unverified\\)\\n {4}\\| Hello there`),
  );
  assert.match(
    text,
    new RegExp(
      `conversation ${conversation.id}  #2  from notifier-test \\(unverified\\)\\n {4}\\| Second\\n {4}\\| message`,
    ),
  );
  assert.ok(!text.includes(conversation.token));
  assert.ok(!text.includes('owner replies'));
});

test('the example notifier keeps the newest NOTIFY_KEEP, those before in .1, as the privacy text says', async (t) => {
  const example = path.join(ROOT, 'docs/notify-example.sh');
  const file = path.join(tempDir(t), 'messages.txt');
  const notify = (seq: number, keep = '3') =>
    runCommand(example, [], {
      env: { NOTIFY_FILE: file, NOTIFY_KEEP: keep, CONVERSATION_ID: 'c1', MESSAGE_SEQ: String(seq), SENDER: 'a' },
      input: `    | message ${seq}\n`,
    });
  for (let seq = 1; seq <= 7; seq++) assert.equal((await notify(seq)).code, 0);
  const seqs = (name: string) =>
    [...readFileSync(name, 'utf8').matchAll(/ #(\d+) {2}from /g)].map(([, seq]) => Number(seq));
  assert.deepEqual(seqs(file), [7], 'a new file once the last held NOTIFY_KEEP');
  assert.deepEqual(seqs(`${file}.1`), [4, 5, 6], 'the file before it; the three before that are gone');
  assert.equal(statSync(`${file}.1`).mode & 0o777, 0o600);
  const refused = await notify(8, 'all');
  assert.equal(refused.code, 1, 'a NOTIFY_KEEP that is no number fails the run (logged) rather than keep everything');
  assert.match(refused.stderr, /^NOTIFY_KEEP must be a whole number above 0, got "all"/);

  const keep = Number(/^keep=\$\{NOTIFY_KEEP:-(\d+)\}$/m.exec(readFileSync(example, 'utf8'))?.[1]);
  const bound = `the newest ${keep} to ${(2 * keep).toLocaleString('en')}`;
  assert.ok(PRIVACY_STATEMENT.includes(bound), `the privacy statement says ${bound}`);
});

test('NOTIFY_COMMAND runs one notification at a time, in the order the messages were stored', async (t) => {
  const dir = tempDir(t);
  const notifier = path.join(dir, 'notify.sh');
  // Fails when another copy of itself is running, and takes long enough to overlap with one.
  writeFileSync(
    notifier,
    `#!/bin/sh\nmkdir "${dir}/running" || exit 3\nsleep 0.2\n` +
      `echo "$MESSAGE_SEQ" >> "${dir}/seqs.txt"\nrmdir "${dir}/running"\n`,
    { mode: 0o755 },
  );
  const service = await startTestService(t, { env: { NOTIFY_COMMAND: notifier } });
  const conversation = await openConversation(service.url);
  const followUps = [2, 3].map((n) =>
    request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, {
      token: conversation.token,
      key: newKey(),
      json: { message: `follow-up ${n}` },
    }),
  );
  for (const response of await Promise.all(followUps)) assert.equal(response.status, 201);
  const seqsFile = path.join(dir, 'seqs.txt');
  const lines = () => (existsSync(seqsFile) ? readFileSync(seqsFile, 'utf8').split('\n').length - 1 : 0);
  await waitUntil(() => lines() === 3, 'three notifications ran');
  assert.deepEqual(
    service.logs.filter((entry) => entry.notify === 'failed'),
    [],
    'no run overlapped another',
  );
  assert.equal(readFileSync(seqsFile, 'utf8'), '1\n2\n3\n');
});

test('notifications past the waiting limit are dropped and logged, and the rest still run', async (t) => {
  const dir = tempDir(t);
  const seqsFile = path.join(dir, 'seqs.txt');
  const notifier = path.join(dir, 'notify.sh');
  writeFileSync(notifier, `#!/bin/sh\necho "$MESSAGE_SEQ" >> "${seqsFile}"\n`, { mode: 0o755 });
  const logs: LogEntry[] = [];
  const notify = createNotifier([notifier], (entry) => logs.push(entry), { maxWaiting: 3, timeoutMs: 30_000 });
  // The first starts at once; three wait; the fifth finds the queue full.
  for (let seq = 1; seq <= 5; seq++) {
    notify({ conversationId: 'c', seq, agentName: '', verifiedAgent: null, contact: false, message: 'hi' });
  }
  assert.deepEqual(
    logs.map((entry) => [entry.seq, entry.reason]),
    [[5, '3 notifications are already waiting; this one was dropped']],
  );
  await waitUntil(
    () => existsSync(seqsFile) && readFileSync(seqsFile, 'utf8').split('\n').length === 5,
    'four notifications ran',
  );
  assert.equal(readFileSync(seqsFile, 'utf8'), '1\n2\n3\n4\n');
});

test('a notifier running at the time limit is killed, even if it ignores SIGTERM, and the next one runs', async (t) => {
  const dir = tempDir(t);
  const seqsFile = path.join(dir, 'seqs.txt');
  const notifier = path.join(dir, 'notify.sh');
  // The first run ignores SIGTERM and hangs; exec, so that the kill reaches the hanging process itself.
  writeFileSync(
    notifier,
    `#!/bin/sh\nif [ "$MESSAGE_SEQ" = 1 ]; then trap '' TERM; exec sleep 20; fi\n` +
      `echo "$MESSAGE_SEQ" >> "${seqsFile}"\n`,
    { mode: 0o755 },
  );
  const logs: LogEntry[] = [];
  const notify = createNotifier([notifier], (entry) => logs.push(entry), { maxWaiting: 10, timeoutMs: 300 });
  const told = { conversationId: 'c', agentName: '', verifiedAgent: null, contact: false, message: 'hi' };
  for (const seq of [1, 2]) notify({ ...told, seq });
  await waitUntil(() => existsSync(seqsFile), 'the second notification ran');
  assert.deepEqual(
    logs.map((entry) => [entry.seq, entry.reason]),
    [[1, 'killed by SIGKILL']],
  );
  assert.equal(readFileSync(seqsFile, 'utf8'), '2\n');
});

test('a failing NOTIFY_COMMAND never fails the request; the failure is logged', async (t) => {
  const notifier = path.join(tempDir(t), 'notify.sh');
  writeFileSync(notifier, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
  const service = await startTestService(t, { env: { NOTIFY_COMMAND: `${notifier} --flag` } });
  const first = await openConversation(service.url);
  await waitUntil(() => service.logs.some((entry) => entry.notify === 'failed'), 'the failure was logged');
  const failure = service.logs.find((entry) => entry.notify === 'failed');
  assert.equal(failure?.conversation_id, first.id);
  assert.equal(failure?.reason, 'exited with status 3');
  rmSync(notifier); // gone after start-up, which checked it: each run fails, the requests do not
  const second = await openConversation(service.url);
  await waitUntil(() => service.logs.filter((entry) => entry.notify === 'failed').length === 2, 'logged again');
  const gone = service.logs.filter((entry) => entry.notify === 'failed')[1];
  assert.equal(gone?.conversation_id, second.id);
  assert.match(String(gone?.reason), /ENOENT/);
});

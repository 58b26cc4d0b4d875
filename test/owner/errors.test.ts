// The owner script's help, and how it reports a mistake: one line, exit 1.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openConversation as openConversationRule } from '../../src/rules/conversations.ts';
import { Store } from '../../src/store/store.ts';
import {
  openConversation,
  ROOT,
  runCommand,
  startTestService,
  tempDir,
  UNLIMITED_QUOTAS,
} from '../helpers.ts';
import { assertFailsWith, owner } from '../owner-run.ts';

test('bad input gets one clear line on stderr and a non-zero exit', async (t) => {
  const service = await startTestService(t);
  await openConversation(service.url);
  assertFailsWith(await owner(service, ['frobnicate']), /^error: unknown command "frobnicate"; run with --help/);
  assertFailsWith(
    await owner(service, ['show', '00000000-0000-4000-8000-000000000000']),
    /no conversation has an id starting with/,
  );
  assertFailsWith(await owner(service, ['show', 'not-an-id!']), /is not a conversation id/);
  assertFailsWith(await owner(service, ['show']), /give a conversation id/);
  assertFailsWith(await owner(service, ['inbox', '--bogus']), /Unknown option '--bogus'; usage: inbox/);
  assertFailsWith(await owner(service, ['backup']), /give the file/);
  assertFailsWith(
    await owner({ dbPath: path.join(tempDir(t), 'none.db') }, ['inbox']),
    /no database at .*none\.db; start the server once/,
  );
  assertFailsWith(
    await owner(service, ['stats'], { env: { DAILY_MESSAGE_LIMIT: 'lots' } }),
    /DAILY_MESSAGE_LIMIT must be a whole number/,
  );
  assert.ok(!existsSync(path.join(ROOT, 'data', 'none.db')));
});

test('--help explains the script and each command', async (t) => {
  const service = await startTestService(t);
  const help = await owner(service, ['--help']);
  assert.equal(help.code, 0);
  for (const command of [
    'inbox',
    'show',
    'reply',
    'close',
    'reopen',
    'block',
    'unblock',
    'export',
    'watch',
    'listings',
    'stats',
    'backup',
    'purge-expired',
  ]) {
    assert.match(help.stdout, new RegExp(`^  ${command}`, 'm'));
  }
  const replyHelp = await owner(service, ['reply', '--help']);
  assert.equal(replyHelp.code, 0);
  assert.match(replyHelp.stdout, /^Usage: npm run -s owner -- reply <id>/);
});

test('commands refuse arguments their usage does not name; a reply is its words, dashes and all', async (t) => {
  const service = await startTestService(t);
  const [a, b] = [await openConversation(service.url), await openConversation(service.url)];
  for (const args of [
    ['block', a.id, b.id],
    ['close', a.id, 'extra'],
    ['backup', 'one.db', 'two.db'],
    ['inbox', 'extra'],
    ['watch', 'extra'],
  ]) {
    assertFailsWith(await owner(service, args), /^error: too many arguments; usage: /);
  }
  assert.equal(service.store.conversationById(b.id)?.blocked, 0, 'nothing was done');
  assert.equal(service.store.conversationById(a.id)?.status, 'open');
  for (const text of ['- first point', '-5 degrees today', 'run it with -h to see']) {
    const replied = await owner(service, ['reply', a.id, ...text.split(' ')]);
    assert.equal(replied.code, 0, replied.stderr);
  }
  assert.equal((await owner(service, ['reply', a.id, '--', '-x', 'after', 'dashes'])).code, 0);
  assert.deepEqual(
    service.store.messagesAfter(a.id, 1, 10).map((message) => message.message),
    ['- first point', '-5 degrees today', 'run it with -h to see', '-x after dashes'],
  );
  assertFailsWith(await owner(service, ['stats', '--days', '-1']), /^error: Unknown option '--days'; usage: stats/);
  assertFailsWith(await owner(service, ['listings', 'stale', '--days', '-1']), /argument is ambiguous; usage: /);
});

test('a command whose reader goes away (export | head) ends quietly: no stack trace, exit 0', async (t) => {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'service.db');
  const store = new Store(dbPath);
  const write = { at: Date.now(), quotas: UNLIMITED_QUOTAS, addressHash: 'a', agent: null, signature: null };
  for (let i = 0; i < 300; i++) {
    openConversationRule(store, { message: 'x'.repeat(2000), metadata: {}, key: `key-${i}-abcdef` }, write);
  }
  store.close();
  // As the shell runs `npm run -s owner -- export | head -c 100`: the reader takes a little and leaves.
  const shell = `npm run -s owner -- export | head -c 100 > /dev/null; echo "status \${PIPESTATUS[0]}"`;
  const result = await runCommand('bash', ['-c', shell], { env: { DB_PATH: dbPath } });
  assert.equal(result.stderr, '', 'nothing on stderr: no stack trace, no EPIPE');
  assert.equal(result.stdout.trim(), 'status 0');
});

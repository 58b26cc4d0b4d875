// The owner script's help, and how it reports a mistake: one line, exit 1.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openConversation, ROOT, startTestService, tempDir } from './helpers.ts';
import { assertFailsWith, owner } from './owner-run.ts';

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

